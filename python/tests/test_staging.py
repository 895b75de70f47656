"""The pinned-buffer pool CUDA buckets are staged through, on CPU tensors
(its bookkeeping is the same for any buffer); the CUDA path itself runs in
test_ddp.py where CUDA is available."""

import pytest

torch = pytest.importorskip("torch")

from esa_torch.staging import BufferPool  # noqa: E402


def pool():
    return BufferPool(lambda numel: torch.empty(numel, dtype=torch.float32))


def test_a_released_buffer_is_handed_out_again_for_its_size():
    p = pool()
    first = p.acquire(100)
    assert first.numel() == 100 and first.dtype == torch.float32
    p.release(first)
    assert p.acquire(100) is first
    assert p.allocated == 1


def test_buffers_in_use_are_never_shared():
    p = pool()
    a, b = p.acquire(100), p.acquire(100)
    assert a.data_ptr() != b.data_ptr()
    assert p.allocated == 2
    p.release(a)
    p.release(b)
    # Both come back, once each.
    again = {p.acquire(100).data_ptr(), p.acquire(100).data_ptr()}
    assert again == {a.data_ptr(), b.data_ptr()}
    assert p.allocated == 2


def test_sizes_are_kept_apart():
    p = pool()
    small = p.acquire(10)
    p.release(small)
    big = p.acquire(20)
    assert big is not small and big.numel() == 20
    assert p.acquire(10) is small
    assert p.allocated == 2


def test_steady_state_iterations_allocate_nothing():
    # DDP's buckets keep their sizes: after the first iteration every
    # bucket finds a buffer released by the one before.
    p = pool()
    sizes = [4096, 4096, 1000]
    for _ in range(5):
        held = [p.acquire(n) for n in sizes]
        for buffer in held:
            p.release(buffer)
    assert p.allocated == len(sizes)
