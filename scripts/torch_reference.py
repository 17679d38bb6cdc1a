#!/usr/bin/env python3
"""Times, with PyTorch, the layer shapes of a wb profile and prints wb/torch per layer.

For every measured conv2d, linear, matmul, batchnorm, layernorm, activation (relu, sigmoid, tanh,
silu, gelu, leakyrelu), dropout, pooling (maxpool, avgpool, globalavgpool), softmax and add row of each wb profile CSV (wb profile ... --out
FILE), it builds the same operation in PyTorch (NCHW, the profile's precision, cudnn.benchmark on,
TF32 off for fp32), times the same pass with CUDA events after warm-up, and prints the ratio of
wb's median to PyTorch's, with the algorithm wb ran (the profile's algo column). PyTorch runs
pooling, activations and softmax with its own kernels, not cuDNN's, so their ratios compare wb's
cuDNN routine with what a PyTorch training step actually runs. --gemm N times an N³ torch.matmul in bf16 and compares with wb's GEMM profile;
--iteration resnet50 times a whole torchvision ResNet-50 training iteration (forward + backward)
to compare with the profile's summed passes.

    python3 scripts/torch_reference.py --profile gpu-check/resnet50-bf16.csv --gemm 8192 \
        --wb-gemm gpu-check/gemm-bf16.csv --iteration resnet50
"""
import argparse
import csv
import re
import statistics
import sys

import torch

DTYPES = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}
CONV = re.compile(r"conv2d in=\[(\d+)×(\d+)×(\d+)\] out=(\d+) k=(\d+)x(\d+) s=(\d+) p=(\d+)(?:x(\d+))? d=(\d+) g=(\d+) bias=(\w+)")
LINEAR = re.compile(r"linear in=\[([\d×]+)\] out=(\d+) bias=(\w+)")
ELEMENTWISE = re.compile(r"(batchnorm|relu|sigmoid|tanh|silu|dropout|gelu|leakyrelu|layernorm) shape=\[([\d×]+)\]$")
POOL = re.compile(r"(maxpool|avgpool|globalavgpool) in=\[(\d+)×(\d+)×(\d+)\] k=(\d+) s=(\d+) p=(\d+)")
SOFTMAX = re.compile(r"softmax shape=\[([\d×]+)\]")
ADD = re.compile(r"add n=(\d+) shape=\[([\d×]+)\]")
MATMUL = re.compile(r"matmul a=\[([\d×]+)\] b=\[([\d×]+)\] transB=(\w+)")


def time_cuda(fn, reps=50, warmup=10):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3)
    return statistics.median(times)


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
    if pas == "fwd":
        return time_cuda(lambda: x @ w.t())
    if pas == "bwd-data":
        return time_cuda(lambda: dy @ w)
    if pas == "bwd-weights":
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


def backward_of(fn, x):
    """Times the backward pass of fn at x (the gradient of x; parameters' with it)."""
    x = x.detach().requires_grad_(True)
    y = fn(x)
    dy = torch.randn_like(y)
    return time_cuda(lambda: torch.autograd.grad(y, [x], dy, retain_graph=True))


def elementwise_pass(m, batch, dtype, pas):
    op, shape = m.group(1), dims(m.group(2))
    x = torch.randn(*nchw(batch, shape), device="cuda", dtype=dtype)
    if op == "batchnorm":
        fn = torch.nn.BatchNorm2d(x.shape[1]).cuda().to(dtype).train()
    elif op == "layernorm":
        x = torch.randn(batch, *shape, device="cuda", dtype=dtype)
        fn = torch.nn.LayerNorm(shape[-1]).cuda().to(dtype)
    else:
        fn = {"relu": torch.relu, "sigmoid": torch.sigmoid, "tanh": torch.tanh, "silu": torch.nn.functional.silu,
              "dropout": lambda t: torch.nn.functional.dropout(t, 0.1, training=True),
              "gelu": lambda t: torch.nn.functional.gelu(t, approximate="tanh"),
              "leakyrelu": torch.nn.functional.leaky_relu}[op]
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
    if pas == "fwd":
        return time_cuda(lambda: fn(x))
    if pas == "bwd-data":
        return backward_of(fn, x)
    return None


def softmax_pass(m, batch, dtype, pas):
    shape = dims(m.group(1))
    x = torch.randn(batch, *shape, device="cuda", dtype=dtype)
    fn = lambda t: torch.softmax(t, dim=-1)
    if pas == "fwd":
        return time_cuda(lambda: fn(x))
    if pas == "bwd-data":
        return backward_of(fn, x)
    return None


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
        return time_cuda(lambda: torch.autograd.grad(c, [a, b], dc, retain_graph=True))
    return None


PASSES = [(MATMUL, matmul_pass), (CONV, conv_pass), (LINEAR, linear_pass), (ELEMENTWISE, elementwise_pass), (POOL, pool_pass),
          (SOFTMAX, softmax_pass), (ADD, add_pass)]


def compare_profile(path):
    rows = list(csv.DictReader(open(path)))
    ratios, wb_sum, torch_sum = [], 0.0, 0.0
    print(f"\n{path}")
    print(f"{'layer':28} {'pass':12} {'batch':>5} {'wb ms':>9} {'torch ms':>9} {'wb/torch':>8}  wb algo")
    by_op = {}
    for r in rows:
        if r["status"] != "ok" or r["shared_with"]:
            continue
        dtype = DTYPES[r["precision"]]
        torch.backends.cuda.matmul.allow_tf32 = r["precision"] == "tf32"
        torch.backends.cudnn.allow_tf32 = r["precision"] == "tf32"
        batch, pas = int(r["batch"]), r["pass"]
        t = None
        for pattern, time_pass in PASSES:
            if m := pattern.match(r["key"]):
                t = time_pass(m, batch, dtype, pas)
                break
        if not t:
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--profile", action="append", default=[], help="a wb profile CSV (repeatable)")
    ap.add_argument("--gemm", type=int, help="time an N³ bf16 torch.matmul")
    ap.add_argument("--wb-gemm", help="wb's profile of gemm:N, to compare with --gemm")
    ap.add_argument("--iteration", choices=["resnet50"], help="time a whole torchvision training iteration")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("torch_reference: no CUDA device")
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
    if args.iteration == "resnet50":
        import torchvision
        for dtype in (torch.bfloat16, torch.float32):
            for batch in (32, 128):
                model = torchvision.models.resnet50().cuda().to(dtype)
                x = torch.randn(batch, 3, 224, 224, device="cuda", dtype=dtype)

                def step():
                    model.zero_grad(set_to_none=True)
                    model(x).float().sum().backward()

                t = time_cuda(step, reps=20)
                print(f"torchvision resnet50 {dtype} batch {batch}: fwd+bwd {1e3*t:.1f} ms")


if __name__ == "__main__":
    main()
