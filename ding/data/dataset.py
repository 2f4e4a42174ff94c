"""`BatchDataset`: a torch `Dataset` over a `Batch`, for offline pipelines.

`dataset[i]` is the i-th row as a dict of columns, so a plain `DataLoader` works; pass
`collate_fn=collate_batch` to get each minibatch back as one `Batch` of tensors. For the
common case (shuffled minibatches of a dataset in memory), `iter_minibatches` skips the
per-row DataLoader path and draws each minibatch with one fancy index per column.
"""
from typing import Any, Dict, Iterator, Mapping, Optional, Sequence

import numpy as np
from torch.utils.data import Dataset

from ding.data.batch import Batch, as_batch


class BatchDataset(Dataset):

    def __init__(self, data: Any) -> None:
        self.batch = as_batch(data)

    def __len__(self) -> int:
        return len(self.batch)

    def __getitem__(self, i: int) -> Dict[str, Any]:
        return self.batch[int(i)].to_dict()

    def iter_minibatches(self, batch_size: int, shuffle: bool = True, drop_last: bool = False,
                         rng: Optional[np.random.Generator] = None) -> Iterator[Batch]:
        """One pass over the data in minibatches (Batch of the stored column types)."""
        n = len(self.batch)
        order = (rng or np.random.default_rng(np.random.randint(2**31))).permutation(n) if shuffle else np.arange(n)
        stop = n - n % batch_size if drop_last else n
        for start in range(0, stop, batch_size):
            yield self.batch[order[start:start + batch_size]]


def collate_batch(rows: Sequence[Mapping[str, Any]]) -> Batch:
    """DataLoader collate_fn: stack dict rows into a Batch of torch tensors."""
    return Batch.from_rows(rows).to_torch()
