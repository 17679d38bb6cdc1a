# Executes notebooks/backfill.ipynb, prediction.ipynb and sharing.ipynb from a clean kernel and
# fails if any cell raises.
#
#   scripts/notebook-test.sh          # from any directory
#
# Builds bin/wb if it is missing (`make test-notebook` builds it first) and brings each
# experiment a notebook reads (backfill; prediction and gavel-prediction; sharing) up to date
# with `bin/wb experiment configs/NAME.yaml --resume`: wb keeps the runs stored under the
# config's hash, so nothing is simulated again unless the config changed (then the
# results are made again with --force), runs are missing, or another build of wb made
# them (each run file records its binary's SHA-256). An experiment whose results
# directory is set in the environment (WB_RESULTS for backfill, WB_PREDICTION_RESULTS,
# WB_GAVEL_RESULTS, WB_SHARING_RESULTS) is used as is. The executed copies go to a
# temporary directory: the notebooks in the repository keep their outputs cleared.
#
# Needs Jupyter's nbconvert, ipykernel, pandas and matplotlib (scipy optional). When
# they are missing: with CI set, installs the Debian packages with apt-get (as root,
# or with sudo) and goes on; otherwise fails, saying what to install; SKIP_NOTEBOOK=1
# skips the notebooks on purpose.
set -euo pipefail
cd "$(dirname "$0")/.."

NOTEBOOKS=(notebooks/backfill.ipynb notebooks/prediction.ipynb notebooks/sharing.ipynb)
DEB_PACKAGES=(jupyter-nbconvert python3-nbconvert python3-ipykernel python3-pandas
  python3-matplotlib python3-nbformat python3-scipy)

# A Python with nbconvert and what the notebook imports. Debian's /usr/bin/python3
# first: a python3 earlier on PATH (pyenv, a venv) often has none of them, and the
# Debian kernel spec runs /usr/bin/python3 anyway.
find_python() {
  local py
  for py in /usr/bin/python3 python3; do
    if command -v "$py" >/dev/null 2>&1 &&
      "$py" -c 'import nbconvert, nbformat, ipykernel, pandas, matplotlib' >/dev/null 2>&1; then
      command -v "$py"
      return 0
    fi
  done
  return 1
}

if ! PY=$(find_python); then
  if [ -n "${CI:-}" ]; then
    echo "notebook-test: installing ${DEB_PACKAGES[*]}" >&2
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${DEB_PACKAGES[@]}"
    PY=$(find_python) || { echo "notebook-test: nbconvert still not importable after apt-get" >&2; exit 1; }
  elif [ -n "${SKIP_NOTEBOOK:-}" ]; then
    echo "notebook-test: SKIPPED (SKIP_NOTEBOOK is set): the notebooks were not executed" >&2
    exit 0
  else
    echo "notebook-test: FAILED: Jupyter nbconvert, ipykernel, pandas or matplotlib is missing." >&2
    echo "  install them with: apt-get install -y --no-install-recommends ${DEB_PACKAGES[*]}" >&2
    echo "  (or set CI=1 to let this script install them, or SKIP_NOTEBOOK=1 to skip the notebooks)" >&2
    exit 1
  fi
fi

ensure_wb() {
  [ -x bin/wb ] && return 0
  if ! command -v go >/dev/null 2>&1 && [ -x /usr/local/go/bin/go ]; then
    export PATH="/usr/local/go/bin:$PATH"
  fi
  command -v go >/dev/null 2>&1 || { echo "notebook-test: bin/wb is missing and Go is not installed" >&2; exit 1; }
  echo "notebook-test: building bin/wb" >&2
  go build -o bin/wb ./cmd/wb
}
# experiment name and the variable that, when set, names its results directory instead
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for pair in backfill:WB_RESULTS prediction:WB_PREDICTION_RESULTS gavel-prediction:WB_GAVEL_RESULTS sharing:WB_SHARING_RESULTS; do
  name=${pair%%:*}
  var=${pair#*:}
  [ -n "${!var:-}" ] && continue
  ensure_wb
  start=$SECONDS
  if ! bin/wb experiment "configs/$name.yaml" --resume --quiet >/dev/null 2>"$out/err"; then
    if grep -q -e "results of another config" -e "as it was before it changed" "$out/err"; then
      echo "notebook-test: configs/$name.yaml changed since results/$name was made: making it again" >&2
      bin/wb experiment "configs/$name.yaml" --force --quiet >/dev/null
    else
      cat "$out/err" >&2
      exit 1
    fi
  fi
  echo "notebook-test: results/$name up to date with configs/$name.yaml ($((SECONDS - start)) s)" >&2
done
export PYDEVD_DISABLE_FILE_VALIDATION=1  # quiets the kernel debugger's start-up note
# The notebooks run one after another: side by side, their kernels could pick
# the same ports and one die at start ("Address already in use": a reviewer
# saw it once in three runs). Each one's output is printed once it is done,
# and any that failed fails the script.
failed=0
for NB in "${NOTEBOOKS[@]}"; do
  echo "notebook-test: executing $NB with $PY" >&2
  log="$out/$(basename "$NB").log"
  start=$SECONDS
  # nbconvert exits non-zero when a cell raises (allow_errors is off by default);
  # the kernel runs in the notebook's directory, so ../results/NAME/ resolves.
  if "$PY" -m nbconvert --to notebook --execute \
    --ExecutePreprocessor.kernel_name=python3 --ExecutePreprocessor.timeout=600 \
    --output-dir "$out" "$NB" >"$log" 2>&1; then
    echo "notebook-test: $NB ok ($((SECONDS - start)) s)" >>"$log"
    cat "$log" >&2
  else
    failed=1
    cat "$log" >&2
    echo "notebook-test: $NB FAILED (its output above)" >&2
  fi
done
exit $failed
