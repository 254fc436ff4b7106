# The two set-up commands of the README:
#   make run    builds orrery (release) and starts `orrery daemon` on the default data
#               directory; ARGS runs something else: `make run ARGS="cron explain '0 9 * * 1-5'"`
#   make test   builds everything under ASan+UBSan and runs every test, with a
#               throwaway PostgreSQL cluster (scripts/with-postgres) for the tests
#               that need one
# Also: make bench-guard (the short regression guard of the daemon's per-run cost, CI),
# make release-check (the release build with tests and benchmarks, compiled only),
# make fuzz (libFuzzer, FUZZ_SECONDS each), make bench (benchmarks, release build),
# make bench-pg (claims on a throwaway durable PostgreSQL cluster, PG_BENCH_FLAGS).

JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60
ARGS ?= daemon
GENERATOR := -G Ninja

.PHONY: run build release-check test fuzz bench bench-guard bench-pg deps format clean

deps:
	@scripts/install-deps

# One Release tree (build/release) for the binary, the benchmarks and
# release-check: the libraries are compiled once for all three.
RELEASE_CONFIGURE := cmake -S . -B build/release $(GENERATOR) -DCMAKE_BUILD_TYPE=Release \
	-DORRERY_TESTS=ON -DORRERY_BENCH=ON >/dev/null

build: deps
	@$(RELEASE_CONFIGURE)
	@cmake --build build/release --target orrery -j $(JOBS)

# The Release configuration with the tests and benchmarks, compiled and linked
# but not run: GCC's -O3 warnings are errors there as well.
release-check: deps
	@$(RELEASE_CONFIGURE)
	@cmake --build build/release -j $(JOBS)

run: build
	./build/release/orrery $(ARGS)

test: deps
	@cmake -S . -B build/asan $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DORRERY_SANITIZE=ON \
		-DORRERY_BENCH=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" >/dev/null
	@cmake --build build/asan -j $(JOBS)
	cd build/asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		../../scripts/with-postgres ctest --output-on-failure -j $(JOBS)

fuzz:
	@scripts/install-deps --fuzz
	@CXX=clang++ cmake -S . -B build/fuzz $(GENERATOR) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DORRERY_SANITIZE=ON -DORRERY_FUZZ=ON -DORRERY_TESTS=OFF -DORRERY_BENCH=OFF \
		-DCMAKE_CXX_FLAGS="-fsanitize=fuzzer-no-link" >/dev/null
	@cmake --build build/fuzz -j $(JOBS) --target fuzz_cron fuzz_duration fuzz_time fuzz_scrubber \
		fuzz_usage fuzz_usage_limit fuzz_workflow_spec fuzz_goal_update fuzz_prompt_template
	@scripts/run-fuzzers build/fuzz $(FUZZ_SECONDS)

BENCH_FLAGS ?= --benchmark_repetitions=5 --benchmark_report_aggregates_only=true --benchmark_min_time=0.5

BENCH_TARGETS := orrery cron_bench store_bench workflow_spec_bench
bench: deps
	@$(RELEASE_CONFIGURE)
	@cmake --build build/release --target $(BENCH_TARGETS) -j $(JOBS)
	for b in build/release/bench/*_bench; do \
		[ $$b = build/release/bench/pg_claims_bench ] || taskset -c 0 $$b $(BENCH_FLAGS) || exit 1; \
	done
	python3 bench/workflow_bench.py build/release/orrery

# The short regression guard (docs/benchmarks.md, "The regression guard"): the CPU
# of one run, the dispatch latency and the sustained rate, each a ratio to a floor
# measured in the same run; fails when one is 2.5 times worse than today's.
bench-guard: build
	python3 bench/run_guard.py build/release/orrery

# Claims on PostgreSQL beside the raw-SQL floor (docs/benchmarks.md): 20,000 jobs,
# 1, 4 and 8 clients, medians of 3 runs unless PG_BENCH_FLAGS says otherwise.
PG_BENCH_FLAGS ?=
bench-pg: deps
	@$(RELEASE_CONFIGURE)
	@cmake --build build/release --target pg_claims_bench -j $(JOBS)
	bench/pg_claims_bench.sh build/release/bench/pg_claims_bench $(PG_BENCH_FLAGS)

# The daemon's crash-safety soak (scripts/soak): 20 loops, the daemon killed and
# restarted at random for SOAK_SECONDS, then every slot checked.
SOAK_SECONDS ?= 60
.PHONY: soak soak-pg
soak: build
	SOAK_SECONDS=$(SOAK_SECONDS) scripts/soak build/release/orrery

# The same on PostgreSQL with SOAK_RUNNERS daemons sharing a throwaway cluster's
# database (scripts/with-postgres), random daemons killed, with their supervisors
# at times.
SOAK_RUNNERS ?= 3
soak-pg: build
	SOAK_SECONDS=$(SOAK_SECONDS) SOAK_RUNNERS=$(SOAK_RUNNERS) scripts/with-postgres \
		sh -c 'SOAK_DB="$$ORRERY_TEST_PG" exec scripts/soak build/release/orrery'

format:
	clang-format -i $$(git ls-files '*.cc' '*.h')

clean:
	rm -rf build
