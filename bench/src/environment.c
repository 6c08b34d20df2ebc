/* The environment record: what a results file says about where and how it was measured.
 *
 * Everything goes into Google Benchmark's JSON `context` through AddCustomContext, so a results
 * file stands alone: commit and dirty flag (git, run in the source tree), compiler, flags and
 * build type (captured by CMake), library versions (hwloc, jansson and CUDA at run time,
 * Google Benchmark as built against, glibc, mimalloc, jemalloc), host, kernel, CPU model and
 * count, frequency governor and boost, the NUMA layout and the hwloc topology exported as XML
 * beside the JSON, the GPUs ("none" with the reason), the seeds and the profile. A fact that
 * cannot be read is recorded as "unknown" or "unavailable", never left out. */
#define _GNU_SOURCE
#include <gnu/libc-version.h>
#include <hwloc.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "arenaref/arena.h"
#include "bench.h"
#include "bench_config.h"

#ifdef ARENAREF_BENCH_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif
#ifdef ARENAREF_BENCH_HAVE_MIMALLOC
int mi_version(void);
#endif
#ifdef ARENAREF_BENCH_HAVE_JEMALLOC
int mallctl(char const *name, void *old, size_t *old_length, void *new_value, size_t new_length);
#endif

static void context(char const *key, char const *value) {
    gb_add_custom_context(key, value && *value ? value : "unknown");
}

/* The first line of a command's output, without its newline; "" when it fails. */
static void command_line(char const *command, char *out, size_t capacity) {
    out[0] = 0;
    FILE *pipe = popen(command, "r");
    if (!pipe) return;
    if (!fgets(out, (int)capacity, pipe)) out[0] = 0;
    out[strcspn(out, "\n")] = 0;
    pclose(pipe);
}

static void first_line_of(char const *path, char *out, size_t capacity) {
    out[0] = 0;
    FILE *file = fopen(path, "r");
    if (!file) return;
    if (!fgets(out, (int)capacity, file)) out[0] = 0;
    out[strcspn(out, "\n")] = 0;
    fclose(file);
}

static void cpu_model(char *out, size_t capacity) {
    out[0] = 0;
    FILE *file = fopen("/proc/cpuinfo", "r");
    if (!file) return;
    char line[512];
    while (fgets(line, sizeof line, file)) {
        if (strncmp(line, "model name", 10) == 0) {
            char const *colon = strchr(line, ':');
            if (colon) {
                snprintf(out, capacity, "%s", colon + 2);
                out[strcspn(out, "\n")] = 0;
            }
            break;
        }
    }
    fclose(file);
}

static void record_git(void) {
    char commit[128], status[256], command[1024];
    char const *from_env = getenv("ARENAREF_COMMIT");
    snprintf(command, sizeof command, "git -C '%s' rev-parse HEAD 2>/dev/null",
             ARENAREF_BENCH_SOURCE_DIR);
    command_line(command, commit, sizeof commit);
    if (from_env && *from_env) snprintf(commit, sizeof commit, "%s", from_env);
    context("arenaref_commit", commit);
    char const *dirty_env = getenv("ARENAREF_DIRTY");
    if (dirty_env && *dirty_env) {
        context("arenaref_dirty", dirty_env);
        return;
    }
    snprintf(command, sizeof command,
             "git -C '%s' status --porcelain --untracked-files=no 2>/dev/null | head -1",
             ARENAREF_BENCH_SOURCE_DIR);
    command_line(command, status, sizeof status);
    context("arenaref_dirty", commit[0] ? (status[0] ? "true" : "false") : "unknown");
}

static void record_topology(char const *topology_xml) {
    hwloc_topology_t topology;
    char text[256];
    if (hwloc_topology_init(&topology) != 0 || hwloc_topology_load(topology) != 0) {
        context("topology", "unavailable (hwloc could not load it)");
        return;
    }
    snprintf(text, sizeof text, "%d NUMA nodes, %d packages, %d cores, %d PUs",
             hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_NUMANODE),
             hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PACKAGE),
             hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_CORE),
             hwloc_get_nbobjs_by_type(topology, HWLOC_OBJ_PU));
    context("topology", text);
    if (topology_xml && *topology_xml) {
        if (hwloc_topology_export_xml(topology, topology_xml, 0) == 0) {
            char const *slash = strrchr(topology_xml, '/');
            context("topology_xml", slash ? slash + 1 : topology_xml);
        } else {
            context("topology_xml", "unavailable (export failed)");
        }
    }
    hwloc_topology_destroy(topology);
}

static void record_gpus(void) {
#ifdef ARENAREF_BENCH_HAVE_CUDA
    char text[1024] = "";
    int runtime = 0, driver = 0, count = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    snprintf(text, sizeof text, "runtime %d.%d, driver %d.%d", runtime / 1000, runtime % 1000 / 10,
             driver / 1000, driver % 1000 / 10);
    context("cuda_version", text);
    cudaError_t error = cudaGetDeviceCount(&count);
    if (error != cudaSuccess || count == 0) {
        snprintf(text, sizeof text, "none (%s)",
                 error != cudaSuccess ? cudaGetErrorString(error) : "no CUDA device");
        context("gpus", text);
        return;
    }
    size_t used = 0;
    for (int i = 0; i != count && used < sizeof text; ++i) {
        struct cudaDeviceProp properties;
        if (cudaGetDeviceProperties(&properties, i) != cudaSuccess) continue;
        used += (size_t)snprintf(
            text + used, sizeof text - used, "%s%d: %s, sm_%d%d, %.1f GiB, %d SMs", i ? "; " : "",
            i, properties.name, properties.major, properties.minor,
            (double)properties.totalGlobalMem / (1u << 30), properties.multiProcessorCount);
    }
    context("gpus", text);
#else
    context("cuda_version", "none (built without CUDA)");
    context("gpus", "none (built without CUDA)");
#endif
}

void bench_record_environment(char const *topology_xml) {
    char text[512];
    record_git();
    context("compiler", ARENAREF_BENCH_C_COMPILER);
    context("cxx_compiler", ARENAREF_BENCH_CXX_COMPILER);
    context("c_flags", ARENAREF_BENCH_C_FLAGS);
    context("build_type", ARENAREF_BENCH_BUILD_TYPE);
    context("sanitizers", ARENAREF_BENCH_SANITIZE[0] ? ARENAREF_BENCH_SANITIZE : "none");
    context("benchmark_version", gb_library_version());
    unsigned hwloc = hwloc_get_api_version();
    snprintf(text, sizeof text, "%u.%u.%u", hwloc >> 16, (hwloc >> 8) & 0xff, hwloc & 0xff);
    context("hwloc_api_version", text);
    context("hwloc_version", ARENAREF_BENCH_HWLOC_PKG_VERSION);
    context("jansson_version", jansson_version_str());
    context("glibc_version", gnu_get_libc_version());
#ifdef ARENAREF_BENCH_HAVE_MIMALLOC
    int mi = mi_version();
    snprintf(text, sizeof text, "%d.%d.%d", mi / 100, mi / 10 % 10, mi % 10);
    context("mimalloc_version", text);
#else
    context("mimalloc_version", "none (not linked)");
#endif
#ifdef ARENAREF_BENCH_HAVE_JEMALLOC
    char const *je = NULL;
    size_t je_length = sizeof je;
    context("jemalloc_version", mallctl("version", &je, &je_length, NULL, 0) == 0 ? je : "unknown");
#else
    context("jemalloc_version", "none (not linked)");
#endif
    if (gethostname(text, sizeof text) == 0) context("arenaref_host", text);
    struct utsname names;
    if (uname(&names) == 0) {
        snprintf(text, sizeof text, "%s %s %s", names.sysname, names.release, names.machine);
        context("kernel", text);
    }
    cpu_model(text, sizeof text);
    context("cpu_model", text);
    snprintf(text, sizeof text, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    context("cpu_count", text);
    first_line_of("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", text, sizeof text);
    context("cpu_governor", text[0] ? text : "unavailable (no cpufreq in this machine)");
    first_line_of("/sys/devices/system/cpu/cpufreq/boost", text, sizeof text);
    if (text[0]) {
        context("cpu_boost", strcmp(text, "1") == 0 ? "on" : "off");
    } else {
        first_line_of("/sys/devices/system/cpu/intel_pstate/no_turbo", text, sizeof text);
        context("cpu_boost",
                text[0] ? (strcmp(text, "0") == 0 ? "on (intel_pstate)" : "off (intel_pstate)")
                        : "unavailable (no cpufreq boost control in this machine)");
    }
    record_topology(topology_xml);
    record_gpus();
    snprintf(text, sizeof text, "workloads seed %u; arena stream seed %u; jansson hash seed %u",
             BENCH_WORKLOAD_SEED, BENCH_STREAM_SEED, BENCH_JSON_SEED);
    context("seeds", text);
    context("profile", bench_profile.name);
    snprintf(text, sizeof text, "%g", bench_slowdown_factor());
    context("planted_slowdown", text);
    snprintf(text, sizeof text, "%g", bench_extra_pass());
    context("planted_extra_pass", text);
}
