"""A dizoo Atari config (dizoo/atari/config/serial/<game>/<game>_<algo>_config.py) trained within a
wall-clock budget: its evaluation curve, as `ding -m serial -c <config>` runs it. Made for a lent GPU
machine (the configs say cuda=True; 8 collector and 8 evaluator env processes).

    python benchmarks/learning/atari_configs.py --game pong --algo dqn --wall-cap 400 --out pong_dqn.json

Writes `--out` after every evaluation (a call that is cut short keeps its curve) and prints each
evaluation as it comes. `--override JSON` is merged into the config (e.g. '{"policy": {"cuda": false}}'
to try it on a CPU).
"""
import argparse
import importlib
import json
import platform
import time
from typing import Any, Dict, List

GAMES = ('pong', 'breakout', 'qbert', 'spaceinvaders')
ALGOS = ('dqn', 'c51', 'qrdqn', 'rainbow', 'r2d2')


def _device() -> str:
    import torch
    if torch.cuda.is_available():
        return torch.cuda.get_device_name(0)
    return f'cpu ({platform.processor() or platform.machine()})'


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--game', choices=GAMES, default='pong')
    p.add_argument('--algo', choices=ALGOS, default='dqn')
    p.add_argument('--seed', type=int, default=0)
    p.add_argument('--max-env-step', type=int, default=10_000_000)
    p.add_argument('--wall-cap', type=float, default=400.0, help='seconds')
    p.add_argument('--override', default='{}', help='JSON merged into the config')
    p.add_argument('--out', required=True)
    args = p.parse_args()

    from ding.utils.dicts import deep_merge
    from ding.utils.fileio import atomic_write_json
    from config_curve import train_with_curve
    module = importlib.import_module(f'dizoo.atari.config.serial.{args.game}.{args.game}_{args.algo}_config')
    override = json.loads(args.override)
    main_cfg = deep_merge(module.main_config, override)
    header: Dict[str, Any] = dict(game=args.game, algo=args.algo, seed=args.seed, env_id=main_cfg.env.env_id,
                                  device=_device(), started=time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()),
                                  wall_cap_s=args.wall_cap, override=override,
                                  config={k: main_cfg.policy[k] for k in ('learn', 'collect', 'nstep', 'other')
                                          if k in main_cfg.policy})

    def progress(evals: List[List[float]]) -> None:
        seconds, env_step, ret = evals[-1]
        print(f'eval {len(evals):3d}: {env_step:8d} env steps, {seconds:7.1f} s, return {ret:6.1f}', flush=True)
        atomic_write_json(args.out, dict(header, evals=evals))

    row = train_with_curve(main_cfg, module.create_config, args.algo, main_cfg.env.env_id, args.seed,
                           args.max_env_step, args.wall_cap, progress, progress_every=1)
    row['env_steps_per_s'] = round(row['env_step'] / row['seconds'], 1)
    atomic_write_json(args.out, dict(header, **row))
    print(f'{args.game} {args.algo}: best {row["best"]}, {row["env_step"]} env steps in {row["seconds"]} s '
          f'({row["env_steps_per_s"]} env steps/s) on {header["device"]}')


if __name__ == '__main__':
    main()
