// gbench.cc: the C shim over Google Benchmark 1.7.1 (see gbench.h).
//
// The opaque C types are the library's own objects behind a cast: gb_state_t* is a
// benchmark::State*, gb_benchmark_t* the pointer RegisterBenchmark returns (its type moved
// between versions, so it is taken with decltype, never named). Each C benchmark is registered
// as a capturing lambda that calls the C function with its user data.
// Under callgrind (scripts/bench --instructions) the shim counts instructions of the timed loop's
// body only: collection is toggled on when gb_keep_running lets an iteration start and off when
// the next call (or a pause, or a skip) ends it; after each run a dump labelled with the
// benchmark's name and iteration count closes that run's count (see bench/README.md).
#include "gbench.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>
#include <string>
#include <vector>

#if defined(__has_include)
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define GB_HAVE_CALLGRIND 1
#endif
#endif

#ifndef ARENAREF_BENCHMARK_VERSION
#define ARENAREF_BENCHMARK_VERSION "unknown"
#endif

namespace {

using plain_function_t = void (*)(benchmark::State &);
using registered_t = decltype(benchmark::RegisterBenchmark("", plain_function_t{}));

benchmark::State &state_of(gb_state_t *state) {
    return *reinterpret_cast<benchmark::State *>(state);
}
benchmark::State const &state_of(gb_state_t const *state) {
    return *reinterpret_cast<benchmark::State const *>(state);
}
registered_t handle_of(gb_benchmark_t *benchmark) {
    return reinterpret_cast<registered_t>(benchmark);
}
gb_benchmark_t *handle_from(registered_t benchmark) {
    return reinterpret_cast<gb_benchmark_t *>(benchmark);
}

benchmark::Counter::Flags counter_flags(int flags) {
    int result = benchmark::Counter::kDefaults;
    if (flags & gb_counter_rate_k) result |= benchmark::Counter::kIsRate;
    if (flags & gb_counter_avg_iterations_k) result |= benchmark::Counter::kAvgIterations;
    if (flags & gb_counter_iteration_invariant_k)
        result |= benchmark::Counter::kIsIterationInvariant;
    if (flags & gb_counter_avg_threads_k) result |= benchmark::Counter::kAvgThreads;
    return static_cast<benchmark::Counter::Flags>(result);
}

// What the shim knows of each registered benchmark: how many arguments each of its runs gets,
// so gb_range can refuse an index past them (the library would read out of bounds).
struct registration_t {
    std::string name;
    gb_function_t function;
    void *user_data;
    size_t arity;
};
thread_local registration_t const *running = nullptr;

registration_t *registration_of(registered_t benchmark);
// Never destroyed: the registrations live as long as the library's, to the end of the process
// (and stay reachable, so leak checkers do not report them).
std::vector<std::pair<registered_t, registration_t *>> &registrations() {
    static auto *all = new std::vector<std::pair<registered_t, registration_t *>>;
    return *all;
}
registration_t *registration_of(registered_t benchmark) {
    for (auto &entry : registrations())
        if (entry.first == benchmark) return entry.second;
    return nullptr;
}
void set_arity(gb_benchmark_t *benchmark, size_t arity) {
    if (registration_t *record = registration_of(handle_of(benchmark))) record->arity = arity;
}

// ---- Instruction counting under callgrind ----------------------------------------------------
// Natively each toggle is one test of a flag read once; under valgrind, a client request. Only
// when asked (ARENAREF_CALLGRIND_REGIONS=1, as scripts/bench --instructions does): a plain
// callgrind run of the suite profiles everything, as callgrind does by default.
#ifdef GB_HAVE_CALLGRIND
bool under_callgrind() {
    static int const regions = RUNNING_ON_VALGRIND && getenv("ARENAREF_CALLGRIND_REGIONS") &&
                               strcmp(getenv("ARENAREF_CALLGRIND_REGIONS"), "1") == 0;
    return regions != 0;
}
#else
bool under_callgrind() { return false; }
#endif
thread_local bool collecting = false;
constexpr int callgrind_repetitions_k = 3;
} // namespace
// The executable's counting allocator (ref/tools/counting_malloc.c) lays each region out afresh,
// so a region's count follows from its own calls; weak, for programs linked without it.
extern "C" __attribute__((weak)) void arp_counting_malloc_region(bool begin);
namespace {
// Instrumentation is switched on only for the region too (valgrind --instr-atstart=no), so the
// set-up around it (plan generation, warm-up passes) runs at a few times native speed.
void region_begin() {
    if (!under_callgrind() || collecting) return;
    collecting = true;
    if (arp_counting_malloc_region) arp_counting_malloc_region(true);
#ifdef GB_HAVE_CALLGRIND
    CALLGRIND_START_INSTRUMENTATION;
    CALLGRIND_TOGGLE_COLLECT;
#endif
}
void region_end() {
    if (!collecting) return;
    collecting = false;
#ifdef GB_HAVE_CALLGRIND
    CALLGRIND_TOGGLE_COLLECT;
    CALLGRIND_STOP_INSTRUMENTATION;
#endif
    if (arp_counting_malloc_region) arp_counting_malloc_region(false);
}
// Closes one run: the dump's label names the benchmark and its iterations, so scripts/bench can
// divide the run's instructions by them and match the dump with the run's JSON entry.
void run_dump(char const *name, benchmark::State const &state) {
    region_end();
    if (!under_callgrind()) return;
#ifdef GB_HAVE_CALLGRIND
    std::string label = std::string("arenaref-run iterations=") +
                        std::to_string(state.iterations()) +
                        (state.error_occurred() ? " skipped" : "") + " name=" + name;
    CALLGRIND_DUMP_STATS_AT(label.c_str());
#else
    (void)name, (void)state;
#endif
}

// Under callgrind nothing the run's times decide may allocate between regions: a report's text
// length follows the time it prints, which leaves glibc's free lists in a different state for
// the next run's region (its count then moved by ~0.03% between runs). So the console gets only
// the names, and the results file's reporter gets the context and the runs at the end.
class names_reporter_t : public benchmark::BenchmarkReporter {
  public:
    bool ReportContext(Context const &) override { return true; }
    void ReportRuns(std::vector<Run> const &runs) override {
        for (Run const &run : runs)
            std::printf("%s (under callgrind)\n", run.benchmark_name().c_str());
        std::fflush(stdout);
    }
};
class deferred_reporter_t : public benchmark::BenchmarkReporter {
  public:
    bool ReportContext(Context const &context) override {
        context_ = &context; // lives in the library's run loop, past Finalize
        runs_.reserve(4096);
        return true;
    }
    void ReportRuns(std::vector<Run> const &runs) override {
        runs_.insert(runs_.end(), runs.begin(), runs.end());
    }
    void Finalize() override {
        target_.SetOutputStream(&GetOutputStream());
        target_.SetErrorStream(&GetErrorStream());
        if (context_) target_.ReportContext(*context_);
        target_.ReportRuns(runs_);
        target_.Finalize();
    }

  private:
    benchmark::JSONReporter target_;
    Context const *context_ = nullptr;
    std::vector<Run> runs_;
};

} // namespace

extern "C" {

// What scripts/bench --instructions looks for in a binary before it counts with callgrind.
__attribute__((used)) char const gb_callgrind_regions_marker[] =
    "arenaref-gbench-callgrind-regions-v1";

bool gb_counting_instructions(void) { return under_callgrind(); }

bool gb_keep_running(gb_state_t *state, int64_t batch) {
    region_end();
    bool more = state_of(state).KeepRunningBatch(batch < 1 ? 1 : batch);
    if (more) region_begin();
    return more;
}
int64_t gb_range(gb_state_t *state, size_t index) {
    if (!running || index >= running->arity) {
        fprintf(stderr, "gbench: gb_range(%zu) of a benchmark registered with %zu arguments\n",
                index, running ? running->arity : 0);
        return 0;
    }
    return state_of(state).range(index);
}
int64_t gb_iterations(gb_state_t const *state) { return state_of(state).iterations(); }
void gb_pause_timing(gb_state_t *state) {
    region_end();
    state_of(state).PauseTiming();
}
void gb_resume_timing(gb_state_t *state) {
    state_of(state).ResumeTiming();
    region_begin();
}
void gb_set_iteration_time(gb_state_t *state, double seconds) {
    state_of(state).SetIterationTime(seconds);
}
void gb_skip_with_error(gb_state_t *state, char const *message) {
    region_end();
    state_of(state).SkipWithError(message ? message : "skipped");
}
bool gb_error_occurred(gb_state_t const *state) { return state_of(state).error_occurred(); }
void gb_set_counter(gb_state_t *state, char const *name, double value, int flags) {
    state_of(state).counters[name] = benchmark::Counter(value, counter_flags(flags));
}
void gb_set_items_processed(gb_state_t *state, int64_t items) {
    state_of(state).SetItemsProcessed(items);
}
void gb_set_bytes_processed(gb_state_t *state, int64_t bytes) {
    state_of(state).SetBytesProcessed(bytes);
}
void gb_set_label(gb_state_t *state, char const *label) {
    state_of(state).SetLabel(label ? label : "");
}

gb_benchmark_t *gb_register(char const *name, gb_function_t function, void *user_data) {
    if (!name || !function) return nullptr;
    try {
        auto *record = new registration_t{name, function, user_data, 0};
        auto run = [record](benchmark::State &state) {
            registration_t const *outer = running;
            running = record;
            // Counted, the run's set-up is laid out afresh too: what it leaves for the timed
            // loop (a plan's strings, say) then sits where its own calls put it.
            bool const fresh = under_callgrind() && arp_counting_malloc_region;
            if (fresh) arp_counting_malloc_region(true);
            record->function(reinterpret_cast<gb_state_t *>(&state), record->user_data);
            running = outer;
            run_dump(record->name.c_str(), state);
            if (fresh) arp_counting_malloc_region(false);
        };
        registered_t benchmark = benchmark::RegisterBenchmark(name, run);
        registrations().emplace_back(benchmark, record); // lives as long as the registration
        return handle_from(benchmark);
    } catch (std::bad_alloc const &) {
        return nullptr;
    }
}

gb_benchmark_t *gb_arg(gb_benchmark_t *b, int64_t value) {
    set_arity(b, 1);
    return handle_from(handle_of(b)->Arg(value));
}
gb_benchmark_t *gb_args(gb_benchmark_t *b, int64_t const *values, size_t count) {
    set_arity(b, count);
    return handle_from(handle_of(b)->Args(std::vector<int64_t>(values, values + count)));
}
gb_benchmark_t *gb_arg_name(gb_benchmark_t *b, char const *name) {
    return handle_from(handle_of(b)->ArgName(name));
}
gb_benchmark_t *gb_range_bounds(gb_benchmark_t *b, int64_t low, int64_t high) {
    set_arity(b, 1);
    return handle_from(handle_of(b)->Range(low, high));
}
gb_benchmark_t *gb_range_multiplier(gb_benchmark_t *b, int multiplier) {
    return handle_from(handle_of(b)->RangeMultiplier(multiplier));
}
gb_benchmark_t *gb_iterations_fixed(gb_benchmark_t *b, int64_t iterations) {
    return handle_from(handle_of(b)->Iterations(iterations));
}
gb_benchmark_t *gb_unit(gb_benchmark_t *b, gb_time_unit_t unit) {
    benchmark::TimeUnit units[] = {benchmark::kNanosecond, benchmark::kMicrosecond,
                                   benchmark::kMillisecond, benchmark::kSecond};
    return handle_from(
        handle_of(b)->Unit(units[unit <= gb_time_unit_s_k ? unit : gb_time_unit_ns_k]));
}
gb_benchmark_t *gb_use_real_time(gb_benchmark_t *b) {
    return handle_from(handle_of(b)->UseRealTime());
}
gb_benchmark_t *gb_use_manual_time(gb_benchmark_t *b) {
    return handle_from(handle_of(b)->UseManualTime());
}
gb_benchmark_t *gb_min_time(gb_benchmark_t *b, double seconds) {
    return handle_from(handle_of(b)->MinTime(seconds));
}
gb_benchmark_t *gb_repetitions(gb_benchmark_t *b, int repetitions) {
    // Under callgrind counts repeat exactly: 3 runs (the first may pay a cold start) are enough.
    if (under_callgrind() && repetitions > callgrind_repetitions_k)
        repetitions = callgrind_repetitions_k;
    return handle_from(handle_of(b)->Repetitions(repetitions));
}

void gb_add_custom_context(char const *key, char const *value) {
    benchmark::AddCustomContext(key ? key : "", value ? value : "");
}
char const *gb_library_version(void) { return ARENAREF_BENCHMARK_VERSION; }

int gb_main(int argc, char **argv) {
    bool has_out = false; // read before Initialize takes the library's flags out of argv
    for (int i = 1; i < argc; ++i) has_out |= std::strncmp(argv[i], "--benchmark_out=", 16) == 0;
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    if (under_callgrind()) {
        names_reporter_t names;
        deferred_reporter_t file;
        if (has_out)
            benchmark::RunSpecifiedBenchmarks(&names, &file);
        else
            benchmark::RunSpecifiedBenchmarks(&names);
    } else {
        benchmark::RunSpecifiedBenchmarks();
    }
    benchmark::Shutdown();
    return 0;
}

} // extern "C"
