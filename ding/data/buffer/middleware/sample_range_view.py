"""`sample_range_view(buffer_, start=None, end=None)`: sample only stored items `start:end`
(oldest first; a negative bound counts back from the buffer's size). Usually
put on a `buffer_.view()`, so one buffer serves a sampler of recent items and one of all."""
from typing import Any, Callable, Optional

from ding.data.buffer.sampling import sample_arguments


def sample_range_view(buffer_: Any, start: Optional[int] = None, end: Optional[int] = None) -> Callable:
    if start is None and end is None:
        raise ValueError('sample_range_view needs start or end')
    if start is not None and start < 0:
        start = buffer_.size + start
    if end is not None and end < 0:
        end = buffer_.size + end
    sample_range = slice(start, end)

    def _sample_range_view(action: str, chain: Callable, *args: Any, **kwargs: Any) -> Any:
        if action == 'sample':
            return chain(**dict(sample_arguments(args, kwargs), sample_range=sample_range))
        return chain(*args, **kwargs)

    return _sample_range_view
