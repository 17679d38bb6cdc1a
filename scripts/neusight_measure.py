#!/usr/bin/env python3
"""Measure a GPU the way NeuSight measured its labels and ops, in its layout.

Writes, for the GPU this runs on (its folder name is torch.cuda.get_device_name() with spaces
as underscores, as NeuSight names it):

  OUT/devices/<GPU>.json            the spec sheet (see --spec), in NeuSight's format
  OUT/labels/<GPU>/<model>-<inf|train>-<seq>-<batch>.json
                                    one whole iteration: num_layer, e2e_latency, fw_latency,
                                    bwall_latency (ms), plus runs_ms (every timed run) and how
                                    many of the fastest were averaged
  OUT/ops/<op>/<GPU>.csv            op-level forward latencies (OPName, Latency, Device, dims)
  OUT/env.json                      torch, CUDA, cuDNN, driver and the device's properties

so that `wb predict --validate neusight OUT` scores wb on this GPU from its spec sheet alone.

The method is NeuSight's (its artifact's neusight/Tracing/trace.py and Dataset/collect.py):
Hugging Face models built from their config.json with eager attention, fp32 with TF32 off,
input ids all ones; inference is a no_grad forward of AutoModelForSequenceClassification (BERT)
or AutoModelForCausalLM (GPT-2, OPT); training is a forward in train mode, cross-entropy
against the inputs (not timed), and the backward, each timed with CUDA events (the gradients,
never zeroed, add up from run to run, as in NeuSight's loop); before each run gc.collect() and
torch.cuda.empty_cache(), as NeuSight's loop does, so each run allocates afresh (the bundled H200
labels of 2026-11-28 were measured before the script did so, with the allocator's cache warm);
25 runs, the mean of the 5 fastest. Where one run takes longer than 0.25 s, fewer runs are made (at least 5,
about 5 s in all) and the fastest fifth averaged, so that a 2.7B-parameter model fits a short
lease; runs_ms keeps every time. Ops: one op at a time on zeros (randn for products),
torch.no_grad, 25 runs, mean of the 5 fastest, shapes drawn (seeded) from the bundled
NeuSight measurements so the same shapes are compared across GPUs.
"""
import argparse
import csv
import gc
import gzip
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch

torch.backends.cudnn.benchmark = True
torch.backends.cudnn.allow_tf32 = False
torch.backends.cuda.matmul.allow_tf32 = False

ACTIVE, SAMPLE = 25, 5

# (model, mode, seq, batch): NeuSight's unfused single-GPU labels of these models (the set its
# five GPUs were measured at) and training iterations of every model, cheapest first so that a
# spent --label-budget drops the longest.
DEFAULT_LABELS = [
    ("bert_large", "inf", 512, 8), ("bert_large", "inf", 512, 16),
    ("gpt2_large", "inf", 1024, 4), ("gpt2_large", "inf", 1024, 8),
    ("bert_large", "train", 512, 2), ("bert_large", "train", 512, 8),
    ("gpt2_large", "train", 1024, 1),
    ("opt_13", "inf", 2048, 2), ("gpt3_xl", "inf", 2048, 2), ("gpt3_27", "inf", 2048, 2),
    ("opt_13", "train", 2048, 1), ("gpt3_xl", "train", 2048, 1),
    ("opt_13", "inf", 2048, 8), ("gpt3_xl", "inf", 2048, 8), ("gpt3_27", "inf", 2048, 8),
    ("gpt2_large", "train", 1024, 4), ("gpt3_27", "train", 2048, 1),
]

OPS = ["linear", "bmm", "ln", "softmax", "add", "mul", "div", "pow", "addu", "mulu", "divu",
       "powu", "relu", "gelu", "tanh", "conv"]
MM_OPS = {"linear", "bmm"}
BINARY = {"add", "mul", "div", "pow"}
DIMS = {
    "linear": ["B", "M", "N", "K"], "bmm": ["B", "M", "N", "K"],
    "conv": ["B", "Input_Channel", "Output_Channel", "Kernel_Szie", "Input_Size", "Stride", "Padding"],
}


def log(*a):
    print(f"[{time.strftime('%H:%M:%S')}]", *a, flush=True)


def progress(path, rec):
    if path:
        with open(path, "a") as f:
            f.write(json.dumps(rec) + "\n")


def fresh():
    """What NeuSight's measure_e2e does before each timed run: a collection and the caching
    allocator emptied, so that the run's allocations (cudaMalloc) fall inside its timing."""
    gc.collect()
    torch.cuda.empty_cache()


def timed_runs(fn, budget_s=5.0, slow_ms=250, least=5, afresh=False):
    """Runs fn once untimed, then times it with CUDA events, up to ACTIVE runs: where the first
    takes over slow_ms, about budget_s of runs, at least `least`. Returns the mean of the fastest
    SAMPLE of ACTIVE runs (else of the fastest fifth), the runs, and how many were averaged."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    fn()
    torch.cuda.synchronize()
    runs = []
    n = ACTIVE
    for i in range(ACTIVE):
        if afresh:  # a label's runs, as NeuSight's measure_e2e; its op sweeps do not
            fresh()
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        runs.append(start.elapsed_time(end))
        if i == 0 and runs[0] > slow_ms:
            n = max(least, min(ACTIVE, int(budget_s * 1000 / runs[0])))
        if len(runs) >= n:
            break
    k = SAMPLE if len(runs) == ACTIVE else max(1, len(runs) // 5)
    return sum(sorted(runs)[:k]) / k, runs, k


def build(models_dir, name, train, device):
    from transformers import (AutoConfig, AutoModelForCausalLM, AutoModelForPreTraining,
                              AutoModelForSequenceClassification)
    cfg_json = json.loads((Path(models_dir) / f"{name}.json").read_text())
    arch = cfg_json["architectures"][0].lower()
    n_layer = cfg_json.get("n_layer", cfg_json.get("num_hidden_layers"))
    tmp = tempfile.mkdtemp()
    (Path(tmp) / "config.json").write_text(json.dumps(cfg_json))
    config = AutoConfig.from_pretrained(tmp)
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        config._attn_implementation = "eager"
    except Exception:
        pass
    if "bert" in arch:
        cls = AutoModelForPreTraining if train else AutoModelForSequenceClassification
    else:
        cls = AutoModelForCausalLM
    with torch.device(device):
        try:
            model = cls.from_config(config, attn_implementation="eager")
        except TypeError:
            model = cls.from_config(config)
    model = model.float().to(device)
    model = model.train() if train else model.eval()
    impl = getattr(model.config, "_attn_implementation", "?")
    return model, n_layer, impl


def measure_label(models_dir, name, mode, seq, batch):
    gc.collect()
    torch.cuda.empty_cache()
    train = mode == "train"
    torch.manual_seed(0)
    model, n_layer, impl = build(models_dir, name, train, "cuda")
    ids = torch.ones(batch, seq, dtype=torch.int64, device="cuda")
    params = sum(p.numel() for p in model.parameters())
    if not train:
        def fwd():
            with torch.no_grad():
                model(ids)
        fw, runs, k = timed_runs(fwd, afresh=True)
        rec = {"num_layer": n_layer, "e2e_latency": fw, "fw_latency": fw, "bwall_latency": 0,
               "runs_ms": runs, "fastest_averaged": k}
    else:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        fws, bws = [], []
        n = ACTIVE
        for i in range(ACTIVE + 1):
            fresh()
            start.record()
            out = model(ids)
            end.record()
            torch.cuda.synchronize()
            f = start.elapsed_time(end)
            logits = out["prediction_logits"] if "prediction_logits" in out else out["logits"]
            loss = torch.nn.functional.cross_entropy(logits.view(-1, logits.size(-1)), ids.view(-1))
            out = logits = None
            start.record()
            loss.backward()
            end.record()
            loss = None
            torch.cuda.synchronize()
            b = start.elapsed_time(end)
            if i == 0:  # warm-up
                if f + b > 250:
                    n = max(5, min(ACTIVE, int(5000 / (f + b))))
                continue
            fws.append(f)
            bws.append(b)
            if len(fws) >= n:
                break
        k = SAMPLE if len(fws) == ACTIVE else max(1, len(fws) // 5)
        fw = sum(sorted(fws)[:k]) / k
        bw = sum(sorted(bws)[:k]) / k
        rec = {"num_layer": n_layer, "e2e_latency": fw + bw, "fw_latency": fw, "bwall_latency": bw,
               "runs_ms": [a + b for a, b in zip(fws, bws)], "fw_runs_ms": fws, "bw_runs_ms": bws,
               "fastest_averaged": k}
    rec["parameters"] = params
    rec["attn_implementation"] = impl
    del model
    gc.collect()
    torch.cuda.empty_cache()
    return rec


def sample_dims(data_dir, op, n, rng):
    seen, rows = set(), []
    cols = DIMS.get(op, ["B", "H"])
    for f in sorted((Path(data_dir) / "ops" / op).glob("*.csv.gz")):
        with gzip.open(f, "rt", newline="") as fh:
            for r in csv.DictReader(fh):
                key = tuple(int(r[c]) for c in cols)
                if key not in seen:
                    seen.add(key)
                    rows.append(key)
    rows.sort()
    rng.shuffle(rows)
    return cols, rows[:n]


def op_fn(op, dim):
    scalar = 0.7
    if op in MM_OPS:
        b, m, n, k = dim
        x = torch.randn(b, m, n, device="cuda")
        if op == "bmm":
            y = torch.randn(b, n, k, device="cuda")
            return lambda: torch.bmm(x, y)
        lin = torch.nn.Linear(n, k, bias=True, device="cuda")
        return lambda: lin(x)
    if op == "conv":
        b, ic, oc, ks, isz, st, pad = dim
        x = torch.zeros(b, ic, isz, isz, device="cuda")
        conv = torch.nn.Conv2d(ic, oc, ks, stride=st, padding=pad, bias=False, device="cuda")
        return lambda: conv(x)
    b, h = dim
    x = torch.zeros(b, h, device="cuda")
    if op in BINARY:
        y = torch.zeros(b, h, device="cuda")
        f = {"add": torch.add, "mul": torch.mul, "div": torch.div, "pow": torch.pow}[op]
        return lambda: f(x, y)
    if op == "ln":
        ln = torch.nn.LayerNorm(h, device="cuda")
        return lambda: ln(x)
    f = {
        "addu": lambda: torch.add(x, scalar), "mulu": lambda: torch.mul(x, scalar),
        "divu": lambda: torch.div(x, scalar), "powu": lambda: torch.pow(x, scalar),
        "relu": lambda: torch.relu(x), "gelu": lambda: torch.nn.functional.gelu(x),
        "tanh": lambda: torch.tanh(x), "softmax": lambda: torch.softmax(x, dim=-1),
    }[op]
    return f


def measure_op(fn):
    """An op's time as NeuSight's collect.py takes it (no_grad, the mean of the 5 fastest of 25
    runs); an op whose first run takes over 100 ms is timed once."""
    with torch.no_grad():
        return timed_runs(fn, budget_s=0, slow_ms=100, least=1)[0]


def spec_sheet(props, args):
    """NeuSight's spec format: the device's own SM count and L2; the datasheet's bandwidth,
    clock and fp32 lanes per SM (--mem-bw, --freq, --cores-per-sm), and memory (--mem-gb, else
    the device's)."""
    sms = props.multi_processor_count
    l2 = getattr(props, "L2_cache_size", 0) / (1 << 20)
    spec = {
        "Device": torch.cuda.get_device_name(),
        "Dev_Mem": args.mem_gb or round(props.total_memory / 2**30),  # GiB, as wb reads the field
        "Mem_Bw": args.mem_bw,
        "Num_Sm": sms,
        "Core_Per_SM": args.cores_per_sm,
        "Freq": args.freq,
        "SingleFLOPs": round(sms * args.cores_per_sm * 2 * args.freq / 1000),
        "L2Cache": round(l2),
    }
    return spec


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="datasets/data/neusight", help="NeuSight layout with models/ and ops/ (shapes)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--progress", help="also append every result as a JSON line here")
    ap.add_argument("--mem-bw", type=float, required=True, help="datasheet memory bandwidth, GB/s")
    ap.add_argument("--freq", type=float, required=True, help="datasheet boost clock, MHz")
    ap.add_argument("--cores-per-sm", type=int, required=True, help="fp32 lanes per SM")
    ap.add_argument("--mem-gb", type=float, default=0, help="datasheet memory, GB (default: what the device reports)")
    ap.add_argument("--label-budget", type=float, default=180, help="seconds for the labels")
    ap.add_argument("--ops-per-family", type=int, default=60)
    ap.add_argument("--ops-budget", type=float, default=90, help="seconds for the ops")
    ap.add_argument("--ops-from", type=int, default=0, help="start at this round of the drawn shapes (to add to an earlier run's)")
    ap.add_argument("--labels", default="", help="model-mode-seq-batch,... (default: the list above)")
    args = ap.parse_args()

    if not torch.cuda.is_available():
        sys.exit("neusight_measure: no CUDA device")
    props = torch.cuda.get_device_properties(0)
    gpu = torch.cuda.get_device_name().replace(" ", "_")
    out = Path(args.out)
    (out / "devices").mkdir(parents=True, exist_ok=True)
    (out / "labels" / gpu).mkdir(parents=True, exist_ok=True)
    spec = spec_sheet(props, args)
    sheet = out / "devices" / f"{gpu}.json"
    if args.ops_from == 0 or not sheet.exists():  # a later run of ops keeps the first run's sheet
        sheet.write_text(json.dumps(spec, indent=4) + "\n")
    env = {"gpu": gpu, "torch": torch.__version__, "cuda": torch.version.cuda,
           "cudnn": torch.backends.cudnn.version(), "sms": props.multi_processor_count,
           "l2_bytes": getattr(props, "L2_cache_size", None), "memory_bytes": props.total_memory,
           "capability": f"{props.major}.{props.minor}", "spec": spec}
    try:
        import transformers
        env["transformers"] = transformers.__version__
    except Exception as e:
        env["transformers"] = repr(e)
    try:
        env["nvidia_smi"] = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,temperature.gpu,clocks.sm",
                                            "--format=csv"], capture_output=True, text=True, timeout=20).stdout
    except Exception as e:
        env["nvidia_smi"] = repr(e)
    env_name = "env.json" if args.ops_from == 0 else f"env-ops-from-{args.ops_from}.json"
    (out / env_name).write_text(json.dumps(env, indent=2) + "\n")
    log("env", json.dumps(env))
    progress(args.progress, {"env": env})

    # Warm the clocks: five seconds of large products.
    a = torch.randn(8192, 8192, device="cuda")
    t0 = time.time()
    while time.time() - t0 < 5:
        a @ a
        torch.cuda.synchronize()
    del a

    labels = DEFAULT_LABELS
    if args.labels:
        labels = []
        for s in args.labels.split(","):
            m, mode, seq, b = s.rsplit("-", 3)
            labels.append((m, mode, int(seq), int(b)))
    t0 = time.time()
    for (m, mode, seq, b) in labels:
        if time.time() - t0 > args.label_budget:
            log("label budget spent: skip", m, mode, seq, b)
            continue
        name = f"{m}-{mode}-{seq}-{b}"
        try:
            t1 = time.time()
            rec = measure_label(args.data + "/models", m, mode, seq, b)
            (out / "labels" / gpu / f"{name}.json").write_text(json.dumps(rec, indent=4) + "\n")
            log(name, f"e2e {rec['e2e_latency']:.2f} ms", f"({len(rec['runs_ms'])} runs, {time.time()-t1:.1f} s, {rec['parameters']} params, {rec['attn_implementation']})")
            progress(args.progress, {"label": name, **rec})
        except Exception as e:
            log(name, "FAILED", repr(e)[:500])
            progress(args.progress, {"label": name, "error": repr(e)[:2000]})
            gc.collect()
            torch.cuda.empty_cache()

    rng = random.Random(17)
    plan = {}
    for op in OPS:
        try:
            plan[op] = sample_dims(args.data, op, args.ops_per_family, rng)
        except Exception as e:
            log("ops", op, "no shapes", repr(e))
    rows = {op: [] for op in plan}
    t0 = time.time()
    # Round-robin over the families, so that a spent budget leaves each with as many.
    for i in range(args.ops_from, args.ops_per_family):
        if time.time() - t0 > args.ops_budget:
            log("ops budget spent after", i, "rounds")
            break
        for op, (cols, dims) in plan.items():
            if i >= len(dims):
                continue
            dim = dims[i]
            try:
                lat = measure_op(op_fn(op, dim))
                row = {"OPName": op, "Latency": lat, "Device": torch.cuda.get_device_name(),
                       "Torch Version": "p" + torch.__version__.split("+")[0]}
                row.update(dict(zip(cols, dim)))
                rows[op].append(row)
            except Exception as e:
                if "out of memory" not in str(e):
                    log("op", op, dim, "FAILED", repr(e)[:300])
            gc.collect()
            torch.cuda.empty_cache()
    for op, rs in rows.items():
        if not rs:
            continue
        d = out / "ops" / op
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"{gpu}.csv"
        add = args.ops_from > 0 and path.exists()  # --ops-from adds to an earlier run's rows
        with open(path, "a" if add else "w", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(rs[0].keys()))
            if not add:
                w.writeheader()
            w.writerows(rs)
        log("ops", op, len(rs))
    progress(args.progress, {"ops": {op: len(rs) for op, rs in rows.items()}})


if __name__ == "__main__":
    main()
