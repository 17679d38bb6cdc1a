#!/usr/bin/env python3
"""Times, with PyTorch, the layer shapes of a wb profile and prints wb/torch per layer.

CUDA (--device cuda, the default). For every measured conv2d, linear, matmul, batchnorm,
instancenorm, layernorm, activation (relu, sigmoid, tanh, silu, gelu, leakyrelu), dropout, pooling
(maxpool, avgpool, globalavgpool), softmax, add, embedding, lstm, select, concat, upsample and pad
row, and every update row, of each wb profile CSV (wb profile ... --out FILE), it builds the same
operation in PyTorch (NCHW, the profile's precision, modules cast to it as a model is,
cudnn.benchmark on, TF32 off for fp32), times the same pass with CUDA events after warm-up, and
prints the ratio of wb's median to PyTorch's, with the algorithm wb ran (the profile's algo
column). Each pass is what wb's row runs, as PyTorch runs it: bwd-data of a norm takes the
gradients of its weight and bias with the input's (wb computes them there); an lstm's
bwd-weights is the marginal cost of the weights' gradients (as on the CPU, below); the update is
torch.optim.SGD(momentum=0.9) over the layer's fp32 parameters, foreach or fused=True as the
profile's sidecar (versions.update) says wb ran it; select's forward and concat's backward copy
what PyTorch leaves as views, as wb does. PyTorch runs pooling, activations, softmax, and batch
norm in bf16 and fp16 and instance norm with its own kernels, not cuDNN's, so their ratios
compare wb's cuDNN routine with what a PyTorch training step actually runs. Every measured row
it cannot time (an op or pass it has no equivalent for, or PyTorch failing) is counted and listed
with the reason; --dry-run classifies the rows without torch. --gemm N times an N³ torch.matmul in bf16 and compares with wb's GEMM profile;
--iteration resnet50 times a whole torchvision ResNet-50 training iteration (forward + backward)
to compare with the profile's summed passes.

    python3 scripts/torch_reference.py --profile gpu-check/resnet50-bf16.csv --gemm 8192 \
        --wb-gemm gpu-check/gemm-bf16.csv --iteration resnet50

CPU (--device cpu). Every row a CPU profile measured (status ok) is timed again with PyTorch on
this machine's CPU, in fp32, with torch.set_num_threads(N) and OMP_NUM_THREADS /
OPENBLAS_NUM_THREADS = N where unset (PyTorch's CPU GEMMs run in OpenBLAS's own threads, which
set_num_threads does not reach). N is --threads, else the threads the profile ran with: a
"threads"/"gomaxprocs" entry of the profile's JSON sidecar, else "GOMAXPROCS n" in its device
column, else the CPUs this process may use. Shapes are the layer descriptions of the key column
(batch first, as wb lays its CPU buffers out; lstm time-major, as nn.LSTM). Each pass is the one
wb runs (profiler/cpu's package comment), as a PyTorch training step runs it:

  fwd          the module or function on an input that requires grad (autograd records the
               graph, as in training); batchnorm in training mode; dropout p = 0.1,
               training; gelu tanh approximation; leakyrelu slope 0.2; softmax with the
               attention scale 1/8 and the causal mask (masked_fill -inf) where the key says
               scaled=true / causal=true, as a model applies them before torch.softmax.
  bwd-data     torch.autograd.grad(y, [input], dy): the input's gradient alone (autograd then
               skips the parameters' gradients). matmul: both inputs' gradients. batchnorm and
               layernorm: the input's and the parameters' gradients together (wb computes
               them in bwd-data; PyTorch computes all three in one kernel).
  bwd-weights  torch.autograd.grad(y, parameters, dy): the parameters' gradients alone
               (conv2d/linear weight and bias, the embedding table's dense gradient).
               lstm: PyTorch cannot isolate it (the weights' gradients need the gates'
               gradients, i.e. the whole backpropagation through time), so it is timed as the
               marginal cost: grad w.r.t. (input + parameters) minus grad w.r.t. the input, the
               two run alternately and the median of the per-pair differences taken.
  update       torch.optim.SGD(layer parameters, lr 1e-3, momentum 0.9).step() after one
               warm-up step (which creates the momentum buffers), so each timed step is
               v <- 0.9 v + g, w <- w - 1e-3 v per tensor (PyTorch 1.13's CPU default, no
               foreach), with the Optimizer's own Python overhead. Tied linear: bias only.
  select       fwd is x[:, 0].clone(): PyTorch's x[:, 0] is a view and moves no data, while wb
               copies the row, so the copy is timed; bwd-data is select's backward (zeros of
               the input's shape, one row copied), as autograd runs it. Likewise concat's
               bwd-data clones the views torch.cat's backward returns.

Besides the ops of resnet50, bert-base and lm (conv2d, linear (tied too), matmul, batchnorm,
layernorm, relu/gelu/sigmoid/tanh/silu/leakyrelu, dropout, maxpool/avgpool/globalavgpool,
softmax, add, embedding (tied, frozen), lstm, select), it covers concat, normalize,
instancenorm, lrn, upsample and pad (the other zoo models).

Each run is timed with time.perf_counter() around it (CPU ops run synchronously), the garbage
collector off, after warm-up (--warmup runs and at least 50 ms); runs repeat until --reps runs
or --budget seconds (at least --min-reps runs); the median is compared with wb's median_s
(--stat min: the fastest run with wb's min_s; --stat p10: the 10th percentile with wb's p10_s,
a statistic that does not fall with the number of runs, as the fastest of them does). --rounds R times the rows in R interleaved
rounds (each row gets 1/R of the budget and runs per round, and its runs are pooled), as wb
profiles its layers, so that the machine drifting over the minutes the rows take falls on every
row alike; --self-check times every row twice, all of them once and then all again, and prints
the share of PyTorch's own times that agree within the tolerance: what two programs timed one
after the other can reach on this machine now.

Two programs timed in separate sittings minutes apart compare the machine's speed between the
sittings as much as the programs. --save-runs FILE times one sitting's rows and writes PyTorch's
runs without comparing; a last run with --load-runs FILE ... (each sitting's file) and every
sitting's wb profiles (--profile, several per model) takes each row's fastest over all the
sittings for both programs (--stat p10: the lowest of each sitting's 10th percentiles, for
both), and --self-check then compares each program's first half of the
sittings with its second. make torch-check runs it so: wb and PyTorch take turns. PyTorch allocates its outputs on every run (wb
reuses its buffers); the allocation is timed, but by default (--malloc keep) glibc keeps freed
memory, so a run does not fault its pages in again: on this VM a fresh page costs ~20 µs, which
made a 400 MB add 60 times slower and the LSTM's backward 8 times slower (see
reexec_for_cpu), and it first faults in --prefault-mb of heap. The script re-runs itself once to
set that, with /usr/bin/python3 where the interpreter has no torch.

--call-cost also times each op and pass once more on the smallest shape of its kind (tiny_key:
dims of 1, one channel, a 1×1 window, batch 2; an LSTM keeps its time steps), which is PyTorch's fixed cost of the call: Python,
the dispatcher, autograd's bookkeeping, the allocator, what wb's kernels never run. It prints the
share of passes within the tolerance of wb's time plus that cost beside the plain share: how much
of the miss is PyTorch's per-call overhead and how much the kernels. The plain share is the score.
It also prints the most a profile of kernels alone can score: the share of passes whose cost per
call is within the tolerance of PyTorch's time. Were wb's every kernel exactly PyTorch's, its time
would be PyTorch's less that cost, outside the tolerance wherever the cost is more than it.

Rows sharing another row's measurement (shared_with) reuse the timing of that key and are
reported with it; every other measured row that cannot be reproduced is counted and listed as
skipped with the reason. The summary per model gives the share of layer passes whose wb time is
within ±--tolerance (15%) of PyTorch's (the issue-18 target: >= 85% for resnet50, bert-base and
lm), over distinct measurements and over all layer passes, by op and by pass, and the worst rows.
--csv-out writes one row per compared wb row. --dry-run classifies the rows without torch.

    wb profile lm --pass fwd,bwd,update --out lm.csv
    python3 scripts/torch_reference.py --device cpu --profile lm.csv --csv-out lm-torch.csv
"""
import argparse
import csv
import gc
import json
import math
import os
import re
import statistics
import sys
import time

from debian_python import rerun_or_exit

torch = None  # imported by main() once the CPU threads are in the environment (see load_torch)
DTYPES = {}


def load_torch():
    """Imports torch (after OMP/OpenBLAS thread settings, which are read at load time). Where
    this interpreter has no torch but Debian's /usr/bin/python3 (python3-torch) has, re-runs
    the script with that."""
    global torch, DTYPES
    try:
        import torch as t
    except ImportError:
        rerun_or_exit("torch_reference", "torch", "python3-torch")
    torch = t
    DTYPES = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


CONV = re.compile(r"conv2d in=\[(\d+)×(\d+)×(\d+)\] out=(\d+) k=(\d+)x(\d+) s=(\d+) p=(\d+)(?:x(\d+))? d=(\d+) g=(\d+) bias=(\w+)")
LINEAR = re.compile(r"linear in=\[([\d×]+)\] out=(\d+) bias=(\w+)")
ELEMENTWISE = re.compile(r"(batchnorm|relu|sigmoid|tanh|silu|dropout|gelu|leakyrelu|layernorm) shape=\[([\d×]+)\]$")
POOL = re.compile(r"(maxpool|avgpool|globalavgpool) in=\[(\d+)×(\d+)×(\d+)\] k=(\d+) s=(\d+) p=(\d+)")
SOFTMAX = re.compile(r"softmax shape=\[([\d×]+)\]")
ADD = re.compile(r"add n=(\d+) shape=\[([\d×]+)\]")
MATMUL = re.compile(r"matmul a=\[([\d×]+)\] b=\[([\d×]+)\] transB=(\w+)")


# How time_cuda times (--per-call sets it False): a CUDA graph of GRAPH_CALLS calls replayed, so
# that PyTorch's Python dispatch, a few µs to tens of µs a call on the host, is out of the time
# and the kernels run back to back as a training step's do (and as wb's runs do); autograd's
# backward calls GRAPH_CALLS at a time back to back; else each call between two events, host
# gaps included.
USE_GRAPHS = True
GRAPH_CALLS = 20
HOW = {"graph": 0, "back to back": 0, "per-call": 0}


def median_cuda(run, reps, calls):
    """The median over reps of run()'s time between two CUDA events, divided by the calls of fn
    each run makes, in seconds."""
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        run()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3 / calls)
    return statistics.median(times)


def time_cuda(fn, reps=50, warmup=10, graph=True):
    """The median time of one call of fn. graph=False for a call that runs autograd's backward,
    which a CUDA graph capture did not take on PyTorch 2.11 (and a failed capture left its RNG
    unusable): those are timed GRAPH_CALLS calls at a time, back to back between two events, so
    that the host's dispatch overlaps the kernels wherever they take longer than it."""
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()

    def calls():
        for _ in range(GRAPH_CALLS):
            fn()

    if USE_GRAPHS and not graph:
        HOW["back to back"] += 1
        return median_cuda(calls, max(5, reps // 5), GRAPH_CALLS)
    if USE_GRAPHS:
        try:
            side = torch.cuda.Stream()
            side.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(side):
                for _ in range(3):
                    fn()
            torch.cuda.current_stream().wait_stream(side)
            torch.cuda.synchronize()
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                calls()
            g.replay()
            torch.cuda.synchronize()
            t = median_cuda(g.replay, max(5, reps // 5), GRAPH_CALLS)
            del g
            HOW["graph"] += 1
            return t
        except Exception as e:  # an op that cannot be captured: timed call by call
            torch.cuda.synchronize()
            if HOW["per-call"] < 3:
                print(f"  (CUDA graph capture failed, timed per call: {type(e).__name__}: {str(e)[:120]})")
    HOW["per-call"] += 1
    return median_cuda(fn, reps, 1)


def conv_pass(m, batch, dtype, pas):
    cin, h, w, cout, kh, kw, s, ph, pw, d, g, bias = m.groups()
    cin, h, w, cout, kh, kw, s, d, g = map(int, (cin, h, w, cout, kh, kw, s, d, g))
    ph = int(ph)
    pw = int(pw) if pw else ph
    conv = torch.nn.Conv2d(cin, cout, (kh, kw), stride=s, padding=(ph, pw), dilation=d, groups=g,
                           bias=bias == "true").cuda().to(dtype)
    x = torch.randn(batch, cin, h, w, device="cuda", dtype=dtype, requires_grad=(pas == "bwd-data"))
    y = conv(x)
    dy = torch.randn_like(y)
    if pas == "fwd":
        return time_cuda(lambda: conv(x))
    if pas == "bwd-data":
        return time_cuda(lambda: torch.nn.grad.conv2d_input(x.shape, conv.weight, dy, stride=s, padding=(ph, pw), dilation=d, groups=g))
    if pas == "bwd-weights":
        # with a bias, its gradient too (dy summed over N, H and W), as wb's row times it
        if conv.bias is not None:
            return time_cuda(lambda: (torch.nn.grad.conv2d_weight(x, conv.weight.shape, dy, stride=s, padding=(ph, pw), dilation=d, groups=g),
                                      dy.sum((0, 2, 3))))
        return time_cuda(lambda: torch.nn.grad.conv2d_weight(x, conv.weight.shape, dy, stride=s, padding=(ph, pw), dilation=d, groups=g))
    return None


def linear_pass(m, batch, dtype, pas):
    dims = [int(v) for v in m.group(1).split("×")]
    k, n = dims[-1], int(m.group(2))
    rows = batch
    for v in dims[:-1]:
        rows *= v
    x = torch.randn(rows, k, device="cuda", dtype=dtype)
    w = torch.randn(n, k, device="cuda", dtype=dtype)
    dy = torch.randn(rows, n, device="cuda", dtype=dtype)
    # the layer's bias, as wb's rows time it: added in the forward (addmm),
    # its gradient summed in the weights' backward
    bias = m.group(3) == "true"
    b = torch.randn(n, device="cuda", dtype=dtype)
    if pas == "fwd":
        if bias:
            return time_cuda(lambda: torch.nn.functional.linear(x, w, b))
        return time_cuda(lambda: x @ w.t())
    if pas == "bwd-data":
        return time_cuda(lambda: dy @ w)
    if pas == "bwd-weights":
        if bias:
            return time_cuda(lambda: (dy.t() @ x, dy.sum(0)))
        return time_cuda(lambda: dy.t() @ x)
    return None


def dims(text):
    return [int(v) for v in text.split("×")]


def nchw(batch, shape):
    """wb's cuDNN tensor of a per-sample shape: [C], [C, H], [C, H, W]; more fold into W."""
    d = [batch, 1, 1, 1]
    for i, v in enumerate(shape):
        d[min(i + 1, 3)] *= v
    return d


def backward_of(fn, x, params=()):
    """Times the backward pass of fn at x: the gradient of x, and of params with it (a norm's
    weight and bias, whose gradients wb's bwd-data rows compute with the input's, as the CPU
    path's cpu_norm takes them; without them autograd would skip their kernel)."""
    x = x.detach().requires_grad_(True)
    y = fn(x)
    dy = torch.randn_like(y)
    wrt = [x] + list(params)
    return time_cuda(lambda: torch.autograd.grad(y, wrt, dy, retain_graph=True), graph=False)


def elementwise_pass(m, batch, dtype, pas):
    op, shape = m.group(1), dims(m.group(2))
    x = torch.randn(*nchw(batch, shape), device="cuda", dtype=dtype)
    params = []
    if op == "batchnorm":
        # the module a model has for the shape, cast to the precision as the model is (PyTorch
        # runs cuDNN's batch norm only for fp32, or fp16 input with fp32 weights, over three
        # dimensions or more: a bf16 or fp16 model's, and BatchNorm1d over [N, C], run its own)
        if len(shape) == 3:
            fn, x = torch.nn.BatchNorm2d(shape[0]), torch.randn(batch, *shape, device="cuda", dtype=dtype)
        else:
            fn = torch.nn.BatchNorm1d(shape[0])
            x = torch.randn(batch, shape[0], *([math.prod(shape[1:])] if len(shape) > 1 else []), device="cuda", dtype=dtype)
        fn = fn.cuda().to(dtype).train()
        params = list(fn.parameters())
    elif op == "layernorm":
        x = torch.randn(batch, *shape, device="cuda", dtype=dtype)
        fn = torch.nn.LayerNorm(shape[-1]).cuda().to(dtype)
        params = list(fn.parameters())
    else:
        fn = {"relu": torch.relu, "sigmoid": torch.sigmoid, "tanh": torch.tanh, "silu": torch.nn.functional.silu,
              "dropout": lambda t: torch.nn.functional.dropout(t, 0.1, training=True),
              "gelu": lambda t: torch.nn.functional.gelu(t, approximate="tanh"),
              "leakyrelu": torch.nn.functional.leaky_relu}[op]
    if pas == "fwd":
        return time_cuda(lambda: fn(x))
    if pas == "bwd-data":
        return backward_of(fn, x, params)
    return None


def unary_pass(fn, x, pas):
    """A layer of one input: fwd times fn(x), bwd-data its backward (backward_of); other
    passes are not timed here (None)."""
    if pas == "fwd":
        return time_cuda(lambda: fn(x))
    if pas == "bwd-data":
        return backward_of(fn, x)
    return None


def pool_pass(m, batch, dtype, pas):
    op = m.group(1)
    c, h, w, k, s, p = map(int, m.groups()[1:])
    x = torch.randn(batch, c, h, w, device="cuda", dtype=dtype)
    if op == "maxpool":
        fn = torch.nn.MaxPool2d(k, s, p)
    elif op == "avgpool":
        fn = torch.nn.AvgPool2d(k, s, p, count_include_pad=True)
    else:
        fn = torch.nn.AdaptiveAvgPool2d(1)
    return unary_pass(fn, x, pas)


def softmax_pass(m, batch, dtype, pas):
    shape = dims(m.group(1))
    x = torch.randn(batch, *shape, device="cuda", dtype=dtype)
    fn = lambda t: torch.softmax(t, dim=-1)
    return unary_pass(fn, x, pas)


def add_pass(m, batch, dtype, pas):
    n, shape = int(m.group(1)), dims(m.group(2))
    xs = [torch.randn(batch, *shape, device="cuda", dtype=dtype) for _ in range(n)]
    if pas != "fwd":
        return None

    def add():
        y = xs[0] + xs[1]
        for x in xs[2:]:
            y += x
        return y
    return time_cuda(add)


def matmul_pass(m, batch, dtype, pas):
    a = torch.randn(batch, *dims(m.group(1)), device="cuda", dtype=dtype)
    b = torch.randn(batch, *dims(m.group(2)), device="cuda", dtype=dtype)
    op = (lambda x, y: x @ y.transpose(-1, -2)) if m.group(3) == "true" else (lambda x, y: x @ y)
    c = op(a, b)
    dc = torch.randn_like(c)
    if pas == "fwd":
        return time_cuda(lambda: op(a, b))
    if pas == "bwd-data":
        a.requires_grad_(True)
        b.requires_grad_(True)
        c = op(a, b)
        return time_cuda(lambda: torch.autograd.grad(c, [a, b], dc, retain_graph=True), graph=False)
    return None


def rownorm_pass(m, batch, dtype, pas):
    """instancenorm: nn.InstanceNorm2d (1d below three dimensions) without affine parameters,
    PyTorch's default and wb's; PyTorch runs its own batch-norm kernels for it (no weight and
    bias), wb cuDNN's over [1, N·C, H, W]."""
    op, shape = m.group(1), dims(m.group(2))
    if op != "instancenorm":
        raise Skip(f"{op}: wb's CUDA backend does not run it")
    x = torch.randn(batch, *shape, device="cuda", dtype=dtype)
    fn = (torch.nn.InstanceNorm2d if len(shape) == 3 else torch.nn.InstanceNorm1d)(shape[0]).cuda().to(dtype)
    return unary_pass(fn, x, pas)


def embedding_pass(m, batch, dtype, pas):
    """embedding: F.embedding's gather forward (index_select), and its dense table gradient
    (embedding_dense_backward) for bwd-weights; ids uniform over the vocabulary, as wb's."""
    tokens, vocab, dim, kind = int(m.group(1)), int(m.group(2)), int(m.group(3)), (m.group(4) or "").strip()
    weight = torch.randn(vocab, dim, device="cuda", dtype=dtype)
    ids = torch.randint(vocab, (batch, tokens), device="cuda")
    if pas == "fwd":
        return time_cuda(lambda: torch.nn.functional.embedding(ids, weight))
    if pas == "bwd-weights" and kind != "frozen":
        weight.requires_grad_(True)
        y = torch.nn.functional.embedding(ids, weight)
        dy = torch.randn_like(y)
        return time_cuda(lambda: torch.autograd.grad(y, [weight], dy, retain_graph=True), graph=False)
    return None


def lstm_pass(m, batch, dtype, pas):
    """lstm: nn.LSTM (cuDNN's RNN where PyTorch takes it), time-major [T, N, D] as wb's; fwd in
    training mode (x requires grad), bwd-data the input's gradient alone (autograd then skips the
    weights'), bwd-weights the marginal cost of the weights' gradients (both gradients less the
    input's alone: PyTorch cannot compute them on their own), as the CPU path times it."""
    t, d, hidden, layers = map(int, m.groups())
    lstm = torch.nn.LSTM(d, hidden, layers).cuda().to(dtype)
    x = torch.randn(t, batch, d, device="cuda", dtype=dtype, requires_grad=True)
    if pas == "fwd":
        return time_cuda(lambda: lstm(x))
    y = lstm(x)[0]
    dy = torch.randn_like(y)
    data = time_cuda(lambda: torch.autograd.grad(y, [x], dy, retain_graph=True), graph=False)
    if pas == "bwd-data":
        return data
    if pas == "bwd-weights":
        both = time_cuda(lambda: torch.autograd.grad(y, [x] + list(lstm.parameters()), dy, retain_graph=True), graph=False)
        if both <= data:
            raise Skip(f"PyTorch's marginal cost of the weights' gradients came out {1e3 * (both - data):.4f} ms, not positive")
        return both - data
    return None


def select_pass(m, batch, dtype, pas):
    """select: one token's row, x[:, 0]; wb copies it, so the forward is timed with the copy
    (clone: PyTorch's select is a view), the backward is select_backward (zeros, one row copied)."""
    t, d = int(m.group(1)), int(m.group(2))
    x = torch.randn(batch, t, d, device="cuda", dtype=dtype)
    if pas == "fwd":
        return time_cuda(lambda: x[:, 0].clone())
    if pas == "bwd-data":
        return backward_of(lambda v: v[:, 0], x)
    return None


def concat_pass(m, batch, dtype, pas):
    """concat: torch.cat over channels (flattened where the inputs' planes differ); its
    backward's gradients are views of dy, which wb copies out, so they are cloned and timed."""
    shapes = [dims(t) for t in re.findall(r"\[([\d×]+)\]", m.group(1))]
    xs = [torch.randn(batch, *sh, device="cuda", dtype=dtype) for sh in shapes]
    if all(sh[1:] == shapes[0][1:] for sh in shapes):
        def f(*ts):
            return torch.cat(ts, 1)
    else:
        def f(*ts):
            return torch.cat([t.flatten(1) for t in ts], 1)
    if pas == "fwd":
        return time_cuda(lambda: f(*xs))
    if pas == "bwd-data":
        xs = [x.requires_grad_(True) for x in xs]
        y = f(*xs)
        dy = torch.randn_like(y)
        return time_cuda(lambda: [g.clone() for g in torch.autograd.grad(y, xs, dy, retain_graph=True)], graph=False)
    return None


def upsample_pass(m, batch, dtype, pas):
    c, h, w, f = map(int, m.groups())
    x = torch.randn(batch, c, h, w, device="cuda", dtype=dtype)
    fn = torch.nn.Upsample(scale_factor=f, mode="nearest")
    return unary_pass(fn, x, pas)


def pad_pass(m, batch, dtype, pas):
    c, h, w, left, right, top, bottom = map(int, m.groups())
    x = torch.randn(batch, c, h, w, device="cuda", dtype=dtype)

    def fn(t):
        return torch.nn.functional.pad(t, (left, right, top, bottom))
    return unary_pass(fn, x, pas)


def update_params(key):
    """The parameters of the wb layer of key as PyTorch's module holds them, on the GPU in fp32
    (the master weights wb's update pass steps whatever the profile's precision), or None for a
    layer this script does not build."""
    if m := CPU_CONV.match(key):
        cin, h, w, cout, kh, kw, s, ph, pw, d, g, bias = m.groups()
        mod = torch.nn.Conv2d(int(cin), int(cout), (int(kh), int(kw)), groups=int(g), bias=bias == "true")
    elif m := CPU_LINEAR.match(key):
        mod = torch.nn.Linear(dims(m.group(1))[-1], int(m.group(2)), bias=m.group(3) == "true")
        if m.group(4):  # a tied weight is updated where it is owned
            return [mod.bias.detach().cuda().requires_grad_(True)] if mod.bias is not None else []  # a leaf, as SGD takes
    elif m := CPU_NORM.match(key):
        shape = dims(m.group(2))
        mod = torch.nn.BatchNorm2d(shape[0]) if m.group(1) == "batchnorm" else torch.nn.LayerNorm(shape[-1])
    elif m := CPU_EMBEDDING.match(key):
        if m.group(4):  # tied or frozen: no update of its own
            return []
        mod = torch.nn.Embedding(int(m.group(2)), int(m.group(3)))
    elif m := CPU_LSTM.match(key):
        mod = torch.nn.LSTM(int(m.group(2)), int(m.group(3)), int(m.group(4)))
    else:
        return None
    return [p.detach().cuda().requires_grad_(True) for p in mod.parameters()]


def update_pass(key, fused):
    """update: torch.optim.SGD(momentum=0.9) stepping the layer's fp32 parameters, foreach
    (PyTorch's CUDA default) or fused=True as the profile's versions say wb ran it, after one
    step that makes the momentum buffers, as wb's update rows time it."""
    params = update_params(key)
    if params is None:
        raise Skip(f"update of {key!r}: no module for it in this script")
    if not params:
        raise Skip("update: the layer has no parameters of its own")
    with torch.no_grad():
        for p in params:
            p.grad = torch.randn_like(p)
    opt = torch.optim.SGD(params, lr=0.1, momentum=0.9, **({"fused": True} if fused else {"foreach": True}))
    opt.step()
    return time_cuda(opt.step)


def _cuda_passes(*ps):
    return lambda m: ps


# What the CUDA comparison times, per wb key: (pattern, the pass's timing, the passes PyTorch has).
# Defined after the CPU path's patterns, which it shares for the ops both paths time.
PASSES = None


def cuda_passes():
    global PASSES
    if PASSES is None:
        PASSES = [
            (MATMUL, matmul_pass, _cuda_passes("fwd", "bwd-data")),
            (CONV, conv_pass, _cuda_passes("fwd", "bwd-data", "bwd-weights")),
            (LINEAR, linear_pass, _cuda_passes("fwd", "bwd-data", "bwd-weights")),
            (ELEMENTWISE, elementwise_pass, _cuda_passes("fwd", "bwd-data")),
            (POOL, pool_pass, _cuda_passes("fwd", "bwd-data")),
            (SOFTMAX, softmax_pass, _cuda_passes("fwd", "bwd-data")),
            (ADD, add_pass, _cuda_passes("fwd")),
            (CPU_ROWNORM, rownorm_pass, _cuda_passes("fwd", "bwd-data")),
            (CPU_EMBEDDING, embedding_pass, lambda m: ("fwd",) + (() if m.group(4) == " frozen" else ("bwd-weights",))),
            (CPU_LSTM, lstm_pass, _cuda_passes("fwd", "bwd-data", "bwd-weights")),
            (CPU_SELECT, select_pass, _cuda_passes("fwd", "bwd-data")),
            (CPU_CONCAT, concat_pass, _cuda_passes("fwd", "bwd-data")),
            (CPU_UPSAMPLE, upsample_pass, _cuda_passes("fwd", "bwd-data")),
            (CPU_PAD, pad_pass, _cuda_passes("fwd", "bwd-data")),
        ]
    return PASSES


def cuda_parse(op, key, pas):
    """Which timing reproduces a wb CUDA row: (function, match), the match None for an update
    (update_pass). Raises Skip with the reason where none does. Needs no torch (--dry-run)."""
    if pas == "update":
        if (m := CPU_EMBEDDING.match(key)) and m.group(4):
            raise Skip("update: a tied or frozen table has no update of its own")
        if any(p.match(key) for p in (CPU_CONV, CPU_LINEAR, CPU_NORM, CPU_EMBEDDING, CPU_LSTM)):
            return update_pass, None
        raise Skip(f"update of {op}: no module for it in this script")
    return first_match(cuda_passes(), op, key, pas, "no such pass in PyTorch")


def update_fused(path):
    """Whether the profile's update rows ran torch.optim.SGD(fused=True): its sidecar's
    versions.update (foreach, PyTorch's default, where it does not say)."""
    try:
        with open(path + ".json") as f:
            return "fused=True" in ((json.load(f).get("versions") or {}).get("update") or "")
    except (OSError, ValueError, AttributeError):
        return False


def cuda_time(r, fused):
    """PyTorch's time of one call of a wb CUDA row's pass, or raises Skip saying why there is none."""
    time_pass, m = cuda_parse(r["op"], r["key"], r["pass"])
    try:
        if time_pass is update_pass:
            t = update_pass(r["key"], fused)
        else:
            t = time_pass(m, int(r["batch"]), DTYPES[r["precision"]], r["pass"])
    except (RuntimeError, MemoryError, ValueError) as e:
        torch.cuda.empty_cache()
        raise Skip(f"PyTorch failed: {type(e).__name__}: {str(e).splitlines()[0][:200]}")
    if not t or t <= 0:
        raise Skip(f"{r['op']} {r['pass']}: not timed")
    return t


def compare_profile(path):
    rows = list(csv.DictReader(open(path)))
    ratios, wb_sum, torch_sum = [], 0.0, 0.0
    fused = update_fused(path)
    print(f"\n{path}")
    print(f"{'layer':28} {'pass':12} {'batch':>5} {'wb ms':>9} {'torch ms':>9} {'wb/torch':>8}  wb algo")
    by_op, skipped, shared = {}, [], 0
    for r in rows:
        if r["status"] != "ok":
            continue
        if r["shared_with"]:
            shared += 1
            continue
        torch.backends.cuda.matmul.allow_tf32 = r["precision"] == "tf32"
        torch.backends.cudnn.allow_tf32 = r["precision"] == "tf32"
        batch, pas = int(r["batch"]), r["pass"]
        try:
            t = cuda_time(r, fused)
        except Skip as e:
            skipped.append((r, str(e)))
            continue
        wb = float(r["median_s"])
        ratios.append(wb / t)
        by_op.setdefault(r["op"], []).append(wb / t)
        wb_sum += wb
        torch_sum += t
        print(f"{r['layer'][:28]:28} {pas:12} {batch:5d} {1e3*wb:9.3f} {1e3*t:9.3f} {wb/t:8.3f}  {r.get('algo', '')}")
    for op, rs in sorted(by_op.items()):
        print(f"  {op:14} {len(rs):4d} layer passes, median wb/torch {statistics.median(rs):.3f}")
    if ratios:
        dev = statistics.median(abs(x - 1) for x in ratios)
        print(f"{len(ratios)} layer passes: median |wb/torch - 1| = {100*dev:.1f}% (target ≤ 10%); "
              f"summed wb {1e3*wb_sum:.1f} ms vs torch {1e3*torch_sum:.1f} ms")
    print(f"{len(ratios)} measured rows compared, {shared} sharing another row's measurement, "
          f"{len(skipped)} skipped (measured by wb, not timed with PyTorch)")
    for r, why in skipped:
        print(f"  skipped {r['layer'][:28]:28} {r['op']:13} {r['pass']:11} b{r['batch']:<4} {why}")


# ---------------------------------------------------------------------------------------------
# CPU: wb's CPU profiles against PyTorch on this machine's CPU (--device cpu).

CPU_TOLERANCE = 0.15
CPU_TARGET = 0.85

CPU_CONV = re.compile(r"conv2d in=\[(\d+)×(\d+)×(\d+)\] out=(\d+) k=(\d+)x(\d+) s=(\d+) p=(\d+)(?:x(\d+))? d=(\d+) g=(\d+) "
                      r"bias=(true|false)$")
CPU_LINEAR = re.compile(r"linear in=\[([\d×]+)\] out=(\d+) bias=(true|false)( tied)?$")
CPU_MATMUL = re.compile(r"matmul a=\[([\d×]+)\] b=\[([\d×]+)\] transB=(true|false)$")
CPU_ACT = re.compile(r"(relu|sigmoid|tanh|silu|gelu|leakyrelu|dropout) shape=\[([\d×]+)\]$")
CPU_NORM = re.compile(r"(batchnorm|layernorm) shape=\[([\d×]+)\]$")
CPU_POOL = re.compile(r"(maxpool|avgpool|globalavgpool) in=\[(\d+)×(\d+)×(\d+)\] k=(\d+) s=(\d+) p=(\d+)$")
CPU_SOFTMAX = re.compile(r"softmax shape=\[([\d×]+)\](?: scaled=(true|false))?(?: causal=(true|false))?$")
CPU_ADD = re.compile(r"add n=(\d+) shape=\[([\d×]+)\]$")
CPU_EMBEDDING = re.compile(r"embedding tokens=(\d+) vocab=(\d+) dim=(\d+)( tied| frozen)?$")
CPU_LSTM = re.compile(r"lstm in=\[(\d+)×(\d+)\] hidden=(\d+) layers=(\d+)$")
CPU_SELECT = re.compile(r"select in=\[(\d+)×(\d+)\]$")
CPU_CONCAT = re.compile(r"concat in=(\[[\d×]+\](?:,\[[\d×]+\])+)$")
CPU_ROWNORM = re.compile(r"(normalize|instancenorm) shape=\[([\d×]+)\]$")
CPU_LRN = re.compile(r"lrn shape=\[(\d+)×(\d+)×(\d+)\] size=(\d+)$")
CPU_UPSAMPLE = re.compile(r"upsample in=\[(\d+)×(\d+)×(\d+)\] f=(\d+)$")
CPU_PAD = re.compile(r"pad in=\[(\d+)×(\d+)×(\d+)\] l=(\d+) r=(\d+) t=(\d+) b=(\d+)$")

CPU_PASSES = ("fwd", "bwd-data", "bwd-weights", "update")


class Skip(Exception):
    """A wb row this script cannot reproduce in PyTorch; the message is the reason."""


class Gate:
    """Holds each measurement back while the machine runs slower than it can, as wb profile's gate
    does (profiler.Gate): on a shared VM a neighbour on the same cores halves compute-bound work for
    stretches of up to seconds. The probe is a 256 x 256 fp32 product on the threads set (the
    fastest of three runs); while it takes more than 1.6 x the fastest probe seen, wait (20 ms
    pauses), at most 2 s, then measure anyway (counted contended)."""

    def __init__(self, torch, threshold=1.6, budget=2.0, pause=0.02):
        a, b, self.out = torch.randn(256, 256), torch.randn(256, 256), torch.empty(256, 256)
        self.run = lambda: torch.mm(a, b, out=self.out)
        self.threshold, self.budget, self.pause = threshold, budget, pause
        self.best = None
        self.probes = self.held = self.contended = 0
        self.waited = 0.0

    def probe(self):
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            self.run()
            best = min(best, time.perf_counter() - t0)
        self.probes += 1
        self.best = best if self.best is None else min(self.best, best)
        return best

    def wait(self):
        if self.best is None:
            for i in range(10):
                if i:
                    time.sleep(self.pause)
                self.probe()
        waited = 0.0
        while True:
            d = self.probe()
            if d <= self.threshold * self.best:
                break
            if waited >= self.budget:
                self.contended += 1
                break
            if waited == 0:
                self.held += 1
            time.sleep(self.pause)
            waited += self.pause
        self.waited += waited

    def summary(self):
        if self.best is None:
            return "gate: nothing timed here"
        return (f"gate: {self.probes} probes (fastest {self.best * 1e6:.0f} us); {self.held} measurements waited "
                f"{self.waited:.1f} s in all for the machine, {self.contended} went ahead after {self.budget:g} s "
                "with it still slow")


GATE = None  # the Gate of a CPU comparison (--gate), set in main


def collect_runs(fn, warmup, budget, max_reps, min_reps):
    """Times fn with time.perf_counter() around each run, after warm-up (warmup runs, and at
    least 50 ms of them unless warmup is 0); runs until max_reps runs, or budget seconds once
    min_reps ran. Returns the runs' times in seconds."""
    gc_on = gc.isenabled()
    gc.disable()
    try:
        t0, n = time.perf_counter(), 0
        while n < warmup or (warmup > 0 and time.perf_counter() - t0 < 0.05 and n < 100):
            fn()
            n += 1
        if GATE is not None:
            GATE.wait()
        times, spent = [], 0.0
        while len(times) < max_reps and (spent < budget or len(times) < min_reps):
            a = time.perf_counter()
            fn()
            b = time.perf_counter()
            times.append(b - a)
            spent += b - a
    finally:
        if gc_on:
            gc.enable()
    return times


def collect_differences(fn_more, fn_less, warmup, budget, max_reps, min_reps):
    """The runs of fn_more and fn_less, run alternately (see collect_runs): two lists of times."""
    gc_on = gc.isenabled()
    gc.disable()
    try:
        t0, n = time.perf_counter(), 0
        while n < warmup or (warmup > 0 and time.perf_counter() - t0 < 0.05 and n < 100):
            fn_more()
            fn_less()
            n += 1
        if GATE is not None:
            GATE.wait()
        more, less, spent = [], [], 0.0
        while len(more) < max_reps and (spent < budget or len(more) < min_reps):
            a = time.perf_counter()
            fn_more()
            b = time.perf_counter()
            fn_less()
            c = time.perf_counter()
            more.append(b - a)
            less.append(c - b)
            spent += c - a
    finally:
        if gc_on:
            gc.enable()
    return more, less


class Sittings(list):
    """A case's runs kept apart by sitting (pool_runs): one entry a sitting that timed it, each a
    list of times or a marginal cost's (more, less) pair."""


def quantile(v, q):
    """The q-quantile of v by linear interpolation between order statistics (R's type 7, numpy's
    default, as wb's profiles compute p10_s)."""
    v = sorted(v)
    h = (len(v) - 1) * q
    lo = int(h)
    return v[lo] + (h - lo) * (v[min(lo + 1, len(v) - 1)] - v[lo])


def summarize(times, stat):
    """The median (stat "min": the fastest; "p10": the 10th percentile) of a case's runs: a list of
    times, or for the marginal cost of one closure over another a pair of lists (the median of the
    per-pair differences, or the difference of the fastest runs or of the 10th percentiles).
    Runs of several sittings (Sittings) are pooled for the median and the fastest; the 10th
    percentile is each sitting's, the lowest of them taken, as for wb's p10_s: a statistic of a
    sitting that does not fall with the number of runs in it, as the fastest of all does (25 a
    sitting for PyTorch, hundreds to thousands for wb), and the least disturbed sitting's."""
    if isinstance(times, Sittings):
        if stat == "p10":
            return min(summarize(s, stat) for s in times)
        if all(isinstance(s, tuple) for s in times):
            return summarize((sum((s[0] for s in times), []), sum((s[1] for s in times), [])), stat)
        return summarize(sum(times, []), stat)
    if isinstance(times, tuple):
        more, less = times
        if stat == "min":
            return min(more) - min(less)
        if stat == "p10":
            return quantile(more, 0.1) - quantile(less, 0.1)
        return statistics.median(m - l for m, l in zip(more, less))
    if stat == "min":
        return min(times)
    if stat == "p10":
        return quantile(times, 0.1)
    return statistics.median(times)


def run_count(runs):
    """How many runs a case's runs hold (of the first closure, for a marginal cost)."""
    if isinstance(runs, Sittings):
        return sum(run_count(s) for s in runs)
    return len(runs[0] if isinstance(runs, tuple) else runs)


def cpu_dims(text):
    return [int(v) for v in text.split("×")]


def cpu_parse(op, key, pas, precision):
    """Which builder reproduces a wb row: (builder, match). Raises Skip with the reason when
    none does. Needs no torch (--dry-run)."""
    if precision not in ("fp32", "tf32"):
        raise Skip(f"precision {precision}: the CPU reference runs fp32 (wb's CPU backend too)")
    if pas not in CPU_PASSES:
        raise Skip(f"unknown pass {pas!r}")
    return first_match(CPU_BUILDERS, op, key, pas, "no such pass in PyTorch (wb measured work PyTorch does not do here)")


def first_match(table, op, key, pas, no_pass):
    """The (builder, match) of the first of table's (pattern, builder, passes) whose pattern matches
    key, where passes(match) holds pas; else Skip, no_pass saying why of a pass the op lacks."""
    for pattern, builder, passes in table:
        m = pattern.match(key)
        if m:
            if pas not in passes(m):
                raise Skip(f"{op} {pas}: {no_pass}")
            return builder, m
    raise Skip(f"op {op}: no PyTorch equivalent in this script for {key!r}")


def grad_fn(y, wrt):
    """A closure computing the gradients of wrt alone for the output y (dy random)."""
    dy = torch.randn_like(y)
    return lambda: torch.autograd.grad(y, wrt, dy, retain_graph=True)


def sgd_step(params):
    """SGD with momentum over params, as a PyTorch training loop steps it; one step taken."""
    params = list(params)
    if not params:
        raise Skip("update: the layer has no parameters of its own")
    with torch.no_grad():
        for p in params:
            p.grad = torch.randn_like(p)
    opt = torch.optim.SGD(params, lr=1e-3, momentum=0.9)
    opt.step()  # creates the momentum buffers: the timed steps are v <- 0.9v + g, w <- w - lr v
    return opt.step


def autograd_case(pas, f, xs, data, weights, update=None):
    """The timed closure of pass pas of y = f(*xs): data are the tensors whose gradients make
    backward-data, weights backward-weights'; update the parameters SGD steps (weights)."""
    if pas == "fwd":
        return lambda: f(*xs)
    if pas == "update":
        return sgd_step(weights if update is None else update)
    wrt = data if pas == "bwd-data" else weights
    if not wrt:
        raise Skip(f"{pas}: no such gradient in PyTorch for this layer")
    return grad_fn(f(*xs), wrt)


def randn(*shape, grad=False):
    return torch.randn(*shape, dtype=torch.float32, requires_grad=grad)


def cpu_conv(m, batch, pas):
    cin, h, w, cout, kh, kw, s, ph, pw, d, g, bias = m.groups()
    cin, h, w, cout, kh, kw, s, d, g = map(int, (cin, h, w, cout, kh, kw, s, d, g))
    ph = int(ph)
    pw = int(pw) if pw else ph
    conv = torch.nn.Conv2d(cin, cout, (kh, kw), stride=s, padding=(ph, pw), dilation=d, groups=g, bias=bias == "true")
    x = randn(batch, cin, h, w, grad=True)
    return autograd_case(pas, conv, [x], [x], list(conv.parameters()))


def cpu_linear(m, batch, pas):
    shape, n, bias, tied = cpu_dims(m.group(1)), int(m.group(2)), m.group(3) == "true", bool(m.group(4))
    lin = torch.nn.Linear(shape[-1], n, bias=bias)
    x = randn(batch, *shape, grad=True)
    update = ([lin.bias] if bias else []) if tied else None  # a tied weight is updated where it is owned
    return autograd_case(pas, lin, [x], [x], list(lin.parameters()), update)


def cpu_matmul(m, batch, pas):
    a = randn(batch, *cpu_dims(m.group(1)), grad=True)
    b = randn(batch, *cpu_dims(m.group(2)), grad=True)
    if m.group(3) == "true":
        def f(x, y):
            return x @ y.transpose(-1, -2)
    else:
        def f(x, y):
            return x @ y
    return autograd_case(pas, f, [a, b], [a, b], [])


def cpu_activation(m, batch, pas):
    op, shape = m.group(1), cpu_dims(m.group(2))
    F = torch.nn.functional
    f = {"relu": torch.relu, "sigmoid": torch.sigmoid, "tanh": torch.tanh, "silu": F.silu,
         "gelu": lambda t: F.gelu(t, approximate="tanh"), "leakyrelu": lambda t: F.leaky_relu(t, 0.2),
         "dropout": lambda t: F.dropout(t, 0.1, training=True)}[op]
    x = randn(batch, *shape, grad=True)
    return autograd_case(pas, f, [x], [x], [])


def cpu_norm(m, batch, pas):
    op, shape = m.group(1), cpu_dims(m.group(2))
    if op == "batchnorm":
        c = shape[0]
        if len(shape) == 3:
            mod, x = torch.nn.BatchNorm2d(c), randn(batch, *shape, grad=True)
        elif len(shape) <= 2:
            mod, x = torch.nn.BatchNorm1d(c), randn(batch, *shape, grad=True)
        else:
            mod, x = torch.nn.BatchNorm1d(c), randn(batch, c, math.prod(shape[1:]), grad=True)
        mod.train()
    else:
        mod, x = torch.nn.LayerNorm(shape[-1]), randn(batch, *shape, grad=True)
    params = list(mod.parameters())
    # wb computes the parameters' gradients in backward-data; it has no backward-weights row.
    return autograd_case(pas, mod, [x], [x] + params, [], update=params)


def cpu_pool(m, batch, pas):
    op = m.group(1)
    c, h, w, k, s, p = map(int, m.groups()[1:])
    if op == "maxpool":
        mod = torch.nn.MaxPool2d(k, s, p)
    elif op == "avgpool":
        mod = torch.nn.AvgPool2d(k, s, p, count_include_pad=True)
    else:
        mod = torch.nn.AdaptiveAvgPool2d(1)
    x = randn(batch, c, h, w, grad=True)
    return autograd_case(pas, mod, [x], [x], [])


def cpu_softmax(m, batch, pas):
    shape = cpu_dims(m.group(1))
    scaled, causal = m.group(2) == "true", m.group(3) == "true"
    cols = shape[-1]
    rows = shape[-2] if len(shape) >= 2 else 1
    mask = None
    if causal:  # wb keeps the first (row mod cols) + 1 columns of each row
        i = torch.arange(rows).unsqueeze(1) % cols
        mask = torch.arange(cols).unsqueeze(0) > i

    def f(t):
        if scaled:
            t = t * 0.125
        if mask is not None:
            t = t.masked_fill(mask, float("-inf"))
        return torch.softmax(t, dim=-1)
    x = randn(batch, *shape, grad=True)
    return autograd_case(pas, f, [x], [x], [])


def cpu_add(m, batch, pas):
    n, shape = int(m.group(1)), cpu_dims(m.group(2))
    xs = [randn(batch, *shape, grad=True) for _ in range(n)]

    def add(*ts):
        y = ts[0] + ts[1]
        for t in ts[2:]:
            y = y + t
        return y
    return autograd_case(pas, add, xs, [], [])


def cpu_embedding(m, batch, pas):
    tokens, vocab, dim, kind = int(m.group(1)), int(m.group(2)), int(m.group(3)), (m.group(4) or "").strip()
    emb = torch.nn.Embedding(vocab, dim)
    ids = torch.randint(vocab, (batch, tokens), dtype=torch.int64)
    weights = [] if kind == "frozen" else [emb.weight]
    update = [] if kind else None  # a tied or frozen table has no update of its own
    return autograd_case(pas, emb, [ids], [], weights, update)


def cpu_lstm(m, batch, pas):
    t, d, hidden, layers = map(int, m.groups())
    lstm = torch.nn.LSTM(d, hidden, layers)
    params = list(lstm.parameters())
    x = randn(t, batch, d, grad=True)  # time-major, nn.LSTM's default

    def f(inp):
        return lstm(inp)[0]
    if pas != "bwd-weights":
        return autograd_case(pas, f, [x], [x], params)
    y = f(x)
    dy = torch.randn_like(y)
    both = lambda: torch.autograd.grad(y, [x] + params, dy, retain_graph=True)
    data = lambda: torch.autograd.grad(y, [x], dy, retain_graph=True)
    return ("difference", both, data)


def cpu_select(m, batch, pas):
    t, d = int(m.group(1)), int(m.group(2))
    x = randn(batch, t, d, grad=True)
    return autograd_case(pas, lambda v: v[:, 0].clone(), [x], [x], [])


def cpu_concat(m, batch, pas):
    shapes = [cpu_dims(t) for t in re.findall(r"\[([\d×]+)\]", m.group(1))]
    xs = [randn(batch, *sh, grad=True) for sh in shapes]
    if all(sh[1:] == shapes[0][1:] for sh in shapes):  # channels: torch.cat(dim=1), as models run it
        def f(*ts):
            return torch.cat(ts, 1)
    else:
        def f(*ts):
            return torch.cat([t.flatten(1) for t in ts], 1)
    if pas != "bwd-data":
        return autograd_case(pas, f, xs, xs, [])
    y = f(*xs)
    dy = torch.randn_like(y)
    # cat's backward gives narrow views of dy and moves no data; wb copies each part, so
    # the copies (clone) are timed with it, as for select's forward.
    return lambda: [g.clone() for g in torch.autograd.grad(y, xs, dy, retain_graph=True)]


def cpu_rownorm(m, batch, pas):
    op, shape = m.group(1), cpu_dims(m.group(2))
    x = randn(batch, *shape, grad=True)
    if op == "normalize":
        f = lambda t: torch.nn.functional.normalize(t, dim=-1)
    else:
        f = torch.nn.InstanceNorm2d(shape[0]) if len(shape) == 3 else torch.nn.InstanceNorm1d(shape[0])
    return autograd_case(pas, f, [x], [x], [])


def cpu_lrn(m, batch, pas):
    c, h, w, size = map(int, m.groups())
    x = randn(batch, c, h, w, grad=True)
    return autograd_case(pas, torch.nn.LocalResponseNorm(size, alpha=1e-4, beta=0.75, k=1.0), [x], [x], [])


def cpu_upsample(m, batch, pas):
    c, h, w, f = map(int, m.groups())
    x = randn(batch, c, h, w, grad=True)
    return autograd_case(pas, torch.nn.Upsample(scale_factor=f, mode="nearest"), [x], [x], [])


def cpu_pad(m, batch, pas):
    c, h, w, left, right, top, bottom = map(int, m.groups())
    x = randn(batch, c, h, w, grad=True)
    return autograd_case(pas, lambda t: torch.nn.functional.pad(t, (left, right, top, bottom)), [x], [x], [])


def _passes(*ps):
    return lambda m: ps


CPU_BUILDERS = [
    (CPU_CONV, cpu_conv, _passes(*CPU_PASSES)),
    (CPU_LINEAR, cpu_linear, _passes(*CPU_PASSES)),
    (CPU_MATMUL, cpu_matmul, _passes("fwd", "bwd-data")),
    (CPU_ACT, cpu_activation, _passes("fwd", "bwd-data")),
    (CPU_NORM, cpu_norm, _passes("fwd", "bwd-data", "update")),
    (CPU_POOL, cpu_pool, _passes("fwd", "bwd-data")),
    (CPU_SOFTMAX, cpu_softmax, _passes("fwd", "bwd-data")),
    (CPU_ADD, cpu_add, _passes("fwd")),
    (CPU_EMBEDDING, cpu_embedding, lambda m: ("fwd",) + (() if m.group(4) == " frozen" else ("bwd-weights",))
     + (() if m.group(4) else ("update",))),
    (CPU_LSTM, cpu_lstm, _passes(*CPU_PASSES)),
    (CPU_SELECT, cpu_select, _passes("fwd", "bwd-data")),
    (CPU_CONCAT, cpu_concat, _passes("fwd", "bwd-data")),
    (CPU_ROWNORM, cpu_rownorm, _passes("fwd", "bwd-data")),
    (CPU_LRN, cpu_lrn, _passes("fwd", "bwd-data")),
    (CPU_UPSAMPLE, cpu_upsample, _passes("fwd", "bwd-data")),
    (CPU_PAD, cpu_pad, _passes("fwd", "bwd-data")),
]


def profile_threads(path, rows):
    """The threads a CPU profile ran with, as far as it says: its JSON sidecar's "threads" or
    "gomaxprocs" (top level, under "options" or under "versions", where the oneDNN backend
    names its library threads), else "GOMAXPROCS n" in its device column."""
    try:
        with open(path + ".json") as f:
            meta = json.load(f)
        for d in (meta, meta.get("options") or {}, meta.get("versions") or {}):
            for k in ("threads", "num_threads", "gomaxprocs", "GOMAXPROCS"):
                v = d.get(k)
                if isinstance(v, str) and v.isdigit():
                    v = int(v)
                if isinstance(v, int) and v > 0:
                    return v
    except (OSError, ValueError, AttributeError):
        pass
    for r in rows:
        m = re.search(r"GOMAXPROCS (\d+)", r.get("device") or "")
        if m:
            return int(m.group(1))
    return None


OPENBLAS_OPENMP_DIRS = ["/usr/lib/x86_64-linux-gnu/openblas-openmp", "/usr/lib/aarch64-linux-gnu/openblas-openmp"]


def profile_blas_threading(paths):
    """The OpenBLAS threading the profiles ran with (their sidecars' versions.openblas_threading:
    "openmp", "pthreads", ...), the set of those found."""
    found = set()
    for path in paths:
        try:
            with open(path + ".json") as f:
                v = (json.load(f).get("versions") or {}).get("openblas_threading")
            if v:
                found.add(v)
        except (OSError, ValueError, AttributeError):
            pass
    return found


def blas_dir(args, paths):
    """The directory of OpenBLAS's OpenMP build to put first on PyTorch's library path, or None.
    --blas openmp wants it; --blas auto takes it where a profile ran on that build (wb loads it
    before the pthreads build Debian's libblas.so.3 and libopenblas.so.0 point at; with the
    pthreads build a whole training step of bert-base's shape took 1.4–2.2 s on the 2-core VM,
    with the OpenMP build 0.55 s), so that PyTorch runs the same GEMM library as the profile."""
    if args.blas == "system" or (args.blas == "auto" and "openmp" not in profile_blas_threading(paths)):
        return None
    for d in OPENBLAS_OPENMP_DIRS:
        if os.path.exists(os.path.join(d, "libblas.so.3")):
            return d
    if args.blas == "openmp":
        sys.exit("torch_reference: --blas openmp, but OpenBLAS's OpenMP build is not installed "
                 "(Debian/Ubuntu: apt-get install libopenblas0-openmp)")
    print("torch_reference: warning: the profiles ran on OpenBLAS's OpenMP build, which is not installed here; "
          "PyTorch runs the system's", file=sys.stderr)
    return None


def loaded_blas():
    """The OpenBLAS file this process mapped (after torch loaded), or "unknown"."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                if "openblas" in line and ".so" in line:
                    return line.split()[-1]
    except OSError:
        pass
    return "unknown"


def usable_cpus():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def read_profile(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def fmt_ms(s):
    return f"{1e3 * s:10.4f}" if s is not None else f"{'-':>10}"


def within(ratio, tol):
    return abs(ratio - 1) <= tol


def save_runs(path, runs):
    """Writes one sitting's PyTorch runs (time_cases' result) as JSON: a row's runs, a marginal
    cost's pair of runs, or the reason it has none."""
    out = []
    for (key, pas, batch, precision), r in runs.items():
        row = {"key": key, "pass": pas, "batch": batch, "precision": precision}
        if isinstance(r, Skip):
            row["skip"] = str(r)
        elif isinstance(r, tuple):
            row["more"], row["less"] = r
        else:
            row["runs"] = r
        out.append(row)
    with open(path, "w") as f:
        json.dump({"torch": torch.__version__, "cases": out}, f)
    print(f"wrote PyTorch's runs of {len(out)} cases to {path}")


def load_runs(path):
    """Reads a sitting's runs (save_runs) back into time_cases' form."""
    try:
        with open(path) as f:
            doc = json.load(f)
        out = {}
        for row in doc["cases"]:
            ck = (row["key"], row["pass"], int(row["batch"]), row["precision"])
            if "skip" in row:
                out[ck] = Skip(row["skip"])
            elif "more" in row:
                out[ck] = (list(row["more"]), list(row["less"]))
            else:
                out[ck] = list(row["runs"])
        return out
    except (OSError, ValueError, KeyError, TypeError) as e:
        sys.exit(f"torch_reference: --load-runs {path}: {e}")


def pool_runs(sittings):
    """Gathers the runs of each case over sittings (load_runs), kept by sitting (Sittings); a
    case skipped in every sitting keeps the first reason."""
    out = {}
    for runs in sittings:
        for ck, r in runs.items():
            prev = out.get(ck)
            if isinstance(r, Skip):
                if prev is None:
                    out[ck] = r
            elif prev is None or isinstance(prev, Skip):
                out[ck] = Sittings([r])
            else:
                prev.append(r)
    return out


def row_key(r):
    """A profile row's identity across sittings of one model: its layer, shape, pass, batch and
    precision, as the CSV writes them."""
    return (r.get("layer"), r.get("key"), r.get("pass"), r.get("batch"), r.get("precision"))


def merge_profiles(profiles, wb_col):
    """Joins the profiles of one model (several sittings of it, --load-runs) into one: every
    row any of them has, in the order they first appear, measured where any sitting measured
    it, with the fastest wb_col over the sittings that did (the fastest run is the least
    disturbed, whichever sitting it fell in). Returns the joined profiles and, per model of more
    than one sitting, the fastest of each row over the first half of its sittings and over the
    second, for wb against itself."""
    by_model, order = {}, []
    for path, rows in profiles:
        model = next((r.get("model") for r in rows if r.get("model")), os.path.basename(path))
        if model not in by_model:
            by_model[model] = []
            order.append(model)
        by_model[model].append((path, rows))
    merged, halves = [], {}

    def fastest(group):
        best = {}
        for _, rows in group:
            for r in rows:
                try:
                    v = float(r[wb_col])
                except (KeyError, ValueError):
                    continue
                if r.get("status") == "ok" and (row_key(r) not in best or v < best[row_key(r)]):
                    best[row_key(r)] = v
        return best
    for model in order:
        group = by_model[model]
        if len(group) == 1:
            merged.append(group[0])
            continue
        best = fastest(group)
        rows, at = [], {}
        for _, rs in group:
            for r in rs:
                k = row_key(r)
                if k not in at:
                    at[k] = len(rows)
                    rows.append(dict(r))
                elif r.get("status") == "ok" and rows[at[k]].get("status") != "ok":
                    rows[at[k]] = dict(r)  # measured in a later sitting, not in an earlier one
        for r in rows:
            if row_key(r) in best:
                r[wb_col] = repr(best[row_key(r)])
        half = len(group) // 2
        halves[model] = (fastest(group[:half]), fastest(group[half:]))
        merged.append((" + ".join(p for p, _ in group) + f" (each row's fastest over {len(group)} sittings)", rows))
    return merged, halves


def cpu_compare(args, profiles):
    """Times every profile's measured rows with PyTorch; returns (results, skipped, other,
    self_check), self_check being {model: (agreeing, compared)} with --self-check, else None."""
    stat = args.stat
    wb_col = {"min": "min_s", "p10": "p10_s"}.get(stat, "median_s")
    halves = {}
    if args.load_runs:
        # several sittings of each model: one joined profile a model
        profiles, halves = merge_profiles(profiles, wb_col)
    cases = {}  # (key, pass, batch, precision) -> the row and batch its case is built from
    order = []
    for _, rows in profiles:
        for r in rows:
            if r.get("status") != "ok" or r.get("backend") == "cuda":
                continue
            ck = (r["key"], r["pass"], int(r["batch"]), r["precision"])
            if ck not in cases:
                cases[ck] = (r, int(r["batch"]))
                order.append(ck)
    if args.load_runs:
        # the sittings' runs pooled; for --self-check, the first half of them against the second
        loaded = [load_runs(f) for f in args.load_runs]
        half = len(loaded) // 2
        runs = [pool_runs(loaded)] + ([pool_runs(loaded[:half]), pool_runs(loaded[half:])] if half else [])
    else:
        passes = 2 if args.self_check else 1
        runs = [time_cases(cases, order, args) for _ in range(passes)]
    if args.save_runs:
        save_runs(args.save_runs, runs[0])
        return None
    times = {ck: finish(None, runs[0].get(ck), stat) for ck in order}
    results, skipped, not_measured = [], [], {}
    for path, rows in profiles:
        print(f"\n{path}")
        print(f"{'layer':32} {'op':13} {'pass':11} {'batch':>5} {'wb ms':>10} {'torch ms':>10} {'wb/torch':>8} {'reps':>5}")
        for r in rows:
            model = r.get("model") or os.path.basename(path)
            if r.get("status") != "ok":
                not_measured[(model, r.get("status"), r.get("reason"))] = not_measured.get((model, r.get("status"), r.get("reason")), 0) + 1
                continue
            batch, pas, key = int(r["batch"]), r["pass"], r["key"]
            if r.get("backend") == "cuda":
                skipped.append((model, r, "a CUDA profile's row: compare it with --device cuda"))
                continue
            try:
                wb = float(r[wb_col])
            except (KeyError, ValueError):
                skipped.append((model, r, f"no {wb_col} in the profile row"))
                continue
            ck = (key, pas, batch, r["precision"])
            t = times[ck]
            if not isinstance(t, Skip) and not r.get("shared_with"):
                print(f"{r['layer'][:32]:32} {r['op'][:13]:13} {pas:11} {batch:5d} {fmt_ms(wb)} {fmt_ms(t[0])} "
                      f"{wb / t[0]:8.3f} {t[1]:5d}{'' if within(wb / t[0], args.tolerance) else '  *'}", flush=True)
            if isinstance(t, Skip):
                skipped.append((model, r, str(t)))
                continue
            results.append({"model": model, "layer": r["layer"], "op": r["op"], "pass": pas, "batch": batch,
                            "wb": wb, "torch": t[0], "ratio": wb / t[0], "shared_with": r.get("shared_with") or "",
                            "key": key, "precision": r["precision"]})
            if model in halves:
                results[-1]["wb_halves"] = (halves[model][0].get(row_key(r)), halves[model][1].get(row_key(r)))
    self_check = None
    if args.self_check and len(runs) > 1:
        # over each model's distinct rows, as the share of wb's: a row whose second timing
        # failed (a marginal cost not positive) counts as disagreeing
        self_check = {}
        first, again = (runs[0], runs[1]) if len(runs) == 2 else (runs[1], runs[2])
        for x in results:
            ck = (x["key"], x["pass"], x["batch"], x["precision"])
            a, b = finish(None, first.get(ck), stat), finish(None, again.get(ck), stat)
            if len(runs) > 2:
                x["torch_first"] = None if isinstance(a, Skip) else a[0]
            else:
                a = (x["torch"],)
            x["torch_again"] = None if isinstance(b, Skip) else b[0]
            if x["shared_with"]:
                continue
            k, n = self_check.get(x["model"], (0, 0))
            ok = x["torch_again"] is not None and not isinstance(a, Skip) and within(a[0] / x["torch_again"], args.tolerance)
            self_check[x["model"]] = (k + ok, n + 1)
    if args.call_cost:
        # PyTorch's fixed cost of each (op, pass): the same call on the smallest shape of its
        # kind, timed as the rows were
        tiny, tiny_order = {}, []
        for x in results:
            tk = (tiny_key(x["op"], x["key"]), x["pass"], TINY_BATCH, x["precision"])
            x["call_key"] = tk
            if tk not in tiny:
                tiny[tk] = ({"op": x["op"], "key": tk[0], "pass": x["pass"], "precision": x["precision"]}, TINY_BATCH)
                tiny_order.append(tk)
        calls = time_cases(tiny, tiny_order, args)
        for x in results:
            c = finish(None, calls.get(x.pop("call_key")), stat)
            x["call"] = None if isinstance(c, Skip) else c[0]
    return results, skipped, not_measured, self_check


# The batch of the smallest-shape cases (--call-cost): 2, so that batch norm has more than one
# value per channel.
TINY_BATCH = 2


def tiny_key(op, key):
    """The key of the smallest layer of the same kind as key (--call-cost): every shape of the
    same rank with dims 1 (the last 2, so a normalisation has two values; a product's all 1),
    one output channel or feature, 1×1 windows at stride 1 without padding, one group, one
    token of a two-word vocabulary, one hidden unit; the rest (bias, tied, scaled, causal,
    layers, operand count, and an LSTM's time steps, each of which PyTorch runs as a dozen
    calls) as the key has it."""
    last = 1 if op == "matmul" else 2

    def dims(m):
        d = m.group(1).split("×")
        ones = ["1"] * (len(d) - 1) + [str(last)]
        if op == "lstm":
            ones[0] = d[0]
        return "[" + "×".join(ones) + "]"
    k = re.sub(r"\[([\d×]+)\]", dims, key)
    for pat, rep in ((r"\bout=\d+", "out=1"), (r"\bk=\d+x\d+", "k=1x1"), (r"\bk=\d+", "k=1"), (r"\bs=\d+", "s=1"),
                     (r"\bp=\d+(x\d+)?", "p=0"), (r"\bd=\d+", "d=1"), (r"\bg=\d+", "g=1"), (r"\btokens=\d+", "tokens=1"),
                     (r"\bvocab=\d+", "vocab=2"), (r"\bdim=\d+", "dim=1"), (r"\bhidden=\d+", "hidden=1"),
                     (r"\bsize=\d+", "size=1"), (r"\b([lrtb])=\d+", r"\1=0")):
        k = re.sub(pat, rep, k)
    return k


def build_case(r, batch):
    """PyTorch's timed case of a wb row: a closure, ("difference", more, less), or the Skip
    saying why there is none."""
    try:
        builder, m = cpu_parse(r["op"], r["key"], r["pass"], r["precision"])
        torch.manual_seed(0)
        return builder(m, batch, r["pass"])
    except Skip as e:
        return e
    except (RuntimeError, MemoryError, ValueError) as e:
        return Skip(f"PyTorch failed: {type(e).__name__}: {str(e).splitlines()[0][:200]}")


def time_cases(specs, order, args):
    """Times the cases in --rounds rounds, each round running every case in order for its share
    of the budget and runs (rounded up: at most rounds - 1 runs more than --reps in all), each
    time after --warmup runs and at least 50 ms of them, so that the machine's drift over the
    minutes the cases take falls on every case alike.
    Each case is built afresh when its turn comes and freed after it (specs: its row and
    batch), so one case's tensors are alive at a time. Returns {case key: its runs pooled over
    the rounds}, or the Skip saying why it has none."""
    rounds = max(1, args.rounds)
    budget, reps, min_reps = args.budget / rounds, -(-args.reps // rounds), max(1, -(-args.min_reps // rounds))
    out = {}
    for _ in range(rounds):
        for ck in order:
            if isinstance(out.get(ck), Skip):
                continue
            case = build_case(*specs[ck])
            if isinstance(case, Skip):
                out[ck] = case
                continue
            try:
                if isinstance(case, tuple) and case[0] == "difference":
                    more, less = collect_differences(case[1], case[2], args.warmup, budget, reps, min_reps)
                    prev = out.get(ck, ([], []))
                    out[ck] = (prev[0] + more, prev[1] + less)
                else:
                    out[ck] = out.get(ck, []) + collect_runs(case, args.warmup, budget, reps, min_reps)
            except (RuntimeError, MemoryError, ValueError) as e:
                out[ck] = Skip(f"PyTorch failed: {type(e).__name__}: {str(e).splitlines()[0][:200]}")
            finally:
                case = None
                gc.collect()
    return out


def finish(case, runs, stat):
    """A case's (seconds, runs) from its pooled runs, or the Skip saying why there is none."""
    if isinstance(case, Skip):
        return case
    if isinstance(runs, Skip):
        return runs
    if not runs:
        return Skip("not timed")
    t = summarize(runs, stat)
    marginal = isinstance(runs, tuple) or (isinstance(runs, Sittings) and isinstance(runs[0], tuple))
    if marginal and t <= 0:
        return Skip(f"PyTorch's marginal cost (backward with the parameters' gradients minus without) came out "
                    f"{1e3 * t:.4f} ms, not positive")
    return t, run_count(runs)


def share_line(rs, tol):
    n = len(rs)
    k = sum(within(x["ratio"], tol) for x in rs)
    med = statistics.median(x["ratio"] for x in rs) if rs else float("nan")
    return k, n, f"{k:4d}/{n:<4d} {100 * k / n if n else 0:5.1f}%  median wb/torch {med:6.3f}"


def cpu_summary(args, results, skipped, not_measured):
    """Prints the summary per model; returns {model: share of distinct measurements within} and,
    with --call-cost, {model: the same share of wb's time plus PyTorch's cost per call}."""
    tol = args.tolerance
    shares, call_shares, ceilings = {}, {}, {}
    models = list(dict.fromkeys([x["model"] for x in results] + [m for m, _, _ in skipped]))
    for model in models:
        allr = [x for x in results if x["model"] == model]
        distinct = [x for x in allr if not x["shared_with"]]
        print(f"\n== {model}: wb {args.stat} vs PyTorch {args.stat}, within ±{100 * tol:.0f}% "
              f"(target ≥ {100 * args.target:.0f}% of layer passes)")
        if distinct:
            k, n, line = share_line(distinct, tol)
            shares[model] = k / n
            print(f"  distinct measurements      {line}")
            _, _, line = share_line(allr, tol)
            print(f"  all layer passes           {line}   (rows sharing a measurement counted each)")
            withcall = [dict(x, ratio=(x["wb"] + x["call"]) / x["torch"]) for x in distinct if x.get("call") is not None]
            if withcall:
                k, n, line = share_line(withcall, tol)
                call_shares[model] = k / n
                calls = sorted(x["call"] for x in withcall)
                print(f"  + PyTorch's cost per call  {line}   (wb's time plus PyTorch's on the smallest shape of "
                      f"the op and pass, {1e6 * calls[0]:.1f}–{1e6 * calls[-1]:.1f} µs; not wb's: a decomposition)")
                k, n = kernel_ceiling(distinct, tol)
                ceilings[model] = k / n
                print(f"  kernels alone, at most     {k:4d}/{n:<4d} {100 * k / n:5.1f}%  (the passes whose cost per call is "
                      f"at most {100 * tol:.0f}% of PyTorch's time, or not measured; in the others a profile of "
                      f"kernels, were each PyTorch's own, misses by that cost alone)")
            wb_sum, t_sum = sum(x["wb"] for x in allr), sum(x["torch"] for x in allr)
            print(f"  summed over all layer passes: wb {1e3 * wb_sum:.2f} ms, PyTorch {1e3 * t_sum:.2f} ms, "
                  f"wb/torch {wb_sum / t_sum:.3f}")
            print("  by pass:")
            for pas in CPU_PASSES:
                rs = [x for x in distinct if x["pass"] == pas]
                if rs:
                    print(f"    {pas:13} {share_line(rs, tol)[2]}")
            print("  by op:")
            for op in sorted({x["op"] for x in distinct}):
                rs = [x for x in distinct if x["op"] == op]
                print(f"    {op:13} {share_line(rs, tol)[2]}")
            worst = sorted(distinct, key=lambda x: -abs(math.log(max(x["ratio"], 1e-12))))[:args.worst]
            if worst:
                print(f"  worst {len(worst)} (distinct measurements):")
            for x in worst:
                print(f"    {x['layer'][:30]:30} {x['op']:13} {x['pass']:11} b{x['batch']:<4d} wb {1e3 * x['wb']:9.4f} ms  "
                      f"torch {1e3 * x['torch']:9.4f} ms  wb/torch {x['ratio']:7.3f}   {x['key']}")
        else:
            shares[model] = 0.0
            print("  no row compared")
        sk = [(r, why) for m, r, why in skipped if m == model]
        print(f"  skipped (measured by wb, not reproduced in PyTorch): {len(sk)}")
        for r, why in sk:
            print(f"    {r['layer'][:30]:30} {r['op']:13} {r['pass']:11} b{r['batch']:<4} {why}")
        nm = {(s, why): c for (m, s, why), c in not_measured.items() if m == model}
        if nm:
            print("  not compared, not measured by wb: " + "; ".join(f"{c} {s} ({why or 'no reason'})" for (s, why), c in nm.items()))
    return shares, call_shares, ceilings


def kernel_ceiling(rs, tol):
    """How many of rs a profile of kernels alone could match within tol: were wb's kernel exactly
    PyTorch's, its time would be PyTorch's less the cost per call, a ratio of 1 - call/torch,
    within tol only where call/torch <= tol (a pass whose cost was not measured counts as within).
    Returns (k, n). It reads PyTorch's times alone, never wb's. It bounds the share in so far as
    the cost on the smallest shape is PyTorch's overhead alone (its kernel there does next to
    nothing) and wb's kernels are no slower than PyTorch's."""
    k = sum(1 for x in rs if x.get("call") is None or x["call"] <= tol * x["torch"])
    return k, len(rs)


def write_cpu_csv(path, results, stat):
    """One row per compared wb row; with --self-check PyTorch's second timing (with --load-runs:
    its first half of the sittings and its second), with --call-cost its cost per call, and with
    several sittings of a model wb's fastest over the first half of them and over the second."""
    first = any("torch_first" in x for x in results)
    again = any("torch_again" in x for x in results)
    calls = any("call" in x for x in results)
    halves = any("wb_halves" in x for x in results)

    def num(v):
        return f"{v:.9g}" if v is not None else ""
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["model", "layer", "op", "pass", "batch", f"wb_{stat}_s", f"torch_{stat}_s", "ratio", "shared_with", "key"]
                   + ([f"torch_first_{stat}_s"] if first else []) + ([f"torch_again_{stat}_s"] if again else [])
                   + ([f"torch_call_{stat}_s"] if calls else [])
                   + ([f"wb_first_{stat}_s", f"wb_again_{stat}_s"] if halves else []))
        for x in results:
            a, b = x.get("wb_halves", (None, None))
            w.writerow([x["model"], x["layer"], x["op"], x["pass"], x["batch"], f"{x['wb']:.9g}", f"{x['torch']:.9g}",
                        f"{x['ratio']:.6g}", x["shared_with"], x["key"]]
                       + ([num(x.get("torch_first"))] if first else []) + ([num(x.get("torch_again"))] if again else [])
                       + ([num(x.get("call"))] if calls else []) + ([num(a), num(b)] if halves else []))


def dry_run(profiles, cuda=False):
    """Classifies every measured row without torch: compared, or skipped and why; with cuda, a CUDA
    profile's rows (cuda_parse; a row sharing another's measurement is counted as such unparsed),
    else the CPU's (cpu_parse)."""
    for path, rows in profiles:
        n_ok = n_shared = 0
        reasons = {}
        for r in rows:
            if r.get("status") != "ok":
                continue
            if not cuda and r.get("backend") == "cuda":
                why = "a CUDA profile's row: compare it with --device cuda"
                reasons[why] = reasons.get(why, 0) + 1
                continue
            if cuda and r.get("shared_with"):
                n_shared += 1
                continue
            try:
                if cuda:
                    cuda_parse(r["op"], r["key"], r["pass"])
                else:
                    cpu_parse(r["op"], r["key"], r["pass"], r["precision"])
                if r.get("shared_with"):
                    n_shared += 1
                else:
                    n_ok += 1
            except Skip as e:
                reasons[str(e)] = reasons.get(str(e), 0) + 1
        print(f"{path}: {n_ok} measured rows to time with PyTorch, {n_shared} sharing their measurement, "
              f"{sum(reasons.values())} skipped")
        for why, c in reasons.items():
            print(f"  {c} skipped: {why}")


def load_average():
    try:
        return "load average " + " ".join(f"{v:.2f}" for v in os.getloadavg())
    except (AttributeError, OSError):
        return "load average unknown"


KEEP_MALLOC = "glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=1099511627776"


def reexec_for_cpu(args):
    """Runs the script again, once, where the process needs settings only its start can make:
    glibc's malloc told to keep freed memory (--malloc keep) and an interpreter with torch.

    PyTorch has no caching allocator on the CPU (on a GPU it has one): every output is a fresh
    malloc, and glibc serves blocks of 32 MB and more with mmap and unmaps them when freed (and
    trims the heap's top), so every run pays the first touch of its pages again; on this VM a
    page fault costs about 20 µs (a 400 MB add: 2.3 s with fresh pages, 38 ms without). wb fills
    its buffers once before timing. --malloc keep (default) makes glibc serve everything from
    its heap and never give it back (GLIBC_TUNABLES mmap_max=0, trim_threshold 1 TiB), as a
    caching allocator would; --malloc system times PyTorch with glibc's defaults."""
    import importlib.util
    want_env = args.malloc == "keep" and "GLIBC_TUNABLES" not in os.environ
    blas = blas_dir(args, args.profile)
    path = os.environ.get("LD_LIBRARY_PATH", "")
    want_blas = blas is not None and blas not in path.split(":")
    python = sys.executable
    if importlib.util.find_spec("torch") is None and os.path.exists("/usr/bin/python3"):
        python = "/usr/bin/python3"  # Debian's python3-torch
    if os.environ.get("TORCH_REFERENCE_REEXEC") or not (want_env or want_blas or python != sys.executable):
        return
    if want_env:
        os.environ["GLIBC_TUNABLES"] = KEEP_MALLOC
    if want_blas:
        os.environ["LD_LIBRARY_PATH"] = blas + (":" + path if path else "")
    os.environ["TORCH_REFERENCE_REEXEC"] = "1"
    sys.stdout.flush()
    os.execv(python, [python] + sys.argv)


def run_cpu(args):
    profiles = [(p, read_profile(p)) for p in args.profile]
    if not profiles:
        sys.exit("torch_reference: --device cpu needs at least one --profile")
    if args.dry_run:
        dry_run(profiles)
        return
    threads = args.threads
    source = "--threads"
    found = {p: profile_threads(p, rows) for p, rows in profiles}
    known = {v for v in found.values() if v}
    if not threads:
        if len(known) > 1:
            print(f"torch_reference: the profiles ran with different threads {found}; using the most", file=sys.stderr)
        if known:
            threads, source = max(known), "the profile"
        else:
            threads, source = usable_cpus(), "the CPUs this process may use"
    elif known and known != {threads}:
        print(f"torch_reference: warning: --threads {threads}, but the profiles ran with {sorted(known)}", file=sys.stderr)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(threads))
        if os.environ[var] != str(threads) and not os.environ.get("TORCH_REFERENCE_REEXEC"):
            print(f"torch_reference: warning: {var}={os.environ[var]} from the environment, not {threads}", file=sys.stderr)
    reexec_for_cpu(args)
    load_torch()
    torch.set_num_threads(threads)
    torch.backends.mkldnn.enabled = True
    if args.malloc == "keep" and args.prefault_mb > 0:
        # Touch, then free, a block: with glibc keeping freed memory, later outputs are carved
        # from pages already faulted in (without it, each new large block took several slow
        # runs, ~20 µs a page, before its time settled).
        t1 = time.time()
        block = torch.empty(args.prefault_mb << 18)
        block.fill_(0.0)
        del block
        print(f"prefaulted {args.prefault_mb} MB of heap in {time.time() - t1:.1f} s")
    print(f"torch {torch.__version__} on the CPU, {torch.get_num_threads()} threads ({source}); "
          f"OMP_NUM_THREADS={os.environ['OMP_NUM_THREADS']} OPENBLAS_NUM_THREADS={os.environ['OPENBLAS_NUM_THREADS']}; "
          f"oneDNN {'on' if torch.backends.mkldnn.is_available() else 'absent'}; OpenBLAS {loaded_blas()}; malloc {args.malloc} "
          f"(GLIBC_TUNABLES={os.environ.get('GLIBC_TUNABLES', '')}); {load_average()}")
    global GATE
    if args.gate:
        GATE = Gate(torch)
    t0 = time.time()
    compared = cpu_compare(args, profiles)
    if GATE is not None:
        print(GATE.summary())
    if compared is None:  # --save-runs: one sitting of an interleaved check
        print(f"{time.time() - t0:.0f} s; at the end {load_average()}")
        return
    results, skipped, not_measured, self_check = compared
    shares, call_shares, ceilings = cpu_summary(args, results, skipped, not_measured)
    if args.csv_out:
        write_cpu_csv(args.csv_out, results, args.stat)
        print(f"\nwrote {len(results)} rows to {args.csv_out}")
    note = ""
    if hasattr(os, "getloadavg") and os.getloadavg()[1] > threads + 0.5:
        note = f" (above {threads}: other work shared the CPUs, and PyTorch's timings, like wb's, are then noisy)"
    print(f"\n{time.time() - t0:.0f} s; at the end {load_average()}{note}")
    print("share of distinct layer passes within ±{:.0f}%: ".format(100 * args.tolerance)
          + ", ".join(f"{m} {100 * s:.1f}%" for m, s in shares.items()))
    if args.call_cost:
        parts = [f"{m} {100 * call_shares[m]:.1f}%" if m in call_shares else f"{m} —" for m in shares]
        print("with PyTorch's own cost per call added to wb's kernels (a decomposition, not wb's prediction): "
              + ", ".join(parts))
        parts = [f"{m} {100 * ceilings[m]:.1f}%" if m in ceilings else f"{m} —" for m in shares]
        print("the most a profile of kernels alone can reach, each kernel exactly PyTorch's (the passes whose cost "
              "per call is within the tolerance of their time): " + ", ".join(parts))
    if self_check is not None:
        how = ("in the first half of the sittings against the second" if args.load_runs
               else "timed twice one after the other")
        print(f"PyTorch against itself, {how} (the ceiling of the share on this "
              "machine now): " + ", ".join(f"{m} {k}/{n} ({100 * k / n:.1f}%)" for m, (k, n) in self_check.items()))
    wb_self = {}
    for x in results:
        if "wb_halves" in x and not x["shared_with"]:
            a, b = x["wb_halves"]
            k, n = wb_self.get(x["model"], (0, 0))
            wb_self[x["model"]] = (k + (a is not None and b is not None and b > 0 and within(a / b, args.tolerance)), n + 1)
    if wb_self:
        print("wb against itself, its profiles of the first half of the sittings against the second: "
              + ", ".join(f"{m} {k}/{n} ({100 * k / n:.1f}%)" for m, (k, n) in wb_self.items()))
    if args.fail_below is not None:
        low = {m: s for m, s in shares.items() if s < args.fail_below}
        if low:
            sys.exit("torch_reference: below {:.0f}% within ±{:.0f}%: {}".format(
                100 * args.fail_below, 100 * args.tolerance, ", ".join(f"{m} {100 * s:.1f}%" for m, s in low.items())))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", action="append", default=[], help="a wb profile CSV (repeatable)")
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda",
                    help="cuda (default): time a GPU profile's rows on the GPU; cpu: a CPU profile's on this CPU")
    ap.add_argument("--gemm", type=int, help="time an N³ bf16 torch.matmul")
    ap.add_argument("--wb-gemm", help="wb's profile of gemm:N, to compare with --gemm")
    ap.add_argument("--iteration", choices=["resnet50"], help="time a whole torchvision training iteration")
    ap.add_argument("--per-call", action="store_true",
                    help="CUDA: time each PyTorch call between two events (its host dispatch included) rather than "
                         "replays of a CUDA graph of 20 calls (kernels back to back, the default)")
    cpu = ap.add_argument_group("--device cpu")
    cpu.add_argument("--threads", type=int, help="PyTorch's threads (default: the profile's, else the CPUs this process may use)")
    cpu.add_argument("--csv-out", help="write one row per compared wb row: model, layer, op, pass, batch, "
                     "wb_median_s, torch_median_s, ratio, shared_with, key")
    cpu.add_argument("--stat", choices=["median", "min", "p10"], default="median",
                     help="compare medians (wb's median_s), fastest runs (wb's min_s) or 10th percentiles "
                          "(wb's p10_s; over sittings, the lowest sitting's) (default median)")
    cpu.add_argument("--tolerance", type=float, default=CPU_TOLERANCE, help="the band around PyTorch's time (default 0.15)")
    cpu.add_argument("--target", type=float, default=CPU_TARGET, help="the share to reach, printed (default 0.85)")
    cpu.add_argument("--fail-below", type=float, metavar="SHARE",
                     help="exit 1 when a model's share of distinct layer passes within the tolerance is below SHARE")
    cpu.add_argument("--reps", type=int, default=50, help="most timed runs per row (default 50)")
    cpu.add_argument("--min-reps", type=int, default=5, help="least timed runs per row (default 5)")
    cpu.add_argument("--budget", type=float, default=0.2, help="seconds of timed runs per row, within the reps (default 0.2)")
    cpu.add_argument("--warmup", type=int, default=3, help="warm-up runs per row, and at least 50 ms of them unless 0 (default 3)")
    cpu.add_argument("--rounds", type=int, default=1,
                     help="time the rows in this many interleaved rounds, each with its share of --budget and --reps, "
                     "and pool the runs, so that the machine's drift falls on every row alike (default 1)")
    cpu.add_argument("--self-check", action="store_true",
                     help="time every row twice, one pass over them all after the other (with --load-runs: the first "
                     "half of the sittings against the second), and print how many of PyTorch's own times agree within "
                     "the tolerance: the ceiling of the share on this machine now")
    cpu.add_argument("--save-runs", metavar="FILE",
                     help="write PyTorch's runs of every row to FILE (JSON) and stop before comparing: one sitting of an "
                     "interleaved check (see --load-runs)")
    cpu.add_argument("--load-runs", metavar="FILE", action="append", default=[],
                     help="pool PyTorch's runs from these files (--save-runs; repeatable) instead of timing the rows: "
                     "with wb's profiles of the same sittings (--profile, several per model: each row's fastest over "
                     "them), the comparison is of the two programs timed turn about, not of the machine between two "
                     "sittings; --self-check then compares the first half of the files with the second")
    cpu.add_argument("--call-cost", action="store_true",
                     help="also time each op and pass on its smallest shape (see tiny_key): PyTorch's fixed cost per "
                     "call (Python, dispatch, autograd, allocation), which wb's kernels do not run; print the share "
                     "within the tolerance of wb's time plus it, a decomposition of the miss, not a score of wb, and the "
                     "most a profile of kernels alone can score (the passes whose cost is within the tolerance)")
    cpu.add_argument("--worst", type=int, default=10, help="worst rows listed per model (default 10)")
    cpu.add_argument("--malloc", choices=["keep", "system"], default="keep",
                     help="keep: glibc's malloc keeps freed memory (no page faults per run, as a caching allocator; "
                     "the default); system: glibc's defaults (see reexec_for_cpu)")
    cpu.add_argument("--prefault-mb", type=int, default=1024,
                     help="with --malloc keep, fault in this much heap before timing (default 1024)")
    cpu.add_argument("--blas", choices=["auto", "openmp", "system"], default="auto",
                     help="the OpenBLAS PyTorch runs: auto (default) the OpenMP build where the profiles ran on it "
                          "(their sidecars say), openmp that build, system the one libblas.so.3 points at")
    cpu.add_argument("--gate", action=argparse.BooleanOptionalAction, default=True,
                     help="before each case's runs, wait while a probe (a 256 x 256 product) runs slower than 1.6 x "
                     "its fastest, at most 2 s, as wb profile's --gate does (default on)")
    ap.add_argument("--dry-run", action="store_true", help="classify the rows (timed or skipped, and why) without torch")
    args = ap.parse_args()
    if args.save_runs and (args.self_check or args.call_cost or args.csv_out or args.fail_below is not None):
        ap.error("--save-runs times one sitting and compares nothing: give --self-check, --call-cost, --csv-out and "
                 "--fail-below to the run that reads the sittings back (--load-runs)")
    if args.save_runs and args.load_runs:
        ap.error("--save-runs and --load-runs: a run either times a sitting or reads sittings back")
    if args.load_runs and args.self_check and len(args.load_runs) < 2:
        ap.error("--self-check with --load-runs compares the first half of the sittings with the second: give at least two")
    if args.device == "cpu":
        if args.gemm or args.wb_gemm or args.iteration:
            ap.error("--gemm, --wb-gemm and --iteration are CUDA-only")
        run_cpu(args)
        return
    if args.dry_run:
        dry_run([(p, read_profile(p)) for p in args.profile], cuda=True)
        return
    load_torch()
    if not torch.cuda.is_available():
        sys.exit("torch_reference: no CUDA device")
    global USE_GRAPHS
    USE_GRAPHS = not args.per_call
    torch.backends.cudnn.benchmark = True
    print("device:", torch.cuda.get_device_name(), "torch", torch.__version__, "cuDNN", torch.backends.cudnn.version())
    if args.gemm:
        n = args.gemm
        a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
        t = time_cuda(lambda: a @ b, reps=20)
        tf = 2 * n ** 3 / t / 1e12
        print(f"torch.matmul {n}³ bf16: {1e3*t:.2f} ms, {tf:.1f} TFLOP/s")
        if args.wb_gemm:
            r = next(r for r in csv.DictReader(open(args.wb_gemm)) if r["pass"] == "fwd" and r["status"] == "ok")
            wtf = float(r["achieved_flops"]) / 1e12
            print(f"wb gemm:{n}: {wtf:.1f} TFLOP/s = {100*wtf/tf:.0f}% of torch.matmul (target ≥ 85%)")
    for p in args.profile:
        compare_profile(p)
    print(f"PyTorch's times: {HOW['graph']} from CUDA graphs of {GRAPH_CALLS} calls, {HOW['back to back']} from "
          f"{GRAPH_CALLS} calls back to back (autograd's backward), {HOW['per-call']} call by call")
    if args.iteration == "resnet50":
        import torchvision
        for dtype in (torch.bfloat16, torch.float32):
            for batch in (32, 128):
                model = torchvision.models.resnet50().cuda().to(dtype)
                x = torch.randn(batch, 3, 224, 224, device="cuda", dtype=dtype)

                def step():
                    model.zero_grad(set_to_none=True)
                    model(x).float().sum().backward()

                t = time_cuda(step, reps=20, graph=False)
                print(f"torchvision resnet50 {dtype} batch {batch}: fwd+bwd {1e3*t:.1f} ms")


if __name__ == "__main__":
    main()
