"""Data-parallel learners on torch.distributed: DDP helpers.

`DDPContext()` (alias `DistContext`) joins the process group for the duration of a `with`
block: gloo without CUDA, nccl with it. The rendezvous comes from the environment
(`MASTER_ADDR`, `MASTER_PORT`, `RANK`, `WORLD_SIZE`, `LOCAL_RANK`), which `torchrun` sets and
which the Ray launcher sets for learner nodes. Outside a group every helper is the identity
(rank 0 of a world of 1), so the same code runs in one process.

A policy with `cfg.policy.multi_gpu=True` calls `broadcast_module` once (rank 0's weights win)
and `sync_gradients` after each backward: one flattened all-reduce of every gradient, averaged,
before any clipping.
"""
import os
import time
from typing import Any, Iterable, List, Optional, Tuple

import torch
import torch.distributed as dist


def is_initialized() -> bool:
    return dist.is_available() and dist.is_initialized()


def get_rank() -> int:
    return dist.get_rank() if is_initialized() else 0


def get_world_size() -> int:
    return dist.get_world_size() if is_initialized() else 1


def default_backend() -> str:
    return 'nccl' if torch.cuda.is_available() else 'gloo'


def dist_init(backend: Optional[str] = None, addr: Optional[str] = None, port: Optional[int] = None,
              rank: Optional[int] = None, world_size: Optional[int] = None,
              timeout_s: float = 300.0) -> Tuple[int, int]:
    """Join the process group; arguments override the environment. Returns (rank, world_size)."""
    env = os.environ
    backend = backend or default_backend()
    rank = int(rank if rank is not None else env.get('RANK', 0))
    world_size = int(world_size if world_size is not None else env.get('WORLD_SIZE', 1))
    addr = addr or env.get('MASTER_ADDR', '127.0.0.1')
    port = int(port or env.get('MASTER_PORT', 29500))
    if backend == 'nccl':
        torch.cuda.set_device(int(env.get('LOCAL_RANK', rank % max(torch.cuda.device_count(), 1))))
    if not is_initialized():
        import datetime
        dist.init_process_group(backend, init_method=f'tcp://{addr}:{port}', rank=rank, world_size=world_size,
                                timeout=datetime.timedelta(seconds=timeout_s))
    return get_rank(), get_world_size()


def dist_finalize(together: bool = False) -> None:
    """Leave the process group (no-op outside one). `together`: first wait for every rank, since
    a rank tearing gloo down while a peer still talks to it can abort at exit (std::terminate)."""
    if is_initialized():
        if together:
            dist.barrier()
        # gloo's worker thread frees a finished collective (and the Python tensors it holds) only
        # after waking us, and needs the GIL to do it. A thread that asks for the GIL while the
        # interpreter shuts down aborts the process ("terminate called without an active
        # exception": 1 exit in 15 of tests/distributed/ddp_trainer_worker.py). Sleeping hands
        # it the GIL, before destroy_process_group may join that thread.
        time.sleep(_GIL_HANDOFF_S)
        dist.destroy_process_group()


_GIL_HANDOFF_S = 0.05


class DDPContext:
    """`with DDPContext(): ...` runs the block inside the process group."""

    def __init__(self, backend: Optional[str] = None, **kwargs: Any) -> None:
        self._backend, self._kwargs = backend, kwargs

    def __enter__(self) -> 'DDPContext':
        dist_init(self._backend, **self._kwargs)
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        dist_finalize(together=exc_type is None)  # after an error a peer may never arrive


DistContext = DDPContext


def allreduce(x: torch.Tensor) -> torch.Tensor:
    """Average `x` over the ranks in place; returns `x`."""
    if get_world_size() > 1:
        dist.all_reduce(x)
        x.div_(get_world_size())
    return x


def allreduce_async(x: torch.Tensor) -> Any:
    """Start summing `x` (pre-divided by the world size, so the result is the mean) over the
    ranks; returns the work handle (`handle.wait()`), or None outside a group."""
    if get_world_size() <= 1:
        return None
    x.div_(get_world_size())
    return dist.all_reduce(x, async_op=True)


def broadcast(x: torch.Tensor, src: int = 0) -> torch.Tensor:
    if get_world_size() > 1:
        dist.broadcast(x, src)
    return x


def broadcast_module(module: torch.nn.Module, src: int = 0) -> None:
    """Give every rank `src`'s parameters and buffers (one flattened broadcast)."""
    if get_world_size() <= 1:
        return
    tensors = [t for t in (*module.parameters(), *module.buffers()) if t.numel()]
    with torch.no_grad():
        _flat_op(tensors, lambda flat: dist.broadcast(flat, src))


def sync_gradients(params: Iterable[torch.nn.Parameter]) -> None:
    """Average the gradients of `params` over the ranks with one flattened all-reduce.
    A missing gradient counts as zeros, so every rank reduces the same layout."""
    if get_world_size() <= 1:
        return
    params = [p for p in params if p.requires_grad]
    for p in params:
        if p.grad is None:
            p.grad = torch.zeros_like(p)
    _flat_op([p.grad for p in params], allreduce)


def all_ranks_true(flag: bool) -> bool:
    """True only when `flag` is True on every rank: a collective decision (e.g. train or skip
    this step) that keeps the ranks in lockstep. The flag itself outside a group."""
    if get_world_size() <= 1:
        return bool(flag)
    t = torch.tensor([1 if flag else 0], dtype=torch.int64, device=_device())
    dist.all_reduce(t, op=dist.ReduceOp.MIN)
    return bool(t.item())


def end_step_together(ready: bool, known: bool) -> Tuple[bool, bool]:
    """Data-parallel ranks must leave a run on the same step, or one would wait for ever in a
    collective the others have left. Each rank says whether it is `ready` to stop (it ran a
    step that saw `finish`) and whether it knows of a finish at all (`known`). Returns (stop, finish):
    stop once every rank is ready; until then finish when any rank knows, so that the others
    run one step that sees it (a rank-0 CkptSaver makes its final save there). Outside a
    group: (ready, known)."""
    world = get_world_size()
    if world <= 1:
        return bool(ready), bool(known)
    t = torch.tensor([int(bool(ready)), int(bool(known))], dtype=torch.int64, device=_device())
    dist.all_reduce(t)
    return int(t[0]) == world, int(t[1]) > 0


def _device() -> torch.device:
    return torch.device('cuda', torch.cuda.current_device()) if dist.get_backend() == 'nccl' else torch.device('cpu')


def _flat_op(tensors: List[torch.Tensor], op: Any) -> None:
    """Run `op` on one flat copy of `tensors` and copy the result back, grouped by dtype/device."""
    groups = {}
    for t in tensors:
        groups.setdefault((t.dtype, t.device), []).append(t)
    for group in groups.values():
        flat = torch.cat([t.detach().reshape(-1) for t in group])
        op(flat)
        offset = 0
        for t in group:
            n = t.numel()
            t.detach().copy_(flat[offset:offset + n].view_as(t))
            offset += n
