/* A malloc/free tracer to preload (LD_PRELOAD): each allocation and release of the program goes
 * to the allocator that comes next (dlsym RTLD_NEXT) and is recorded in ARENAREF_TRACE_OUT (%p the
 * pid, %e the executable's name; never overwritten). A call costs one atomic add, which gives its
 * slot in the file and in the global order, and a 16-byte store into the file mapped shared: no
 * lock, no buffer to flush, nothing lost at _exit. Nothing here allocates; calls made while dlsym
 * resolves the allocator are served from a static buffer. The on-switch sits on a page wiped on
 * fork, so a forked child records nothing into its parent's file (an exec'd one starts afresh). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace_format.h"

#define EXPORT __attribute__((visibility("default")))

static struct {
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
    void *(*memalign)(size_t, size_t);
    int (*posix_memalign)(void **, size_t, size_t);
    void *(*aligned_alloc)(size_t, size_t);
    void *(*valloc)(size_t);
    void *(*pvalloc)(size_t);
} real;

/* Calls made while dlsym runs (it may allocate) get memory from here; it is never released. */
static _Alignas(16) char bootstrap[1 << 16];
static size_t bootstrap_used;
static __thread int resolving __attribute__((tls_model("initial-exec")));

static arp_trace_header_t *header;
static char *chunks[ARP_TRACE_MAX_CHUNKS];
static int trace_fd = -1;
static int start_state; /* 0 not tried, 1 starting, 2 done (on or off) */
static int *on;         /* on a MADV_WIPEONFORK page: 0 again in a forked child */
static int on_fallback; /* where that page could not be had */
static int stress;      /* ARENAREF_TRACE_STRESS=1: yield before each slot (tests widen races) */

static void say(char const *a, char const *b) {
    (void)!write(2, "arenaref-tracer: ", 17);
    (void)!write(2, a, strlen(a));
    if (b) (void)!write(2, b, strlen(b));
    (void)!write(2, "\n", 1);
}

static void resolve(void) {
    resolving = 1;
    real.malloc = dlsym(RTLD_NEXT, "malloc");
    real.calloc = dlsym(RTLD_NEXT, "calloc");
    real.realloc = dlsym(RTLD_NEXT, "realloc");
    real.free = dlsym(RTLD_NEXT, "free");
    real.memalign = dlsym(RTLD_NEXT, "memalign");
    real.posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    real.aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
    real.valloc = dlsym(RTLD_NEXT, "valloc");
    real.pvalloc = dlsym(RTLD_NEXT, "pvalloc");
    resolving = 0;
    if (!real.malloc || !real.calloc || !real.realloc || !real.free) {
        say("no next allocator to forward to (dlsym RTLD_NEXT failed)", NULL);
        _exit(127);
    }
}

static void *bootstrap_alloc(size_t size) {
    size_t need = (size + 31) & ~(size_t)15; /* 16 bytes before: the size */
    size_t at = __atomic_fetch_add(&bootstrap_used, need, __ATOMIC_RELAXED);
    if (at + need > sizeof bootstrap) return NULL;
    memcpy(bootstrap + at, &size, sizeof size);
    return bootstrap + at + 16;
}

static int in_bootstrap(void const *p) {
    return (char const *)p >= bootstrap && (char const *)p < bootstrap + sizeof bootstrap;
}

static void put_text(char **at, char *end, char const *text) {
    while (*text && *at < end) *(*at)++ = *text++;
}

static void put_number(char **at, char *end, unsigned long long value) {
    char digits[24];
    int n = 0;
    do digits[n++] = (char)('0' + value % 10);
    while (value /= 10);
    while (n && *at < end) *(*at)++ = digits[--n];
}

/* Reads a whole small file (no stdio: it allocates). */
static size_t read_small(char const *path, char *out, size_t room) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    size_t got = 0;
    for (ssize_t r; got < room && (r = read(fd, out + got, room - got)) > 0;) got += (size_t)r;
    close(fd);
    return got;
}

/* ARENAREF_TRACE_ONLY: a comma-separated list of executable names; empty or unset: all. */
static int wanted(char const *name) {
    char const *only = getenv("ARENAREF_TRACE_ONLY");
    if (!only || !*only) return 1;
    size_t length = strlen(name);
    for (char const *at = only; *at;) {
        char const *comma = strchr(at, ',');
        size_t n = comma ? (size_t)(comma - at) : strlen(at);
        if (n == length && memcmp(at, name, n) == 0) return 1;
        if (!comma) break;
        at = comma + 1;
    }
    return 0;
}

static void start(void) {
    if (!__sync_bool_compare_and_swap(&start_state, 0, 1)) return;
    char const *pattern = getenv("ARENAREF_TRACE_OUT");
    if (!pattern || !*pattern) goto done;
    char exe[256] = {0};
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n < 0) n = 0;
    exe[n] = '\0';
    char const *name = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
    if (!wanted(name)) goto done;
    char path[4096], *at = path, *end = path + sizeof path - 1;
    for (char const *p = pattern; *p; ++p) {
        if (p[0] == '%' && p[1] == 'p')
            put_number(&at, end, (unsigned long long)getpid()), ++p;
        else if (p[0] == '%' && p[1] == 'e')
            put_text(&at, end, name), ++p;
        else if (p[0] == '%' && p[1] == '%')
            put_text(&at, end, "%"), ++p;
        else if (at < end)
            *at++ = *p;
    }
    *at = '\0';
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        say(errno == EEXIST ? "not tracing: the file exists (a %p in ARENAREF_TRACE_OUT gives "
                              "each process its own): "
                            : "not tracing: cannot create ",
            path);
        goto done;
    }
    void *page = mmap(NULL, ARP_TRACE_HEADER_BYTES, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ftruncate(fd, ARP_TRACE_HEADER_BYTES) != 0 || page == MAP_FAILED) {
        say("not tracing: cannot size ", path);
        close(fd);
        goto done;
    }
    header = mmap(NULL, ARP_TRACE_HEADER_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (header == MAP_FAILED) {
        header = NULL;
        say("not tracing: cannot map ", path);
        close(fd);
        goto done;
    }
    memcpy(header->magic, ARP_TRACE_MAGIC, 8);
    header->version = ARP_TRACE_VERSION;
    header->record_bytes = sizeof(arp_trace_record_t);
    header->chunk_bytes = ARP_TRACE_CHUNK_BYTES;
    header->pid = (uint64_t)getpid();
    memcpy(header->exe, exe, sizeof header->exe);
    header->cmdline_bytes =
        read_small("/proc/self/cmdline", header->cmdline, sizeof header->cmdline);
    trace_fd = fd;
    char const *yield = getenv("ARENAREF_TRACE_STRESS");
    stress = yield && *yield == '1';
    int *flag = page;
    if (madvise(page, ARP_TRACE_HEADER_BYTES, MADV_WIPEONFORK) != 0) {
        /* Kernels before 4.14: a forked child would write into this file. */
        say("MADV_WIPEONFORK refused: a forked child's calls would be mixed in; tracing ", path);
        flag = &on_fallback;
    }
    *flag = 1;
    __atomic_store_n(&on, flag, __ATOMIC_RELEASE);
done:
    __atomic_store_n(&start_state, 2, __ATOMIC_RELEASE);
}

__attribute__((constructor)) static void tracer_init(void) {
    if (!real.malloc) resolve();
    start();
}

/* The chunk holding a slot, mapped on first use (a thread that loses the race unmaps its own). */
static arp_trace_record_t *slot_record(uint64_t slot) {
    uint64_t c = slot / ARP_TRACE_RECORDS_PER_CHUNK;
    if (c >= ARP_TRACE_MAX_CHUNKS) return NULL;
    char *chunk = __atomic_load_n(&chunks[c], __ATOMIC_ACQUIRE);
    if (!chunk) {
        off_t offset = (off_t)ARP_TRACE_HEADER_BYTES + (off_t)c * ARP_TRACE_CHUNK_BYTES;
        /* One byte at the chunk's end extends the file; it never shrinks it. */
        if (pwrite(trace_fd, "", 1, offset + ARP_TRACE_CHUNK_BYTES - 1) != 1) return NULL;
        char *mine =
            mmap(NULL, ARP_TRACE_CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, trace_fd, offset);
        if (mine == MAP_FAILED) return NULL;
        char *expected = NULL;
        if (__atomic_compare_exchange_n(&chunks[c], &expected, mine, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE))
            chunk = mine;
        else
            munmap(mine, ARP_TRACE_CHUNK_BYTES), chunk = expected;
    }
    return (arp_trace_record_t *)chunk + slot % ARP_TRACE_RECORDS_PER_CHUNK;
}

static inline int tracing(void) {
    if (__builtin_expect(start_state != 2, 0)) start();
    int *flag = __atomic_load_n(&on, __ATOMIC_ACQUIRE);
    return flag && __atomic_load_n(flag, __ATOMIC_RELAXED) && !resolving;
}

static inline uint64_t take_slot(void) {
    if (__builtin_expect(stress, 0)) sched_yield();
    return __atomic_fetch_add(&header->slots, 1, __ATOMIC_RELAXED);
}

static void put(uint64_t slot, void const *address, uint64_t kind, uint64_t size) {
    arp_trace_record_t *r = slot_record(slot);
    if (!r) {
        __atomic_fetch_add(&header->lost, 1, __ATOMIC_RELAXED);
        return;
    }
    r->address = (uint64_t)(uintptr_t)address;
    r->kind_size =
        kind << ARP_TRACE_SIZE_BITS | (size < ARP_TRACE_SIZE_MASK ? size : ARP_TRACE_SIZE_MASK);
}

static inline void allocated(void const *p, uint64_t kind, size_t size) {
    if (p && tracing()) put(take_slot(), p, kind, size);
}

EXPORT void *malloc(size_t size) {
    if (__builtin_expect(!real.malloc, 0)) {
        if (resolving) return bootstrap_alloc(size);
        resolve();
    }
    void *p = real.malloc(size);
    allocated(p, ARP_TRACE_MALLOC, size);
    return p;
}

EXPORT void *calloc(size_t count, size_t size) {
    if (__builtin_expect(!real.calloc, 0)) {
        if (resolving) {
            if (size && count > SIZE_MAX / size) return NULL;
            return bootstrap_alloc(count * size); /* static: already zero */
        }
        resolve();
    }
    void *p = real.calloc(count, size);
    allocated(p, ARP_TRACE_CALLOC, count * size);
    return p;
}

EXPORT void free(void *p) {
    if (!p || in_bootstrap(p)) return;
    if (__builtin_expect(!real.free, 0)) resolve();
    if (tracing()) put(take_slot(), p, ARP_TRACE_FREE, 0);
    real.free(p);
}

/* A free of the old block (its slot taken before the call) and an allocation of the new one. */
EXPORT void *realloc(void *old, size_t size) {
    if (__builtin_expect(!real.realloc, 0)) {
        if (resolving) return bootstrap_alloc(size);
        resolve();
    }
    if (in_bootstrap(old)) { /* its size sits in the 16 bytes before it */
        size_t had;
        memcpy(&had, (char *)old - 16, sizeof had);
        void *p = malloc(size);
        if (p) memcpy(p, old, had < size ? had : size);
        return p;
    }
    if (!tracing()) return real.realloc(old, size);
    uint64_t before = old ? take_slot() : 0;
    void *p = real.realloc(old, size);
    /* glibc frees the block of realloc(p, 0) and returns NULL; NULL with a size is a failure
     * that leaves the block as it was (its slot stays empty). */
    if (old && (p || size == 0)) put(before, old, ARP_TRACE_REALLOC_FREE, 0);
    if (p) put(take_slot(), p, ARP_TRACE_REALLOC, size);
    return p;
}

EXPORT void *reallocarray(void *old, size_t count, size_t size) {
    if (size && count > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(old, count * size);
}

EXPORT void *memalign(size_t alignment, size_t size) {
    if (!real.memalign) resolve();
    void *p = real.memalign(alignment, size);
    allocated(p, ARP_TRACE_MEMALIGN, size);
    return p;
}

EXPORT int posix_memalign(void **out, size_t alignment, size_t size) {
    if (!real.posix_memalign) resolve();
    int status = real.posix_memalign(out, alignment, size);
    if (status == 0) allocated(*out, ARP_TRACE_MEMALIGN, size);
    return status;
}

EXPORT void *aligned_alloc(size_t alignment, size_t size) {
    if (!real.aligned_alloc) resolve();
    void *p = real.aligned_alloc(alignment, size);
    allocated(p, ARP_TRACE_MEMALIGN, size);
    return p;
}

EXPORT void *valloc(size_t size) {
    if (!real.valloc) resolve();
    void *p = real.valloc(size);
    allocated(p, ARP_TRACE_MEMALIGN, size);
    return p;
}

EXPORT void *pvalloc(size_t size) {
    if (!real.pvalloc) resolve();
    void *p = real.pvalloc(size);
    allocated(p, ARP_TRACE_MEMALIGN, size);
    return p;
}
