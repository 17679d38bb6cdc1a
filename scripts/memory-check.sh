#!/usr/bin/env bash
# Peak memory (RSS) and wall time of `wb simulate --backfill easy` on an SWF
# trace of N jobs: HPC2N's 202,871 jobs repeated, each copy shifted by the
# trace's span (same load, same job mix), written to a temporary folder.
# Usage: scripts/memory-check.sh [JOBS]   (default 10,000,000: about 770 MB
# of SWF, 2 GB of outputs; needs GNU time, /usr/bin/time).
set -euo pipefail
jobs=${1:-10000000}
bin=${WB:-bin/wb}
src=datasets/data/swf/HPC2N-2002-2.1-cln.swf.gz
[ -x "$bin" ] || { echo "memory-check: $bin not built (make build)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "memory-check: needs GNU time (apt install time)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
zcat "$src" | awk -v n="$jobs" '
  /^;/ { print; next }
  NF >= 18 { rec[++m] = $0; span = $2 + 1 }
  END {
    for (i = 0; i < n; ) for (k = 1; k <= m && i < n; k++) {
      split(rec[k], f, " "); i++
      f[1] = sprintf("%.0f", i); f[2] = sprintf("%.0f", f[2] + int((i - 1) / m) * span)
      line = f[1]; for (x = 2; x <= 18; x++) line = line " " f[x]; print line
    }
  }' > "$tmp/trace.swf"
echo "memory-check: $jobs jobs, $(du -h "$tmp/trace.swf" | cut -f1) of SWF"
/usr/bin/time -f 'memory-check: peak RSS %M KiB, %e s wall, %U s user' \
  "$bin" simulate --trace "$tmp/trace.swf" --backfill easy --out "$tmp/out" | grep -E '^(jobs|wait)'
