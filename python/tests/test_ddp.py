"""The DDP communication hook with real torch.distributed (gloo) processes:
gradients equal gloo's all-reduce within the quantization bound, the digits
model trains to gloo's accuracy, two jobs on a pool that holds one both
finish correct with the lower-priority one preempted, and a frame corrupted
on the path makes backward() raise the integrity error on every rank."""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "train_digits.py"
EXPONENT = 20


def _ddp_and_reference(rank, world, init_file, device="cpu"):
    """Joins the gloo group; returns a small network on `device`, a copy of
    it outside DDP (gradients to compare with gloo's all-reduce) and its
    DDP model."""
    dist.init_process_group("gloo", init_method=f"file://{init_file}", rank=rank, world_size=world)
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(50, 300), torch.nn.Tanh(), torch.nn.Linear(300, 7)).to(device)
    reference = torch.nn.Sequential(torch.nn.Linear(50, 300), torch.nn.Tanh(), torch.nn.Linear(300, 7)).to(device)
    reference.load_state_dict(net.state_dict())
    device_ids = None if device == "cpu" else [device]
    return net, reference, torch.nn.parallel.DistributedDataParallel(net, device_ids=device_ids)


def _hook_vs_gloo(rank, world, init_file, controller, switch, out, device="cpu"):
    import esa_torch

    net, reference, model = _ddp_and_reference(rank, world, init_file, device)
    job = esa_torch.register(model, controller=controller, switch=switch, exponent=EXPONENT)
    diffs, scale = [], []
    for step in range(3):
        g = torch.Generator().manual_seed(100 * step + rank)
        x = (torch.randn(16, 50, generator=g) * (rank + 1)).to(device)
        model.zero_grad()
        model(x).pow(2).sum().backward()
        reference.zero_grad()
        reference(x).pow(2).sum().backward()
        for p, q in zip(net.parameters(), reference.parameters()):
            assert p.grad.device == torch.device(device)
            expected = q.grad.cpu()
            dist.all_reduce(expected)  # gloo
            expected /= world
            diffs.append((p.grad.cpu() - expected).abs().max().item())
            scale.append(expected.abs().max().item())
    buckets = job.buckets
    # Pinned buffers made for CUDA buckets: once per bucket, not per step.
    staged = sum(s.pool.allocated for s in getattr(job, "_cuda_staging", {}).values())
    job.close(barrier=dist.barrier)
    out.put((rank, max(diffs), max(scale), buckets, staged))
    # The result must leave the queue's feeder thread before os._exit.
    out.close()
    out.join_thread()
    esa_torch.exit_rank()


def _run_hook_vs_gloo(stack, world, device):
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    with tempfile.TemporaryDirectory() as d:
        init = os.path.join(d, "init")
        procs = [
            ctx.Process(
                target=_hook_vs_gloo,
                args=(r, world, init, stack.controller, stack.switch, out, device),
            )
            for r in range(world)
        ]
        for p in procs:
            p.start()
        results = [out.get(timeout=240) for _ in range(world)]
        for p in procs:
            p.join(timeout=60)
            assert p.exitcode == 0
    # The mean of `world` values each rounded to 2^-EXPONENT: at most half a
    # step off, plus float32 rounding of gradients of this size.
    for rank, diff, scale, buckets, _ in results:
        assert scale > 1.0, "gradients large enough to matter"
        assert diff <= 2.0 ** -(EXPONENT + 1) + scale * 2.0**-21, (rank, diff)
        assert buckets >= 3, f"a bucket or more per backward pass, got {buckets}"
    return results


def test_hook_gradients_equal_gloo_within_the_quantization_bound(stack):
    for *_, staged in _run_hook_vs_gloo(stack, 3, "cpu"):
        assert staged == 0, "CPU buckets are summed where they are"


@pytest.mark.skipif(not torch.cuda.is_available(), reason="CUDA not available")
def test_cuda_buckets_equal_gloo_through_pinned_host_memory(stack):
    # Every rank on the first GPU: the hook's path is the same on any.
    for rank, _, _, buckets, staged in _run_hook_vs_gloo(stack, 2, "cuda:0"):
        assert 1 <= staged < buckets, f"rank {rank}: {staged} pinned buffers for {buckets} buckets"


def _hook_with_a_corrupted_frame(rank, world, init_file, controller, switch, integrity, out):
    import esa_torch

    net, reference, model = _ddp_and_reference(rank, world, init_file)
    job = esa_torch.register(model, controller=controller, switch=switch, exponent=EXPONENT, integrity=integrity)
    error, failed_step, diffs = None, None, []
    for step in range(3):
        g = torch.Generator().manual_seed(100 * step + rank)
        x = torch.randn(16, 50, generator=g)
        model.zero_grad()
        try:
            model(x).pow(2).sum().backward()
        except Exception as e:  # the hook's integrity error, through DDP
            error, failed_step = str(e), step
            break
        reference.zero_grad()
        reference(x).pow(2).sum().backward()
        worst = 0.0
        for p, q in zip(net.parameters(), reference.parameters()):
            expected = q.grad.clone()
            dist.all_reduce(expected)  # gloo
            expected /= world
            worst = max(worst, (p.grad - expected).abs().max().item())
        diffs.append(worst)
    stats = job.stats()["worker"]
    job.close(barrier=dist.barrier)
    out.put((rank, error, failed_step, diffs, stats))
    out.close()
    out.join_thread()
    esa_torch.exit_rank()


@pytest.mark.parametrize("integrity", [True, False])
def test_a_corrupted_frame_fails_backward_on_every_rank(stack, make_relay, integrity):
    from conftest import corrupt_one_data_frame

    world = 3
    # Rank 1 sends from the job's second switch port (a fresh stack); the
    # first backward pass takes seqs 0..543, so seq 600 is in the second.
    relay = make_relay(stack, corrupt_one_data_frame(port=2, min_seq=600, amount=2**24))
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    with tempfile.TemporaryDirectory() as d:
        init = os.path.join(d, "init")
        procs = [
            ctx.Process(
                target=_hook_with_a_corrupted_frame,
                args=(r, world, init, stack.controller, relay.switch, integrity, out),
            )
            for r in range(world)
        ]
        for p in procs:
            p.start()
        results = sorted(out.get(timeout=240) for _ in range(world))
        for p in procs:
            p.join(timeout=60)
            assert p.exitcode == 0
    assert relay.corrupted == 1
    for rank, error, failed_step, diffs, stats in results:
        if integrity:
            assert failed_step == 1, (rank, error, diffs)
            assert "esa_torch.IntegrityError: ESA job" in error and "not the sum" in error, error
            assert f"rank {rank}" in error and "DDP bucket" in error and "of iteration 1" in error, error
            assert stats["integrity_failures"] == 1 and stats["integrity_checks"] >= 2, stats
            assert diffs[0] < 1e-3, diffs
        else:
            # Unchecked, the second step trains on a gradient 16/world off.
            assert error is None, error
            assert diffs[0] < 1e-3 and diffs[1] > 5.0, diffs
            assert stats["integrity_checks"] == 0


def torchrun(args, world=4, timeout=600):
    cmd = [
        sys.executable, "-m", "torch.distributed.run", "--standalone",
        f"--nproc_per_node={world}", str(EXAMPLE), *args,
    ]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    lines = r.stdout.strip().splitlines()
    assert lines[-2].startswith("final_accuracy=") and lines[-1].startswith("final_loss="), lines[-3:]
    return r.stdout


def report(path):
    with open(path) as f:
        return json.load(f)


def test_digits_train_through_esa_as_with_gloo(stack, tmp_path):
    common = ["--epochs", "8", "--seed", "3"]
    torchrun([*common, "--backend", "gloo", "--report", str(tmp_path / "gloo.json")])
    torchrun([
        *common, "--backend", "esa", "--controller", stack.controller, "--switch", stack.switch,
        "--report", str(tmp_path / "esa.json"),
    ])
    gloo, esa = report(tmp_path / "gloo.json"), report(tmp_path / "esa.json")
    assert gloo["final_accuracy"] > 0.9
    assert abs(esa["final_accuracy"] - gloo["final_accuracy"]) <= 0.01
    # Quantization noise only: the loss curves agree closely epoch by epoch.
    for a, b in zip(esa["history"], gloo["history"]):
        assert abs(a["loss"] - b["loss"]) <= 0.01 * b["loss"] + 1e-3, (a, b)
    ranks = esa["esa"]["ranks"]
    assert all(r["worker"]["from_switch"] > 0 for r in ranks)
    assert ranks[0]["switch"]["completed"] > 0


def test_two_jobs_on_a_pool_that_holds_one(make_stack, tmp_path):
    # 64 slots; each job keeps up to 64 chunks in flight. The jobs must
    # overlap: an epoch takes about a quarter of a second here, and the two
    # torchruns start seconds apart on a loaded machine (with 4 epochs each
    # one CI run trained them one after the other), so each trains for 40.
    stack = make_stack(pool_slots=64, ports=16)
    common = ["--epochs", "40", "--seed", "5", "--controller", stack.controller, "--switch", stack.switch]
    env = dict(os.environ)
    procs = []
    for name, prio in (("low", 1), ("high", 12)):
        cmd = [
            sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=3",
            str(EXAMPLE), *common, "--backend", "esa", "--priority", str(prio),
            "--policy", f"static:{prio}", "--report", str(tmp_path / f"{name}.json"),
        ]
        procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env))
    outs = [p.communicate(timeout=600)[0] for p in procs]
    for p, o in zip(procs, outs):
        assert p.returncode == 0, o[-3000:]
    low, high = report(tmp_path / "low.json"), report(tmp_path / "high.json")
    for r in (low, high):
        assert r["final_accuracy"] > 0.85, r["final_accuracy"]
    low_switch = low["esa"]["ranks"][0]["switch"]
    high_switch = high["esa"]["ranks"][0]["switch"]
    # The low-priority job was preempted, the high one preempted it.
    assert low_switch["evictions_suffered"] > 0, low_switch
    assert high_switch["preemptions"] > 0, high_switch
    assert sum(r["worker"]["from_ps"] for r in low["esa"]["ranks"]) > 0
