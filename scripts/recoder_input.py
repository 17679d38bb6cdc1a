#!/usr/bin/env python3
"""Times the host's share of Gavel's recommendation job: its input pipeline.

Gavel's workloads/pytorch/recommendation trains recoder's DynamicAutoencoder
with mini-batch negative sampling and num_data_workers=0, so every batch is
built in the training process while the GPU waits (the loop ends each
iteration with loss.item()). Per batch, recoder's RecommendationDataLoader:

  - indexes the users' rows of the CSR interaction matrix (scipy fancy
    indexing of a list of user ids);
  - BatchCollator.collate: the batch's nonzeros, np.unique of their items
    with return_inverse (the negative-sampling item set), then per slice of
    batch_size users the slice's nonzeros, and the sparse batch as
    torch.LongTensor([user_inds, item_inds]) -- a tensor built from a
    Python list of two numpy arrays, element by element (PyTorch warns that
    this path is "extremely slow") -- and torch.FloatTensor(values);
  - then Recoder.__compute_loss wraps them in a sparse COO tensor before
    moving it to the GPU (the copy and to_dense run on the GPU: not timed
    here).

This script rebuilds that pipeline on synthetic data with MovieLens-20M's
statistics after VAE-CF's preprocessing (Liang et al., WWW 2018: 136,677
users, 20,108 items, 10.0M interactions, 73 a user; Gavel's training split
holds all but 20,000 held-out users) and prints the host time per sample at
Gavel's batch sizes. wb's recommendation model (dnn.Recoder) carries the
figure as its input pipeline's host cost per sample; re-measure it on your
own host with

    python3 scripts/recoder_input.py            # Debian: python3-torch, python3-scipy

The fastest of --reps runs per batch size is reported (other work on the
machine only adds time). One thread, as the DataLoader's main process runs
it.
"""
import argparse
import sys
import time
import warnings

from debian_python import rerun_or_exit

try:
    import numpy as np
    import scipy.sparse as sparse
    import torch
except ImportError as e:
    rerun_or_exit("recoder_input", e.name, "python3-torch and python3-scipy")

USERS = 136677 - 20000   # training users (VAE-CF holds out 10,000 + 10,000)
ITEMS = 20108
PER_USER = 10.0e6 / 136677


def interactions(rng):
    """A users × items CSR matrix of ones with MovieLens-20M's mean
    interactions a user (at least 5 each, geometric around the mean) and a
    Zipf-like item popularity."""
    counts = np.minimum(np.maximum(5, rng.geometric(1 / PER_USER, USERS)), 2000)
    pop = 1.0 / np.arange(1, ITEMS + 1) ** 0.8
    pop /= pop.sum()
    rows, cols = [], []
    for u, c in enumerate(counts):
        rows.append(np.full(c, u, dtype=np.int64))
        cols.append(rng.choice(ITEMS, size=c, replace=False, p=pop))
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    return sparse.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(USERS, ITEMS))


def batch(matrix, users, batch_size):
    """One mini-batch as recoder builds it with negative sampling."""
    m = matrix[users]  # RecommendationDataset.__getitem__ (a list of users)
    users_t = torch.LongTensor(np.array(users))
    _, items_inds = m.nonzero()
    items, items_inds = np.unique(items_inds, return_inverse=True)
    dim = len(items)
    items_t = torch.LongTensor(items)
    out, cur = [], 0
    for off in range(0, m.shape[0], batch_size):
        s = m[off:off + batch_size]
        su = s.nonzero()[0]
        n = s.getnnz()
        si = items_inds[cur:cur + n]
        cur += n
        indices = torch.LongTensor([su, si])  # the list-of-arrays path
        values = torch.FloatTensor(s.data)
        out.append(torch.sparse.FloatTensor(indices, values, torch.Size([s.shape[0], dim])))
    return out, items_t, users_t[:batch_size]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--batches", default="512,1024,2048,4096,8192", help="batch sizes (Gavel's)")
    ap.add_argument("--reps", type=int, default=7, help="runs per batch size; the fastest is reported")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    try:
        batches = [int(x) for x in args.batches.split(",")]
    except ValueError:
        ap.error(f"--batches {args.batches!r}: want comma-separated batch sizes, e.g. 512,1024")
    if any(b < 1 for b in batches) or args.reps < 1:
        ap.error("batch sizes and --reps must be positive")
    torch.set_num_threads(1)
    warnings.simplefilter("ignore")
    rng = np.random.default_rng(args.seed)
    m = interactions(rng)
    print(f"synthetic MovieLens-20M: {USERS} users, {ITEMS} items, {m.nnz / USERS:.1f} interactions a user; "
          f"PyTorch {torch.__version__}, numpy {np.__version__}", file=sys.stderr)
    print("batch,us_per_sample")
    for b in batches:
        best = float("inf")
        for _ in range(args.reps):
            users = rng.choice(USERS, size=b, replace=False).tolist()
            t0 = time.perf_counter()
            batch(m, users, b)
            best = min(best, time.perf_counter() - t0)
        print(f"{b},{best / b * 1e6:.1f}")


if __name__ == "__main__":
    main()
