"""BatchDataset for offline pipelines."""
import numpy as np
import torch
from torch.utils.data import DataLoader

from ding.data import Batch, BatchDataset, collate_batch


def make_dataset(n=5):
    return BatchDataset(Batch(obs=np.arange(2 * n, dtype=np.float32).reshape(n, 2), action=np.arange(n)))


def test_rows_and_dataloader_collate():
    ds = make_dataset()
    assert len(ds) == 5 and ds[1]['obs'].tolist() == [2.0, 3.0] and ds[1]['action'] == 1
    batches = list(DataLoader(ds, batch_size=2, collate_fn=collate_batch))
    assert [len(b) for b in batches] == [2, 2, 1]
    assert isinstance(batches[0].obs, torch.Tensor) and batches[2].action.tolist() == [4]


def test_minibatches_cover_every_row_once():
    ds = make_dataset(10)
    seen = np.concatenate([b.action for b in ds.iter_minibatches(4, rng=np.random.default_rng(0))])
    assert sorted(seen.tolist()) == list(range(10)) and seen.tolist() != list(range(10))
    assert [len(b) for b in ds.iter_minibatches(4, drop_last=True)] == [4, 4]
    assert [b.action.tolist() for b in ds.iter_minibatches(4, shuffle=False)] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]


def test_from_list_of_dicts():
    ds = BatchDataset([{'x': 1.0}, {'x': 2.0}])
    assert len(ds) == 2 and ds[1]['x'] == 2.0
