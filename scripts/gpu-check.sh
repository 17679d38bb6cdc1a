#!/usr/bin/env bash
# GPU validation of wb's CUDA profiler backend (issue "CUDA profiler backend"). Run on a machine
# with an NVIDIA GPU, CUDA, cuDNN, cuBLAS and PyTorch, from a wb binary built elsewhere:
#
#   make gpu-build                  # where Go is: bin/wb and bin/cuda.test (the backend's tests)
#   bash scripts/gpu-check.sh       # on the GPU machine, from the repository root (make gpu-check)
#
# Writes everything under ${OUT:-gpu-check}/: the backend's GPU tests (every library call the
# backend makes: conv2d, linear, matmul, batchnorm, activations, pooling, softmax, add, dropout, and
# NVRTC's compile of wb's kernels for gelu, leakyrelu and layernorm; each pass,
# fp32 and bf16, warm and --cold-cache; with `go` here, or bin/cuda.test), wb devices, the 8192³
# bf16 GEMM profiled by wb, ResNet-50 profiles (batch 32 and 128, fwd and bwd, bf16 and fp32, and
# bf16 with --cold-cache), BERT-base, Inception-v3 and CycleGAN profiles (softmax, matmul, tanh, dropout,
# gelu, layernorm, the update, avgpool, leakyrelu),
# a check that every op the backend runs was measured with its algorithm recorded
# (scripts/gpu_profile_check.py), and PyTorch's timings of the same layer shapes with wb/torch per
# layer (scripts/torch_reference.py; the rows it cannot time are counted and listed).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-check}
WB=${WB:-bin/wb}
mkdir -p "$OUT"
if [ ! -x "$WB" ]; then
  echo "gpu-check: $WB missing: build it with 'make gpu-build' (Go is not needed on the GPU machine)" >&2
  exit 1
fi
log() { echo "gpu-check: $*"; }

log "the backend's GPU tests (every cuDNN, cuBLASLt and driver call it makes)"
if command -v go >/dev/null 2>&1; then
  go test -count=1 -run 'GPU|NewOnThisMachine' -v ./profiler/cuda/ 2>&1 | tee "$OUT/cuda-tests.txt" || log "GPU tests FAILED (see $OUT/cuda-tests.txt)"
elif [ -x bin/cuda.test ]; then
  (cd profiler/cuda && ../../bin/cuda.test -test.count=1 -test.run 'GPU|NewOnThisMachine' -test.v) 2>&1 | tee "$OUT/cuda-tests.txt" || log "GPU tests FAILED (see $OUT/cuda-tests.txt)"
else
  log "no go and no bin/cuda.test (make gpu-build): GPU tests not run"
fi

log "devices"
"$WB" devices | tee "$OUT/devices.txt"

log "8192³ bf16 GEMM"
"$WB" profile gemm:8192 --batch 8192 --pass fwd --precision bf16 --backend cuda --no-cache \
  --out "$OUT/gemm-bf16.csv" | tee "$OUT/gemm.txt"

for prec in bf16 fp32; do
  log "resnet50, batch 32 and 128, fwd+bwd, $prec"
  start=$SECONDS
  "$WB" profile resnet50 --batch 32,128 --pass fwd,bwd --precision "$prec" --backend cuda --no-cache \
    --out "$OUT/resnet50-$prec.csv" | tee "$OUT/resnet50-$prec.txt"
  log "resnet50 $prec profiled in $((SECONDS - start)) s (target ≤ 60 s for one precision)"
done

log "resnet50, batch 32 and 128, fwd+bwd, bf16, --cold-cache (L2 flushed before each run)"
"$WB" profile resnet50 --batch 32,128 --pass fwd,bwd --precision bf16 --backend cuda --no-cache --cold-cache \
  --out "$OUT/resnet50-bf16-cold.csv" | tee "$OUT/resnet50-bf16-cold.txt"

log "bert-base (softmax, matmul, tanh, add, dropout, gelu, layernorm, the SGD update), batch 8 and 32, fwd+bwd+update, bf16"
"$WB" profile bert-base --batch 8,32 --pass fwd,bwd,update --precision bf16 --backend cuda --no-cache \
  --out "$OUT/bert-base-bf16.csv" | tee "$OUT/bert-base-bf16.txt"

log "inception_v3 (avgpool, concat), batch 32, fwd+bwd, fp16"
"$WB" profile inception_v3 --batch 32 --pass fwd,bwd --precision fp16 --backend cuda --no-cache \
  --out "$OUT/inception_v3-fp16.csv" | tee "$OUT/inception_v3-fp16.txt"

log "cyclegan (leakyrelu, instancenorm, pad, upsample), batch 4, fwd+bwd, fp32"
"$WB" profile cyclegan --batch 4 --pass fwd,bwd --precision fp32 --backend cuda --no-cache \
  --out "$OUT/cyclegan-fp32.csv" | tee "$OUT/cyclegan-fp32.txt"

log "every op the backend runs measured, with its algorithm; cold vs warm"
python3 scripts/gpu_profile_check.py "$OUT/resnet50-fp32.csv" "$OUT/bert-base-bf16.csv" "$OUT/inception_v3-fp16.csv" "$OUT/cyclegan-fp32.csv" \
  --cold "$OUT/resnet50-bf16-cold.csv" --warm "$OUT/resnet50-bf16.csv" | tee "$OUT/profile-check.txt" \
  || log "profile check found problems (see $OUT/profile-check.txt)"

log "PyTorch reference"
python3 scripts/torch_reference.py --gemm 8192 --wb-gemm "$OUT/gemm-bf16.csv" \
  --profile "$OUT/resnet50-bf16.csv" --profile "$OUT/resnet50-fp32.csv" \
  --profile "$OUT/bert-base-bf16.csv" --profile "$OUT/inception_v3-fp16.csv" --profile "$OUT/cyclegan-fp32.csv" --iteration resnet50 \
  | tee "$OUT/torch-reference.txt"
