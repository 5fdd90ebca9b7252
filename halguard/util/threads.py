"""torch's intra-op thread count for one block: set for the block, put back after (it is process-wide)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["torch_threads"]


@contextmanager
def torch_threads(num_threads: int | None) -> Iterator[None]:
    """Run the block with torch's intra-op thread count set to ``num_threads``, then put the old count back.

    torch's setting is process-wide, so other torch work running in other threads at that moment uses the same
    count; None leaves torch's setting alone.
    """
    if num_threads is None:
        yield
        return
    import torch

    previous = torch.get_num_threads()
    if previous == num_threads:
        yield
        return
    torch.set_num_threads(num_threads)
    try:
        yield
    finally:
        torch.set_num_threads(previous)
