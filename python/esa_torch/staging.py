"""CUDA gradient buckets through pinned host memory.

The native worker sums float32 host memory. A CUDA bucket is copied to a
pinned host buffer on a side stream (after the backward pass's work on it),
summed there in place on the job's executor thread, and copied back on the
same stream; the hook's future records that stream, so DDP's stream waits
for the copy back and nothing blocks the backward pass. :class:`BufferPool`
keeps the pinned buffers, :class:`CudaStaging` the stream and the copies.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from typing import Any, Callable, Dict, List


class BufferPool:
    """Float32 buffers kept per size: :meth:`acquire` hands out a free one
    of ``numel`` elements (allocating one only when none is free),
    :meth:`release` takes it back for the next bucket of that size.

    Pinned memory is slow to allocate and DDP's buckets keep their sizes
    from one iteration to the next, so each size's buffers are allocated
    once. Two buckets of one size in flight at once get two buffers.
    ``allocate(numel)`` makes a buffer (pinned host memory for CUDA
    buckets). Safe to use from several threads: the backward pass acquires,
    the executor releases.
    """

    def __init__(self, allocate: Callable[[int], Any]) -> None:
        self._allocate = allocate
        self._free: Dict[int, List[Any]] = defaultdict(list)
        self._lock = threading.Lock()
        #: Buffers allocated so far.
        self.allocated = 0

    def acquire(self, numel: int) -> Any:
        with self._lock:
            free = self._free[numel]
            if free:
                return free.pop()
            self.allocated += 1
        return self._allocate(numel)

    def release(self, buffer: Any) -> None:
        with self._lock:
            self._free[buffer.numel()].append(buffer)


class CudaStaging:
    """The side stream and pinned buffers of one CUDA device's buckets.

    Every copy of the device's buckets, both ways, goes on the one side
    stream: a buffer released after its copy back is enqueued can be
    handed to the next bucket at once, whose copy in the stream runs after
    that copy back.
    """

    def __init__(self, device) -> None:
        import torch

        self.device = torch.device(device)
        self.stream = torch.cuda.Stream(device=self.device)
        self.pool = BufferPool(lambda numel: torch.empty(numel, dtype=torch.float32, pin_memory=True))

    def to_host(self, bucket):
        """Enqueues the copy of ``bucket`` into a pinned float32 buffer once
        the current stream's work (the backward pass's) on it is done;
        returns the buffer and the event that marks the copy complete. Call
        on the thread running the backward pass."""
        import torch

        host = self.pool.acquire(bucket.numel())
        self.stream.wait_stream(torch.cuda.current_stream(self.device))
        with torch.cuda.stream(self.stream):
            host.copy_(bucket.view(-1), non_blocking=True)
            copied = torch.cuda.Event()
            copied.record(self.stream)
        # The bucket, made on DDP's stream, is used on this one too.
        bucket.record_stream(self.stream)
        return host, copied

    def to_device(self, host, bucket, future) -> None:
        """Enqueues the copy of ``host`` back into ``bucket``, completes
        ``future`` with ``bucket`` and releases ``host``: the future records
        the side stream, so whoever waits on it (DDP) waits for the copy
        back."""
        import torch

        with torch.cuda.stream(self.stream):
            bucket.view(-1).copy_(host, non_blocking=True)
            future.set_result(bucket)
        self.pool.release(host)

    def discard(self, host) -> None:
        """Returns ``host`` to the pool after a failed all-reduce (after the
        copies on the stream so far)."""
        self.pool.release(host)
