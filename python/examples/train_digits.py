"""Train a small network on scikit-learn's bundled digits (8x8 images, no
download) with DistributedDataParallel, its gradients all-reduced by gloo or
through an ESA switch.

    esa local &                                     # switch + controller
    torchrun --standalone --nproc_per_node 4 python/examples/train_digits.py --backend esa
    torchrun --standalone --nproc_per_node 4 python/examples/train_digits.py --backend gloo

Same seed, same data order, same model on both backends: the runs differ
only by ESA's quantization of the gradients. Rank 0 prints a line per
epoch and, as its last two lines, ``final_accuracy=<x>`` (on the held-out
set) and ``final_loss=<y>`` (on the whole training set).
"""

import argparse
import json
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from sklearn.datasets import load_digits


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backend", choices=["esa", "gloo"], default="esa")
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--batch", type=int, default=16, help="samples per rank per step")
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--controller", default="127.0.0.1:50051", help="ESA job API")
    p.add_argument("--switch", default="127.0.0.1:9000", help="HOST:BASE: port n at BASE+n")
    p.add_argument(
        "--hosts",
        help="a hosts file (esa run --switch external's): ranks send from their hosts' own "
        "addresses to a switch's Ethernet ports instead of --switch",
    )
    p.add_argument("--mode", default="esa", choices=["esa", "atp", "switchml"])
    p.add_argument("--priority", type=int, default=15, help="the job's priority class")
    p.add_argument("--policy", default="las", help="fcfs, static:N, srpt or las")
    p.add_argument("--lanes", type=int, default=32)
    p.add_argument("--timeout", type=float, default=30.0, help="seconds before a missing rank is an error")
    p.add_argument("--report", help="rank 0 writes the run's figures here (JSON)")
    return p.parse_args()


def shard(n, rank, world):
    return np.arange(rank, n, world)


def main():
    args = parse_args()
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)

    digits = load_digits()
    x = torch.tensor(digits.data / 16.0, dtype=torch.float32)
    y = torch.tensor(digits.target, dtype=torch.long)
    order = np.random.default_rng(args.seed).permutation(len(x))
    test_idx, train_idx = order[:360], order[360:]
    x_train, y_train = x[train_idx], y[train_idx]
    x_test, y_test = x[test_idx], y[test_idx]

    net = nn.Sequential(nn.Linear(64, args.hidden), nn.ReLU(), nn.Linear(args.hidden, 10))
    model = nn.parallel.DistributedDataParallel(net)
    job = None
    if args.backend == "esa":
        import esa_torch

        job = esa_torch.register(
            model,
            controller=args.controller,
            switch=args.switch,
            mode=args.mode,
            priority=args.priority,
            policy=args.policy,
            lanes=args.lanes,
            timeout_s=args.timeout,
            hosts=args.hosts,
        )
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    mine = shard(len(x_train), rank, world)
    steps = len(mine) // args.batch
    started = time.time()
    history = []
    for epoch in range(args.epochs):
        perm = np.random.default_rng(args.seed * 1000 + epoch).permutation(len(mine))
        total = 0.0
        for s in range(steps):
            idx = torch.as_tensor(mine[perm[s * args.batch : (s + 1) * args.batch]])
            optimizer.zero_grad()
            loss = loss_fn(model(x_train[idx]), y_train[idx])
            loss.backward()
            optimizer.step()
            total += loss.item()
        with torch.no_grad():
            acc = (net(x_test).argmax(1) == y_test).float().mean().item()
        history.append({"epoch": epoch + 1, "loss": total / steps, "accuracy": acc})
        if rank == 0:
            print(f"epoch={epoch + 1} train_loss={total / steps:.5f} test_accuracy={acc:.4f}", flush=True)
    elapsed = time.time() - started
    with torch.no_grad():
        final_loss = loss_fn(net(x_train), y_train).item()
        final_acc = (net(x_test).argmax(1) == y_test).float().mean().item()
    stats = None
    if job is not None:
        job.close(barrier=dist.barrier)
        stats = job.stats()
        stats["buckets"] = job.buckets
        gathered = [None] * world
        dist.all_gather_object(gathered, stats)
        if rank == 0:
            w = [g["worker"] for g in gathered]
            print(
                f"esa job {job.job_id}: {job.buckets} buckets per rank, "
                f"results from the switch {sum(s['from_switch'] for s in w)}, "
                f"from the PS {sum(s['from_ps'] for s in w)}, "
                f"resends {sum(s['resends'] for s in w)}; "
                f"switch: preemptions suffered {stats.get('switch', {}).get('evictions_suffered', '?')}",
                flush=True,
            )
            stats = {"ranks": gathered}
    if rank == 0:
        if args.report:
            with open(args.report, "w") as f:
                json.dump(
                    {
                        "backend": args.backend,
                        "world_size": world,
                        "seconds": elapsed,
                        "history": history,
                        "final_accuracy": final_acc,
                        "final_loss": final_loss,
                        "esa": stats,
                    },
                    f,
                    indent=1,
                )
        print(f"seconds={elapsed:.2f}", flush=True)
        print(f"final_accuracy={final_acc:.4f}", flush=True)
        print(f"final_loss={final_loss:.5f}", flush=True)
    # Not destroy_process_group: gloo's teardown can abort a rank whose work
    # is done ("terminate called without an active exception", SIGABRT),
    # and torchrun then reports the run failed. Once every rank is here,
    # leave without it (esa_torch.exit_rank does the same; this example
    # also runs with gloo alone, without esa_torch).
    dist.barrier()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    sys.exit(main())
