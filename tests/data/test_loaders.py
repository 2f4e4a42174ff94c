"""FileStorageLoader and FileModelLoader."""
import os
import pickle
import threading

import numpy as np
import pytest
import torch

from ding.data import FileModelLoader, FileStorageLoader
from ding.data.storage_loader import FileStorage


def test_storage_round_trip_and_handle_pickles(tmp_path):
    loader = FileStorageLoader(str(tmp_path))
    obj = {'obs': np.arange(6).reshape(2, 3), 'tag': ['a', 'b']}
    handle = loader.save(obj)
    handle = pickle.loads(pickle.dumps(handle))  # what crosses a process boundary
    got = handle.load()
    assert got['tag'] == ['a', 'b'] and got['obs'].tolist() == [[0, 1, 2], [3, 4, 5]]
    assert loader.load(handle)['tag'] == ['a', 'b']


def test_storage_removes_files_older_than_ttl(tmp_path):
    keep = FileStorageLoader(str(tmp_path), ttl=1000)
    for i in range(3):
        keep.save(i)
    assert len(os.listdir(tmp_path)) == 3
    assert keep.clean(max_age=0) == 3 and os.listdir(tmp_path) == []
    eager = FileStorageLoader(str(tmp_path), ttl=0)
    first = eager.save('first')
    second = eager.save('second')  # saving cleans what is already expired
    assert not os.path.exists(first.path) and second.load() == 'second'


def test_model_loader_saves_in_background_and_loads(tmp_path):
    torch.manual_seed(0)
    model, other = torch.nn.Linear(3, 2), torch.nn.Linear(3, 2)
    done, seen = threading.Event(), []

    def published(handle):
        seen.append(handle)
        done.set()

    saved_weight = model.weight.detach().clone()
    with FileModelLoader(model, str(tmp_path)) as loader:
        handle = loader.save(published)
        with torch.no_grad():
            model.weight.add_(1.0)  # training goes on; the snapshot was taken at save()
        assert done.wait(10)
        assert seen == [handle] and os.path.exists(handle.path)
        loader_for_other = FileModelLoader(other, str(tmp_path))
        loader_for_other.load_into_model(handle)
    assert torch.equal(other.weight, saved_weight) and torch.equal(other.bias, model.bias)


def test_model_loader_needs_start(tmp_path):
    loader = FileModelLoader(torch.nn.Linear(1, 1), str(tmp_path))
    with pytest.raises(RuntimeError, match='start'):
        loader.save()
    assert isinstance(FileStorage(str(tmp_path / 'x')), FileStorage)
