"""`BufferView`, what `buffer.view()` returns: a second buffer over the same stored items, with a
middleware chain of its own. It is defined in buffer.py, beside `Buffer.view()` that builds it."""
from ding.data.buffer.buffer import BufferView  # noqa: F401
