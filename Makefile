# wb — see README.md. `make demo` runs the main job on bundled data; `make test` runs every test.
GO      ?= go
GOFLAGS := -buildvcs=auto
BIN     := bin/wb
export GOFLAGS

.PHONY: build test bench demo lint fuzz clean

build:
	$(GO) build -o $(BIN) ./cmd/wb

test:
	$(GO) vet ./...
	$(GO) test -count=1 ./...

# Benchmarks of the simulator on the bundled traces (compare runs with benchstat).
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 6 ./scheduler/... ./datasets/... ./experiments/... | tee bench.txt

demo: build
	$(BIN) simulate --trace datasets/data/swf/KTH-SP2-1996-2.1-cln.swf.gz --backfill easy --estimate user --out results/demo/kth-easy
	$(BIN) simulate --trace datasets/data/openb/openb_pod_list_default.csv.gz --placement best-fit --out results/demo/openb-bestfit

lint:
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

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
