"""Bucket all-reduce throughput: through ESA (the esa_torch worker, the path
the DDP hook takes) against gloo's all_reduce, on the same ranks and buffers
in one run.

    python/examples/with_esa_local.sh torchrun --standalone --nproc_per_node 4 \\
        python/examples/bench_allreduce.py --sizes 262144,1048576 --repeats 5

Rank 0 prints one line per backend and size with the median time and the
goodput (float32 bytes of the bucket per second), then the ratio of ESA's
goodput to gloo's per size. ``esa`` is an unchecked job, ``esa+check`` one
whose results are checked as the DDP hook's are (``integrity=True``): the
checksums in the worker and the all-gather of them over gloo; its line
adds the median time of that all-gather and check, and the last lines the
overhead of the check per bucket.
"""

import argparse
import os
import statistics
import time

import numpy as np
import torch
import torch.distributed as dist


def switch_cpu_seconds():
    """CPU time (user + system) the `esa local` process has used so far, when
    with_esa_local.sh says which process it is (ESA_LOCAL_PID); else None."""
    pid = os.environ.get("ESA_LOCAL_PID")
    if not pid:
        return None
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    # utime and stime, fields 14 and 15 of proc(5), in clock ticks.
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--sizes", default="262144,1048576", help="bucket sizes in float32 elements")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--controller", default="127.0.0.1:50051")
    p.add_argument("--switch", default="127.0.0.1:9000")
    p.add_argument("--lanes", type=int, default=32)
    p.add_argument("--window", type=int, default=64, help="chunks in flight per rank")
    args = p.parse_args()
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.set_num_threads(1)
    import esa_torch

    def share(obj):
        box = [obj]
        dist.broadcast_object_list(box, src=0)
        return box[0]

    common = dict(
        controller=args.controller, switch=args.switch, lanes=args.lanes, window=args.window, share=share
    )
    jobs = {
        "esa": esa_torch.Job(rank, world, **common),
        "esa+check": esa_torch.Job(rank, world, exchange=esa_torch.checksum_exchange(), **common),
    }
    sizes = [int(s) for s in args.sizes.split(",")]
    results = {}
    for n in sizes:
        rng = np.random.default_rng(rank)
        base = rng.standard_normal(n).astype(np.float32)
        for backend in ("gloo", "esa", "esa+check"):
            times, checks = [], []
            # Resends and chunks the PS completed, summed over the timed
            # repeats and the ranks: what the times include besides the
            # first transmissions through the switch.
            extra = torch.zeros(2, dtype=torch.float64)
            # CPU time of the ranks (every thread of the process) in the
            # timed repeats, and of the switch (rank 0 reads it).
            cpu = torch.zeros(2, dtype=torch.float64)
            for i in range(args.repeats + 1):  # the first is a warm-up
                t = torch.from_numpy(base.copy())
                dist.barrier()
                switch_before = switch_cpu_seconds() if rank == 0 else None
                cpu_before = time.process_time()
                start = time.perf_counter()
                if backend == "gloo":
                    dist.all_reduce(t)
                else:
                    stats = jobs[backend].allreduce(t.numpy())
                elapsed = time.perf_counter() - start
                cpu_used = time.process_time() - cpu_before
                if i > 0:
                    times.append(elapsed)
                    cpu[0] += cpu_used
                    if switch_before is not None:
                        # The switch's work ends with the last rank's result,
                        # which this barrier waits for.
                        dist.barrier()
                        cpu[1] += switch_cpu_seconds() - switch_before
                    else:
                        dist.barrier()
                    if backend != "gloo":
                        checks.append(stats["integrity_seconds"])
                        extra += torch.tensor([stats["resends"], stats["from_ps"]], dtype=torch.float64)
            # The slowest rank decides.
            worst = torch.tensor(times, dtype=torch.float64)
            dist.all_reduce(worst, op=dist.ReduceOp.MAX)
            dist.all_reduce(extra)
            cpu_ranks = cpu[0].clone()
            dist.all_reduce(cpu_ranks)
            med = statistics.median(worst.tolist())
            results[(backend, n)] = med
            if rank == 0:
                check = f" check_ms={statistics.median(checks) * 1e3:.2f}" if backend == "esa+check" else ""
                if backend != "gloo":
                    check += f" resends={int(extra[0])} from_ps={int(extra[1])}"
                cpu_ms = f" cpu_ms ranks={cpu_ranks.item() / args.repeats * 1e3:.0f}"
                if switch_cpu_seconds() is not None:
                    cpu_ms += f" switch={cpu[1].item() / args.repeats * 1e3:.0f}"
                check += cpu_ms
                print(
                    f"{backend:9} elements={n} ranks={world} median_ms={med * 1e3:.1f} "
                    f"goodput_MBps={n * 4 / med / 1e6:.1f}{check}",
                    flush=True,
                )
    if rank == 0:
        for n in sizes:
            print(f"ratio esa/gloo goodput elements={n}: {results[('gloo', n)] / results[('esa', n)]:.3f}")
        for n in sizes:
            plain, checked = results[("esa", n)], results[("esa+check", n)]
            print(
                f"integrity check elements={n}: +{(checked - plain) * 1e3:.1f} ms per bucket, "
                f"checked/unchecked time {checked / plain:.3f}"
            )
    for job in jobs.values():
        job.close(barrier=dist.barrier)
    # Not destroy_process_group: gloo's teardown can abort a finished rank
    # (see esa_torch.exit_rank).
    esa_torch.exit_rank()


if __name__ == "__main__":
    main()
