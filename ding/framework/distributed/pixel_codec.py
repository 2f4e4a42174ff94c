"""Pixel observations cross the object store as the uint8 frames they were made from.

Atari-style envs hand out frames as float32 k / 255 in [0, 1] (DI-engine's scaled frames): 4x
the bytes of the uint8 frames behind them. A collected batch of 64 Pong transitions (obs and
next_obs stacks of 4x84x84) is 14 MB as float32 and 3.6 MB as uint8; putting it in the object
store cost a Ray collector about 4x as long as float32 (benchmarks/throughput/atari_split.py).

`pack` codes each float32 column of images (rows x at least 2 more dims) whose values are all
exactly k / 255 as uint8; `unpack` restores the float32 column bit for bit. The check makes the
coding lossless: a column with any other value travels as it is.
"""
from typing import Any, Dict, Optional

import numpy as np

from ding.data.batch import Batch

_SCALE = np.float32(255)


class PackedFrames:
    """A float32 column of k / 255 values, held as the uint8 k."""
    __slots__ = ('coded', )

    def __init__(self, coded: np.ndarray) -> None:
        self.coded = coded

    def decode(self) -> np.ndarray:
        return self.coded.astype(np.float32) / _SCALE


class PackedBatch:
    """A Batch's columns in transit, its pixel columns as PackedFrames."""
    __slots__ = ('columns', )

    def __init__(self, columns: Dict[str, Any]) -> None:
        self.columns = columns


def _coded(column: Any) -> Optional[PackedFrames]:
    """`column` as PackedFrames when it is float32 images of exact k / 255 values, else None."""
    if not isinstance(column, np.ndarray) or column.dtype != np.float32 or column.ndim < 3:
        return None
    with np.errstate(invalid='ignore', over='ignore'):  # NaN or out-of-range values fail the check
        coded = np.rint(column * _SCALE).astype(np.uint8)
    packed = PackedFrames(coded)
    return packed if np.array_equal(packed.decode(), column) else None


def pack(data: Any) -> Any:
    """A Batch with pixel columns as a PackedBatch; anything else (a Batch without them too) as is."""
    if not isinstance(data, Batch):
        return data
    coded = {key: _coded(value) for key, value in data.items()}
    if all(c is None for c in coded.values()):
        return data
    return PackedBatch({key: value if coded[key] is None else coded[key] for key, value in data.items()})


def unpack(data: Any) -> Any:
    """What `pack` was given: a PackedBatch becomes the Batch, its frames float32 again."""
    if not isinstance(data, PackedBatch):
        return data
    return Batch.wrap({k: v.decode() if isinstance(v, PackedFrames) else v for k, v in data.columns.items()})
