#!/usr/bin/env python3
"""Checks wb profiles made on a GPU (scripts/gpu-check.sh): every op the CUDA backend runs was
measured, and each measured row says which algorithm ran.

For each CSV: a table of ops by status (ok, unsupported, oom, skipped), the reasons of the
unsupported rows, the algorithms chosen per op, and the summed measured time per pass. It exits
non-zero when an op the backend runs (conv2d, linear, matmul, batchnorm, relu, sigmoid, tanh,
silu, maxpool, avgpool, globalavgpool, softmax, add, dropout, gelu, leakyrelu, layernorm; and the
update pass of every layer)
has an unsupported row, or a measured row of
the cuda backend has an empty algo column. Standard library only.

    python3 scripts/gpu_profile_check.py gpu-check/*.csv
    python3 scripts/gpu_profile_check.py --cold gpu-check/resnet50-bf16-cold.csv --warm gpu-check/resnet50-bf16.csv
"""
import argparse
import collections
import csv
import sys

RUNS = {"conv2d", "linear", "matmul", "batchnorm", "relu", "sigmoid", "tanh", "silu", "maxpool", "avgpool",
        "globalavgpool", "softmax", "add", "dropout", "gelu", "leakyrelu", "layernorm", "lstm", "embedding",
        "instancenorm", "select", "concat", "pad", "upsample"}


def check(path):
    rows = list(csv.DictReader(open(path)))
    problems = []
    status = collections.defaultdict(collections.Counter)
    reasons = collections.Counter()
    algos = collections.defaultdict(collections.Counter)
    per_pass = collections.Counter()
    for r in rows:
        op, st = r["op"], r["status"]
        status[op][st] += 1
        if st == "unsupported":
            reasons[(op, r["reason"][:140])] += 1
            if op in RUNS or r["pass"] == "update":
                problems.append(f"{path}: {r['layer']} {r['pass']} batch {r['batch']}: {op} unsupported: {r['reason']}")
        if st == "ok":
            per_pass[(r["batch"], r["pass"])] += float(r["median_s"])
            algo = r.get("algo", "")
            algos[op][algo] += 1
            if r["backend"] == "cuda" and not algo:
                problems.append(f"{path}: {r['layer']} {r['pass']}: measured without an algo")
    print(f"\n{path}: {len(rows)} rows")
    print(f"  {'op':14} {'ok':>5} {'unsup':>5} {'oom':>5} {'skip':>5}")
    for op in sorted(status):
        c = status[op]
        print(f"  {op:14} {c['ok']:5d} {c['unsupported']:5d} {c['oom']:5d} {c['skipped']:5d}")
    for (op, reason), n in sorted(reasons.items()):
        print(f"  unsupported {op} ×{n}: {reason}")
    for op in sorted(algos):
        top = ", ".join(f"{a or '(none)'} ×{n}" for a, n in algos[op].most_common(4))
        print(f"  algo {op}: {top}")
    for (batch, pas), s in sorted(per_pass.items()):
        print(f"  batch {batch} {pas}: {1e3*s:.2f} ms summed")
    return problems, per_pass


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("profiles", nargs="*", help="wb profile CSVs")
    ap.add_argument("--cold", help="a profile made with --cold-cache")
    ap.add_argument("--warm", help="the same profile without --cold-cache")
    args = ap.parse_args()
    problems = []
    for p in args.profiles:
        problems += check(p)[0]
    if args.cold and args.warm:
        pc, cold = check(args.cold)
        pw, warm = check(args.warm)
        problems += pc + pw
        for key in sorted(set(cold) & set(warm)):
            print(f"cold/warm batch {key[0]} {key[1]}: {cold[key] / warm[key]:.3f} (expect ≥ 1: L2 flushed before each run)")
    for p in problems:
        print("PROBLEM:", p)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
