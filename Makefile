# Makefile — the front door: bootstrap, build, test, demo, install.
# CMake does the real work; see CMakeLists.txt.
#
#   make            bootstrap + build in build/ (gcc, -O2 -g, -Werror)
#   make test       build/ with gcc, then build-asan/ with clang + ASan/UBSan;
#                   ctest in both; fails if either fails
#   make test-gpu   build with the device suite registered (-DACC_GPU_TESTS=ON),
#                   ctest -L cuda (device-free: NVRTC, the fake driver), then
#                   the device suite (ctest -L gpu) when the CUDA backend is
#                   available, else one line saying it was SKIPPED and why
#                   (docs/CUDA.md); never reported as passed without a GPU
#   make gpu-check  on a lent GPU machine: every core, test-gpu then bench-gpu,
#                   each logged into $OUT (or build/gpu-check), with a summary
#   make demo       build, then run every program in DEMOS and CPP_DEMOS
#                   (examples/cpp, the C++ binding), then the
#                   accel command-line tool on examples/demo.acc, then the
#                   Python example (examples/python/demo.py), the Rust
#                   examples (bindings/rust)
#   make fuzz-diff  build, then the differential fuzzer (docs/TESTING.md) on
#                   random seeds for $(FUZZ_SECONDS) s (default 600):
#                   FUZZ_SECONDS=3600 make fuzz-diff; FUZZ_ARGS adds options
#                   (--avoid none, --seed N, --data N, --no-cuda, ...)
#   make install    cmake --install build --prefix $(PREFIX) (the library, its
#                   header, the C++ binding's headers, and the Python package
#                   for /usr/bin/python3)
#   make clean      remove the build trees

ifeq ($(origin CC),default)
CC := gcc
endif
ASAN_CC ?= clang
# The C++ binding (bindings/cpp) builds with g++ in build/ and clang++ in
# build-asan/, so `make test` compiles and runs its tests with both.
ifeq ($(origin CXX),default)
CXX := g++
endif
ASAN_CXX ?= clang++
JOBS    ?= 2
PREFIX  ?= /usr/local
BUILD      ?= build
BUILD_ASAN ?= build-asan
CMAKE   ?= cmake
CTEST   ?= ctest
# Warnings are errors here and in CI; tools/gpu-check.sh turns that off on a
# lent machine whose compiler differs (its log still lists the warnings).
WERROR  ?= ON
# More cmake options for configure and test-gpu (tools/gpu-check.sh: where
# .cache/gpu-deps is, tools/gpu-deps.sh).
CMAKE_ARGS ?=
# The device suite runs GPU_JOBS test programs at a time, each with GPU_JOBS
# Criterion workers: every worker holds a CUDA context (hundreds of MiB of
# device memory), and 16 x 16 of them ran an H100 out of memory.
GPU_JOBS ?= 4
# The differential fuzzer: how long, and more options (tests/fuzz/diff).
FUZZ_SECONDS ?= 600
FUZZ_ARGS ?=
# Programs from examples/ that `make demo` runs, in order.
DEMOS   ?= dotp histogram foreign_dot user_kernel
# C++ programs from examples/cpp/ that `make demo` runs (bindings/cpp).
CPP_DEMOS ?= dotp language4

ASAN_ENV = ASAN_OPTIONS=detect_leaks=1 \
           UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

banner = @printf '\n==================== %s ====================\n' $(1)

.PHONY: all bootstrap build configure build-asan test test-gcc test-asan test-gpu gpu-check \
        demo bench bench-gpu install clean symbols fuzz-diff

all: build

bootstrap:
	@tools/bootstrap.sh

configure: bootstrap
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_C_COMPILER=$(CC) \
	    -DCMAKE_CXX_COMPILER=$(CXX) \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACC_WERROR=$(WERROR) -DACC_SANITIZE=OFF \
	    -DACC_ALLOC_FAIL=ON $(CMAKE_ARGS)

build: configure
	$(CMAKE) --build $(BUILD) -j$(JOBS)

build-asan: bootstrap
	$(CMAKE) -S . -B $(BUILD_ASAN) -DCMAKE_C_COMPILER=$(ASAN_CC) \
	    -DCMAKE_CXX_COMPILER=$(ASAN_CXX) -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
	    -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g" \
	    -DACC_WERROR=ON -DACC_SANITIZE=ON -DACC_ALLOC_FAIL=ON
	$(CMAKE) --build $(BUILD_ASAN) -j$(JOBS)

# The device suite (label gpu) is never part of `make test`.
test-gcc: build
	$(call banner,"tests: $(BUILD)/ ($(CC))")
	cd $(BUILD) && $(CTEST) -LE gpu --output-on-failure

test-asan: build-asan
	$(call banner,"tests: $(BUILD_ASAN)/ ($(ASAN_CC) + AddressSanitizer + UBSan)")
	cd $(BUILD_ASAN) && $(ASAN_ENV) $(CTEST) -LE gpu --output-on-failure

# Both runs happen even when the first fails; the target fails if either did.
test:
	@rc=0; \
	$(MAKE) --no-print-directory test-gcc || rc=1; \
	$(MAKE) --no-print-directory test-asan || rc=1; \
	if [ $$rc -eq 0 ]; then \
	    printf '\n==================== make test: all passed ====================\n'; \
	else \
	    printf '\n==================== make test: FAILED (see above) ====================\n'; \
	fi; \
	exit $$rc

# The CUDA tests that need no device (ctest label cuda: NVRTC and the fake
# driver), then the device suite (ctest label gpu: tests/gpu/ and the
# language and fusion suites on the CUDA backend against the interpreter)
# when `accel info` says the CUDA backend is available; otherwise one line
# says it was skipped and why.  Nothing is reported as passed on a GPU
# unless it ran on one.
test-gpu: bootstrap
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_C_COMPILER=$(CC) \
	    -DCMAKE_CXX_COMPILER=$(CXX) \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DACC_WERROR=$(WERROR) -DACC_SANITIZE=OFF \
	    -DACC_ALLOC_FAIL=ON $(CMAKE_ARGS) \
	    -DACC_GPU_TESTS=ON
	$(CMAKE) --build $(BUILD) -j$(JOBS)
	$(call banner,"tests: ctest -L '^cuda$$' in $(BUILD)/ (no device needed)")
	cd $(BUILD) && $(CTEST) -L '^cuda$$' --output-on-failure
	@line=$$($(BUILD)/bin/accel info 2>/dev/null | grep '^  cuda '); \
	reason=$$(printf '%s' "$$line" | sed -n 's/^  cuda *[a-z]*: *//p'); \
	case "$$line" in \
	*" yes: "*) \
	    printf '\n==================== tests: ctest -L gpu (%s) ====================\n' "$$reason"; \
	    (cd $(BUILD) && CRITERION_JOBS=$(GPU_JOBS) $(CTEST) -L gpu -j$(GPU_JOBS) \
	        --output-on-failure > gpu-suite.log 2>&1); rc=$$?; \
	    cat $(BUILD)/gpu-suite.log; \
	    if [ $$rc -ne 0 ]; then \
	        printf '\nmake test-gpu: device suite FAILED (%s)\n' "$$reason"; exit 1; \
	    elif grep -q 'tests did not run' $(BUILD)/gpu-suite.log; then \
	        printf '\nmake test-gpu: device suite FAILED: tests skipped where the CUDA backend is available (%s)\n' "$$reason"; exit 1; \
	    else \
	        printf '\nmake test-gpu: device suite PASSED on a GPU (%s)\n' "$$reason"; \
	    fi ;; \
	*) printf '\nmake test-gpu: device suite SKIPPED, nothing ran on a GPU (%s)\n' \
	       "$${reason:-accel info gave no reason}" ;; \
	esac

# The one command for a session lent a GPU (tools/gpu-check.sh).
gpu-check:
	@tools/gpu-check.sh

demo: build
	@set -e; for d in $(DEMOS); do \
	    printf '\n==================== demo: %s ====================\n' "$$d"; \
	    ACC_PLUGIN_PATH=$(CURDIR)/$(BUILD)/plugins ./$(BUILD)/examples/$$d; \
	done
	@set -e; for d in $(CPP_DEMOS); do \
	    printf '\n==================== demo: C++ %s ====================\n' "$$d"; \
	    ACC_PLUGIN_PATH=$(CURDIR)/$(BUILD)/plugins ./$(BUILD)/examples/cpp/$$d; \
	done
	$(call banner,"demo: accel run (text programs, docs/CLI.md)")
	@tools/accel/demo.sh $(BUILD)
	$(call banner,"demo: Python (examples/python/demo.py, bindings/python/)")
	ACCEL_LIBRARY=$(CURDIR)/$(BUILD)/libaccel.so.1 PYTHONPATH=$(CURDIR)/bindings/python \
	    /usr/bin/python3 examples/python/demo.py
	$(call banner,"demo: Rust (bindings/rust/accel/examples, cmake/AccelRust.cmake)")
	@$(CMAKE) --build $(BUILD) --target rust_examples
	$(call banner,"demo: Julia (bindings/julia; runs only where julia exists)")
	@CC=$(CC) bindings/julia/tools/demo.sh $(BUILD)

# Benchmarks (bench/README.md): a table on stdout, a CSV in $(BUILD); then
# numpy and numba on the same workloads and sizes, joined to accel's rows
# (bench/python/peers.py; says so where numpy or numba is not installed).
# bootstrap-bench installs the peers (python3-numba: heavy, so not part of
# the bootstrap every target runs, nor of make test); after bootstrap, so
# that two apt-get never run at once under make -j.
.PHONY: bootstrap-bench
bootstrap-bench: bootstrap
	@tools/bootstrap.sh --bench

bench: build bootstrap-bench
	$(call banner,"bench: accel against hand-written baselines")
	ACC_PLUGIN_PATH=$(CURDIR)/$(BUILD)/plugins \
	    ./$(BUILD)/bench/accel_bench $(BUILD)/bench-results.csv
	$(call banner,"bench: numpy and numba on the same workloads")
	/usr/bin/python3 bench/python/peers.py $(BUILD)/bench-results.csv \
	    $(BUILD)/bench-peers.csv

# The Python binding's per-call overhead against C and numpy (bench/README.md).
.PHONY: bench-python
bench-python: build
	$(call banner,"bench-python: dotp called from Python against C and numpy")
	/usr/bin/python3 bench/python/overhead.py $(BUILD)

# Distributed figures (docs/DISTRIBUTED.md): the heat and SMVM examples on
# 1 and 2 ranks, each collective by message size on 2, and the model
# fitted to them (bench/mpi_model.py).  Needs Open MPI (make bootstrap).
MPI_ENV = OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
.PHONY: bench-mpi
bench-mpi: build
	$(call banner,"bench-mpi: the mpi examples on 1 and 2 ranks and the collectives by size")
	@test -x $(BUILD)/bench/mpi_bench || { echo "bench-mpi: MPI was not found when configuring (make bootstrap)"; exit 1; }
	rm -f $(BUILD)/bench-mpi.csv
	$(MPI_ENV) mpirun -np 1 $(BUILD)/bench/mpi_bench apps examples/mpi $(BUILD)/bench-mpi.csv
	$(MPI_ENV) mpirun -np 2 $(BUILD)/bench/mpi_bench apps examples/mpi $(BUILD)/bench-mpi.csv
	$(MPI_ENV) mpirun -np 2 $(BUILD)/bench/mpi_bench collectives $(BUILD)/bench-mpi.csv
	/usr/bin/python3 bench/mpi_model.py $(BUILD)/bench-mpi.csv

# Benchmarks on a GPU (bench/README.md): the CUDA backend against cuBLAS
# and hand-written CUDA; says why and measures nothing without a device.
bench-gpu: build
	$(call banner,"bench-gpu: accel on CUDA against cuBLAS and hand-written CUDA")
	./$(BUILD)/bench/gpu_bench $(BUILD)/bench-gpu-results.csv

# Random programs on every backend against the interpreter (docs/TESTING.md):
# progress, counts per backend and operation class, and for each failing
# seed the command that reproduces it.  Fails when a seed failed.
fuzz-diff: build
	$(call banner,"fuzz-diff: $(FUZZ_SECONDS) s of random programs")
	./$(BUILD)/tests/fuzz/diff/fuzz_diff --seconds $(FUZZ_SECONDS) $(FUZZ_ARGS)

install: build
	$(CMAKE) --install $(BUILD) --prefix $(PREFIX)

# Regenerate abi/accel.symbols after adding functions to accel.h.
symbols:
	tests/abi/update_symbols.sh

clean:
	rm -rf $(BUILD) $(BUILD_ASAN)
