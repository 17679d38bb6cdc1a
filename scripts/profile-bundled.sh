#!/usr/bin/env bash
# Re-measures the bundled CPU profiles (datasets/profiles/cpu-*.csv) with wb's
# CPU defaults on the oneDNN backend: each model on its own, --no-cache, so
# identical layers of different models are independent measurements. Run it
# on an otherwise idle machine (make profiles); it takes about an hour on 2 cores (the 23 profiles of 2026-11-29 34 min, the twelve sweeps added later 28.5).
set -euo pipefail
WB=${WB:-bin/wb}
OUT=${OUT:-datasets/profiles}
BACKEND=${BACKEND:-onednn}
run() { # model batches file
  echo "== $1 batch $2 -> $3" >&2
  /usr/bin/time -f "   %e s" "$WB" profile "$1" --batch "$2" --pass fwd,bwd,update --backend "$BACKEND" \
    --no-cache --quiet --out "$OUT/$3"
}
for spec in "resnet18-cifar 1,8" "alexnet 1,4" "lm 5,20" "recommendation 32,128" \
            "transformer-translation 8" "resnet50 1" "a3c 20" \
            "resnet18 1,4" "vgg16 1" "inception_v3 1" "bert-base 1" "transformer 1" "cyclegan 1"; do
  set -- $spec
  run "$1" "$2" "cpu-$1.csv"
done
for spec in "transformer-translation 2" "a3c 5" "bert-base 4" "transformer 4" "resnet50 2" \
            "vgg16 2" "inception_v3 2"; do
  set -- $spec
  run "$1" "$2" "cpu-$1-b$2.csv"
done
for spec in "linear 120" "lstm 60" "conv2d 80" "matmul 80" "softmax 60" "layernorm 60" "dropout 60" \
            "batchnorm 80" "maxpool 60" "avgpool 60" "globalavgpool 40" "concat 60" "embedding 40"; do
  set -- $spec
  run "sweep:$1:$2" "1,8" "cpu-sweep-$1.csv"
done
# a second draw of the two ops with the most shapes (seed 2)
for spec in "linear 120" "conv2d 120"; do
  set -- $spec
  run "sweep:$1:$2:2" "1,8" "cpu-sweep-$1-2.csv"
done
