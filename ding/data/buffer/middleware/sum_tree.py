"""`SumMinTree`: sum and min segment trees over per-slot priorities, vectorised with numpy.

Leaves sit at `[n, 2n)` of flat arrays (n = capacity rounded up to a power of two); node i
has children 2i and 2i+1. An update of k leaves recomputes their ancestors one level at a
time (log2 n numpy calls, a slice per level when the leaves are contiguous, as after a
push); `find` walks a whole batch of prefix sums down the tree together, so sampling 64
rows costs log2 n vectorised steps and no Python loop per row.
"""
import numpy as np


class SumMinTree:

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.depth = max(0, (capacity - 1).bit_length())
        self.n = 1 << self.depth
        self._sum = np.zeros(2 * self.n, dtype=np.float64)
        self._min = np.full(2 * self.n, np.inf, dtype=np.float64)

    @property
    def total(self) -> float:
        return float(self._sum[1])

    @property
    def min(self) -> float:
        """Smallest non-empty leaf (inf when all are empty)."""
        return float(self._min[1])

    @property
    def leaves(self) -> np.ndarray:
        """Read-only view of the leaf values (0 for empty slots)."""
        view = self._sum[self.n:self.n + self.capacity]
        view.flags.writeable = False
        return view

    def set(self, slots: np.ndarray, values: np.ndarray) -> None:
        """Set leaves; a value of 0 empties the slot (it is never sampled)."""
        slots = np.asarray(slots, dtype=np.int64)
        values = np.broadcast_to(np.asarray(values, dtype=np.float64), slots.shape)
        if len(slots) == 0:
            return
        nodes = slots + self.n
        self._sum[nodes] = values
        self._min[nodes] = np.where(values > 0, values, np.inf)
        if len(nodes) == 1 or (np.diff(nodes) == 1).all():
            self._refresh_range(int(nodes[0]), int(nodes[-1]))
        else:
            self._refresh_nodes(nodes)

    def _refresh_range(self, lo: int, hi: int) -> None:
        for _ in range(self.depth):
            lo, hi = lo >> 1, hi >> 1
            left = slice(2 * lo, 2 * hi + 1, 2)
            right = slice(2 * lo + 1, 2 * hi + 2, 2)
            self._sum[lo:hi + 1] = self._sum[left] + self._sum[right]
            self._min[lo:hi + 1] = np.minimum(self._min[left], self._min[right])

    def _refresh_nodes(self, nodes: np.ndarray) -> None:
        for _ in range(self.depth):
            nodes = nodes >> 1
            left = nodes << 1
            self._sum[nodes] = self._sum[left] + self._sum[left + 1]
            self._min[nodes] = np.minimum(self._min[left], self._min[left + 1])

    def reset(self, leaves: np.ndarray = None) -> None:
        """Empty every leaf, or load them all from `leaves` (rebuilding the tree)."""
        self._sum[:] = 0
        self._min[:] = np.inf
        if leaves is not None:
            self.set(np.arange(self.capacity), leaves)

    def find(self, mass: np.ndarray) -> np.ndarray:
        """For each prefix sum in [0, total), the slot whose leaf interval contains it.

        A step goes right only into a subtree with positive sum, so rounding can never land
        on an empty slot.
        """
        mass = np.array(mass, dtype=np.float64)
        node = np.ones(len(mass), dtype=np.int64)
        for _ in range(self.depth):
            left = node << 1
            left_sum = self._sum[left]
            go_right = (mass >= left_sum) & (self._sum[left + 1] > 0)
            mass -= left_sum * go_right
            node = left + go_right
        return node - self.n
