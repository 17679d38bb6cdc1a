#!/usr/bin/env bash
# GPU validation of wb's CUDA profiler backend (issue "CUDA profiler backend"). Run on a machine
# with an NVIDIA GPU, CUDA, cuDNN, cuBLAS and PyTorch, from a wb binary built elsewhere:
#
#   make build                      # where Go is
#   bash scripts/gpu-check.sh       # on the GPU machine, from the repository root (make gpu-check)
#
# Writes everything under ${OUT:-gpu-check}/: wb devices, the 8192³ bf16 GEMM profiled by wb,
# ResNet-50 profiles (batch 32 and 128, fwd and bwd, bf16 and fp32), and PyTorch's timings of
# the same layer shapes with wb/torch per layer (scripts/torch_reference.py).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-gpu-check}
WB=${WB:-bin/wb}
mkdir -p "$OUT"
if [ ! -x "$WB" ]; then
  echo "gpu-check: $WB missing: build it with 'make build' (Go is not needed on the GPU machine)" >&2
  exit 1
fi
log() { echo "gpu-check: $*"; }

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

log "PyTorch reference"
python3 scripts/torch_reference.py --gemm 8192 --wb-gemm "$OUT/gemm-bf16.csv" \
  --profile "$OUT/resnet50-bf16.csv" --profile "$OUT/resnet50-fp32.csv" --iteration resnet50 \
  | tee "$OUT/torch-reference.txt"
