# wb — see README.md. `make demo` runs the main job on bundled data; `make test` runs every test.
GO      ?= go
GOFLAGS := -buildvcs=auto
BIN     := bin/wb
export GOFLAGS

.PHONY: build test bench demo lint fuzz race clean

build:
	$(GO) build -o $(BIN) ./cmd/wb

# Every test: Go tests (with the readers' fuzz seed corpora), then the Slurm
# path on a private Slurm (root only; skipped with a message otherwise) and the
# notebooks executed (failing where Jupyter is missing, unless SKIP_NOTEBOOK=1).
# go test's own vet pass is off: `go vet ./...` has just run every analyser, and
# go test's subset would analyse every package and its dependencies again (20 s
# of a cold build on 2 cores). The longest packages go first (go test runs
# packages in the order named, each once), so that both cores stay busy to the
# end: in ./...'s order the scheduler package, named last, ran its last 20 s alone.
SLOW_TESTS := ./experiments ./cmd/wb/app ./predictor/gpu ./scheduler ./predictor ./profiler/cpu \
	./predictor/gavelcheck ./profiler/onednn
test:
	$(GO) vet ./...
	$(GO) test -vet=off -count=1 -timeout 5m $(SLOW_TESTS) ./...
	$(MAKE) --no-print-directory test-slurm
	$(MAKE) --no-print-directory test-notebook

# End-to-end test of `wb experiment --slurm` on a real, private Slurm (root only;
# installs Debian's slurm and munge if missing): see scripts/slurm-test.sh.
.PHONY: test-slurm
test-slurm: build
	bash scripts/slurm-test.sh

# Capacity planning held to its targets: configs/plan.yaml's K80, P100 and V100 clusters
# simulated with predicted throughputs must give every mean JCT within 10% of the simulation
# with Gavel's measured ones, and rank the clusters alike (Kendall's tau >= 0.8). Not part
# of `make test` (whose tests pin what wb does); it prints the comparison either way.
.PHONY: plan-check
plan-check:
	$(GO) test -count=1 -tags plancheck -run '^TestPlanTargets$$' -v ./experiments

# Issue 18's check: the CPU profiles against PyTorch on this machine. Profiles resnet50,
# bert-base and lm afresh (every pass, batch TORCH_CHECK_BATCH), times the same layer passes
# with Debian's PyTorch (python3-torch) on as many threads, and fails unless every model has
# >= 85% of its layer passes within +-15% of PyTorch's (scripts/torch_reference.py --device cpu).
# The two programs take turns: TORCH_CHECK_SITTINGS sittings, each profiling the models with wb
# and then timing PyTorch's rows (--save-runs, half the script's default budget and runs a row,
# as four sittings give each row twice its default in all), and the comparison takes each row's
# 10th percentile in every sitting and the lowest of them, for both programs, so that the machine's
# drift over the minutes falls on both alike (one sitting of each, minutes apart, compared the
# machine as much as the programs). TORCH_CHECK_STAT=min compares the fastest runs instead, which
# leans towards wb: the fastest of its hundreds of runs a row against the fastest of PyTorch's 25. PyTorch's first
# half of the sittings against its second half, and wb's, are printed beside: the ceiling the
# machine allows now. --call-cost also times each op and pass on its smallest shape (PyTorch's
# fixed cost per call) and prints the share with that cost added to wb's kernels: a
# decomposition, not the score. Not part of `make test`; run it on an otherwise idle machine.
TORCH_CHECK_DIR           ?= results/torch-check
TORCH_CHECK_MODELS        ?= resnet50 bert-base lm
TORCH_CHECK_BATCH         ?= 1
TORCH_CHECK_BACKEND       ?= auto
TORCH_CHECK_PROFILE_FLAGS ?=
TORCH_CHECK_SITTINGS      ?= 4
TORCH_CHECK_STAT          ?= p10
TORCH_PYTHON              ?= /usr/bin/python3
.PHONY: torch-check
torch-check: build
	@$(TORCH_PYTHON) -c 'import torch' 2>/dev/null || { \
	  echo "torch-check: $(TORCH_PYTHON) cannot import torch: install Debian's PyTorch (apt-get install python3-torch)," \
	       "or set TORCH_PYTHON to an interpreter that has it" >&2; exit 1; }
	rm -rf $(TORCH_CHECK_DIR)/sittings && mkdir -p $(TORCH_CHECK_DIR)/sittings
	for i in $$(seq 1 $(TORCH_CHECK_SITTINGS)); do \
	  for m in $(TORCH_CHECK_MODELS); do \
	    $(BIN) profile $$m --backend $(TORCH_CHECK_BACKEND) --batch $(TORCH_CHECK_BATCH) --pass fwd,bwd,update \
	      --no-cache -q $(TORCH_CHECK_PROFILE_FLAGS) --out $(TORCH_CHECK_DIR)/sittings/$$m.$$i.csv || exit 1; \
	  done; \
	  $(TORCH_PYTHON) scripts/torch_reference.py --device cpu --budget 0.1 --reps 25 --stat $(TORCH_CHECK_STAT) \
	    $(foreach m,$(TORCH_CHECK_MODELS),--profile $(TORCH_CHECK_DIR)/sittings/$(m).$$i.csv) \
	    --save-runs $(TORCH_CHECK_DIR)/sittings/torch.$$i.json || exit 1; \
	done
	$(TORCH_PYTHON) scripts/torch_reference.py --device cpu --self-check --call-cost --stat $(TORCH_CHECK_STAT) \
	  $$(for i in $$(seq 1 $(TORCH_CHECK_SITTINGS)); do echo --load-runs $(TORCH_CHECK_DIR)/sittings/torch.$$i.json; done) \
	  $$(for i in $$(seq 1 $(TORCH_CHECK_SITTINGS)); do for m in $(TORCH_CHECK_MODELS); do echo --profile $(TORCH_CHECK_DIR)/sittings/$$m.$$i.csv; done; done) \
	  --csv-out $(TORCH_CHECK_DIR)/compare.csv --fail-below 0.85

# Re-measure the bundled CPU profiles (datasets/profiles/cpu-*.csv) on the oneDNN backend with
# wb's CPU defaults, each model on its own (scripts/profile-bundled.sh; about an hour on 2 cores).
# Run it on an otherwise idle machine.
.PHONY: profiles
profiles: build
	bash scripts/profile-bundled.sh

# The learned correction's full cross-validation on the bundled profiles, the
# figures of docs/prediction.md's "Learned correction": nested leave-one-model-out and the other splits (5 min 51 s on the 2-core Xeon VM, 2026-12-02; longer on a loaded machine).
.PHONY: bench-predictor
bench-predictor:
	$(GO) test -v -run '^$$' -bench '^BenchmarkTrainBundled$$' -benchtime 1x -timeout 60m ./predictor

# The learned correction on a model no design decision saw: gpt2 (datasets/profiles/blind/),
# profiled after the features, sweeps and settings were fixed, held out as every model is in the
# nested evaluation, beside the 13 models and 15 sweeps (about 20 min on 2 cores); its row in the
# per-model table is the blind figure.
BLIND_DIR ?= results/blind-check
.PHONY: blind-check
blind-check: build
	mkdir -p $(BLIND_DIR)
	$(BIN) train datasets/profiles/*.csv datasets/profiles/blind/*.csv --out $(BLIND_DIR)/predictor.json
	$(BIN) evaluate $(BLIND_DIR)/predictor.json datasets/profiles/*.csv datasets/profiles/blind/*.csv --split model --nested --out $(BLIND_DIR)

# Benchmarks of the simulator on the bundled traces (compare runs with benchstat).
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 6 ./scheduler/... ./datasets/... ./experiments/... | tee bench.txt

# Peak memory of EASY on a trace of MEMJOBS jobs (HPC2N repeated); not part of `make test`.
MEMJOBS ?= 10000000
.PHONY: memory-check
memory-check: build
	bash scripts/memory-check.sh $(MEMJOBS)

# The main job: FCFS vs EASY vs conservative backfilling on KTH-SP2 and HPC2N,
# swept over load (results/backfill: CSVs, manifest.json, figures/).
demo: build
	$(BIN) experiment configs/backfill.yaml

# GPU validation of the CUDA profiler backend: on a machine with an NVIDIA GPU, CUDA and PyTorch,
# from a bin/wb built elsewhere (see scripts/gpu-check.sh). Not part of `make test`.
.PHONY: gpu-check gpu-build
gpu-check:
	bash scripts/gpu-check.sh

# What gpu-check needs from a machine with Go: bin/wb and the CUDA backend's test binary.
gpu-build: build
	$(GO) test -c -o bin/cuda.test ./profiler/cuda

.PHONY: test-notebook
test-notebook: build
	bash scripts/notebook-test.sh

# The GPU op model left one GPU out on NeuSight's labels (results/neusight/predictions.csv).
.PHONY: validate-gpu
validate-gpu: build
	$(BIN) predict --validate neusight datasets/data/neusight --out results/neusight

# Measure the GPU of this machine as NeuSight measured its five (whole iterations of the bundled
# models, fp32, and 60 ops of each family), in its layout, then score wb on it from the spec sheet
# alone. Needs PyTorch and transformers; the datasheet figures the device cannot report are
# arguments: make measure-gpu MEM_BW=4800 FREQ=1980 CORES_PER_SM=128 [MEM_GB=141]. About 5 min
# on an H200 (scripts/neusight_measure.py --help).
MEASURE_DIR ?= results/measured-gpu
.PHONY: measure-gpu
measure-gpu: build
	python3 scripts/neusight_measure.py --out $(MEASURE_DIR) --mem-bw $(MEM_BW) --freq $(FREQ) \
	  --cores-per-sm $(CORES_PER_SM) $(if $(MEM_GB),--mem-gb $(MEM_GB)) --label-budget 3600 --ops-per-family 60 --ops-budget 600
	$(BIN) predict --validate neusight $(MEASURE_DIR) --ops --out $(MEASURE_DIR)/wb

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt -w these:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

# Every package's tests under the race detector, the long ones short (-short):
# long on 2 cores (predictor/gavelcheck alone took 4.3 min). Not part of `make test`.
race:
	$(GO) test -race -short -count=1 -timeout 60m ./...

# Each reader's fuzz test for FUZZTIME (the seed corpora run in `make test`).
FUZZTIME ?= 30s
fuzz:
	@for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "$$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

clean:
	rm -rf bin results
