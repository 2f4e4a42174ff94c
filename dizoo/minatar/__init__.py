"""MinAtar (Young & Tian 2019): five Atari games on 10x10 grids of C binary channels."""
