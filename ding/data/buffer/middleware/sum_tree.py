"""`SumMinTree`: sums and minima of per-slot priorities, kept in a shallow wide tree.

Each node has `fanout` (32) children, so a 1M-slot tree is 4 levels deep. Numpy pays about
a microsecond per call whatever the size of a small array, so a few levels of block-wide
operations beat the 20 levels of a binary tree (of fanouts 2, 16, 32 and 128, 32 was the
fastest for one PER step: sample 64, update 64, push 8). An update of k slots recomputes k
parent blocks per level (one gather + one row reduction); `find` walks a whole batch of
prefix sums down together (per level: gather the k child blocks, cumsum across each, count
the children passed). Nothing loops in Python per sampled row.

Level 0 holds the leaves; every level is padded with zeros to a multiple of `fanout`, and
the top level is a single block whose sum is the total.
"""
import numpy as np

FANOUT = 32


class SumMinTree:

    def __init__(self, capacity: int, fanout: int = FANOUT) -> None:
        self.capacity = capacity
        self.fanout = fanout
        sizes = [-(-capacity // fanout) * fanout]
        while sizes[-1] > fanout:
            sizes.append(-(-sizes[-1] // fanout // fanout) * fanout)
        self._sums = [np.zeros(n, dtype=np.float64) for n in sizes]
        self._mins = [np.full(n, np.inf, dtype=np.float64) for n in sizes]  # empty slots count as inf

    @property
    def total(self) -> float:
        return float(self._sums[-1].sum())

    @property
    def min(self) -> float:
        """Smallest non-empty leaf (inf when all are empty)."""
        return float(self._mins[-1].min())

    @property
    def leaves(self) -> np.ndarray:
        """Read-only view of the leaf values (0 for empty slots)."""
        view = self._sums[0][:self.capacity]
        view.flags.writeable = False
        return view

    def set(self, slots: np.ndarray, values: np.ndarray) -> None:
        """Set leaves; a value of 0 empties the slot (it is never found)."""
        slots = np.asarray(slots, dtype=np.int64)
        if len(slots) == 0:
            return
        values = np.broadcast_to(np.asarray(values, dtype=np.float64), slots.shape)
        self._sums[0][slots] = values
        self._mins[0][slots] = np.where(values > 0, values, np.inf)
        nodes = slots
        for level in range(1, len(self._sums)):
            nodes = nodes // self.fanout
            self._sums[level][nodes] = self._sums[level - 1].reshape(-1, self.fanout).take(nodes, axis=0).sum(axis=1)
            self._mins[level][nodes] = self._mins[level - 1].reshape(-1, self.fanout).take(nodes, axis=0).min(axis=1)

    def reset(self, leaves: np.ndarray = None) -> None:
        """Empty every leaf, or load them all from `leaves` (rebuilding every level)."""
        self._sums[0][:] = 0
        self._sums[0][:self.capacity] = 0 if leaves is None else leaves
        self._mins[0][:] = np.where(self._sums[0] > 0, self._sums[0], np.inf)
        for level in range(1, len(self._sums)):
            self._sums[level][:] = 0
            self._mins[level][:] = np.inf
            n = len(self._sums[level - 1]) // self.fanout
            self._sums[level][:n] = self._sums[level - 1].reshape(-1, self.fanout).sum(axis=1)
            self._mins[level][:n] = self._mins[level - 1].reshape(-1, self.fanout).min(axis=1)

    def find(self, mass: np.ndarray) -> np.ndarray:
        """For each prefix sum in [0, total), the slot whose leaf interval contains it.

        Children are passed while the running sum stays <= the mass, so empty children are
        skipped; a mass pushed past its block's end by rounding stops at the block's last
        non-empty child. Either way an empty slot is never returned.
        """
        fanout = self.fanout
        mass = np.array(mass, dtype=np.float64)
        row_start = np.arange(len(mass)) * fanout
        node = np.zeros(len(mass), dtype=np.int64)
        for level in range(len(self._sums) - 1, -1, -1):
            block = self._sums[level].reshape(-1, fanout).take(node, axis=0)
            running = block.cumsum(axis=1)
            child = (running > mass[:, None]).argmax(axis=1)  # first child not passed (running is sorted)
            overflow = mass >= running[:, -1]
            if overflow.any():
                child[overflow] = fanout - 1 - np.argmax(block[overflow, ::-1] > 0, axis=1)
            flat = row_start + child
            mass -= running.ravel().take(flat) - block.ravel().take(flat)  # sum of the children passed
            node = node * fanout + child
        return node
