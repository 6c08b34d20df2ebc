/* A malloc for counted runs whose cost and addresses, inside a counted region, follow from the
 * region's own calls alone. Under callgrind glibc's malloc costs what its free lists hold, and
 * they follow all the process did before (what the bench registered, jansson's seed, the topology
 * it read): one ar_certify call counted up to 1.3% apart; and string functions cost what their
 * operands' page offsets are. Here sizes round up to powers of two, each class in a range of its
 * own (no mmap after the first, so another allocator's mappings land where its own calls put
 * them); a region (arp_counting_malloc_region) starts every class on a fresh page with empty
 * lists, and blocks freed there that were made before it go back to the lists it set aside.
 * Blocks past the largest class are mapped whole; main's stack is moved to one page offset whatever the
 * environment's size. Only under a valgrind tool that leaves malloc alone (callgrind,
 * cachegrind); elsewhere, and with ARENAREF_GLIBC_MALLOC=1, glibc's malloc and nothing moved. */
#include "counting_malloc.h"

#if defined(ARENAREF_SANITIZE) || !__has_include(<valgrind/valgrind.h>)
bool arp_counting_malloc_active(void) { return false; }
void arp_counting_malloc_region(bool begin) { (void)begin; }
int arp_counting_main(int (*body)(int, char **), int argc, char **argv) { return body(argc, argv); }
#else
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <valgrind/valgrind.h>

/* glibc's own entry points: what every call gets when the counting allocator is off, and what a
 * block glibc made before it was switched on goes back to. */
void *__libc_malloc(size_t size);
void *__libc_calloc(size_t count, size_t size);
void *__libc_realloc(void *pointer, size_t size);
void *__libc_memalign(size_t alignment, size_t size);
void __libc_free(void *pointer);

enum {
    cm_min_shift_k = 4,         /* 16 bytes, malloc's alignment */
    cm_max_shift_k = 29,        /* 512 MiB: larger blocks are mapped whole */
    cm_given_back_shift_k = 21, /* blocks of 2 MiB and more: their pages are
                                                  given back when freed, so they come zeroed */
    cm_classes_k = cm_max_shift_k - cm_min_shift_k + 1,
    cm_span_shift_k = 30,   /* 1 GiB of address space per class */
    cm_large_offset_k = 64, /* a mapped block's header, and its alignment */
    cm_page_k = 4096,
};
#define CM_LARGE_MAGIC UINT64_C(0xa7e9a5efc0417a11)

enum { cm_undecided_k, cm_glibc_k, cm_counting_k };
static _Atomic int cm_mode = cm_undecided_k;
static uintptr_t cm_base;                       /* the reserved ranges, class after class */
static _Atomic uintptr_t cm_bump[cm_classes_k]; /* each class's next fresh block */
static void *cm_sentinel[cm_classes_k];         /* each points to itself: an empty list's head */
/* A thread's list heads, XORed with their sentinel's address so that zeroed TLS means empty;
 * in a region, the lists set aside and where the region's blocks begin in each class. */
static __thread uintptr_t cm_heads[cm_classes_k];
static __thread uintptr_t cm_aside[cm_classes_k];
static __thread uintptr_t cm_floor[cm_classes_k];
static __thread bool cm_in_region;

typedef struct cm_large_t { /* just below a mapped block */
    uint64_t check;         /* CM_LARGE_MAGIC ^ address ^ length */
    uint64_t length;        /* of the mapping */
    uint64_t offset;        /* from the mapping to the block */
    uint64_t capacity;      /* bytes the block may use */
} cm_large_t;

extern char **environ;

static bool cm_wanted(void) {
    if (!RUNNING_ON_VALGRIND) return false;
    char const *force = getenv("ARENAREF_GLIBC_MALLOC");
    if (force && strcmp(force, "1") == 0) return false;
    /* A tool that replaces malloc (memcheck, helgrind, drd, massif, dhat) preloads its own
     * vgpreload_TOOL next to vgpreload_core: there it keeps glibc's, which it intercepts. */
    char const *preload = getenv("LD_PRELOAD");
    for (char const *at = preload ? strstr(preload, "vgpreload_") : NULL; at;
         at = strstr(at + 1, "vgpreload_"))
        if (strncmp(at, "vgpreload_core", 14) != 0) return false;
    return true;
}

static bool cm_switch_on(void) {
    size_t span = (size_t)1 << cm_span_shift_k;
    size_t bytes = (size_t)cm_classes_k * span + span; /* one span more to align the base */
    void *reserved = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (reserved == MAP_FAILED) return false;
    /* Aligned to a span, so every block is aligned to its class's size. */
    cm_base = ((uintptr_t)reserved + span - 1) & ~(uintptr_t)(span - 1);
    for (int k = 0; k != cm_classes_k; ++k) {
        atomic_store_explicit(&cm_bump[k], cm_base + (uintptr_t)k * span, memory_order_relaxed);
        cm_sentinel[k] = &cm_sentinel[k];
    }
    return true;
}

/* Decided at the first call that can read the environment; until then calls go to glibc (free
 * tells the blocks apart by address). */
static bool cm_counting(void) {
    int mode = atomic_load_explicit(&cm_mode, memory_order_acquire);
    if (mode != cm_undecided_k) return mode == cm_counting_k;
    if (!environ) return false;
    mode = cm_wanted() && cm_switch_on() ? cm_counting_k : cm_glibc_k;
    atomic_store_explicit(&cm_mode, mode, memory_order_release);
    return mode == cm_counting_k;
}

static bool cm_owns_class(void const *pointer) {
    uintptr_t at = (uintptr_t)pointer;
    return cm_base && at >= cm_base && at < cm_base + ((uintptr_t)cm_classes_k << cm_span_shift_k);
}

static cm_large_t *cm_large_of(void const *pointer) {
    uintptr_t at = (uintptr_t)pointer;
    if (!cm_base || !pointer) return NULL;
    /* Mapped blocks start 64 bytes or a page into their mapping; glibc's mapped chunks start 16
     * bytes in, so their header is never read here (it could be on an unmapped page). */
    if ((at & (cm_page_k - 1)) != cm_large_offset_k && (at & (cm_page_k - 1)) != 0) return NULL;
    cm_large_t *header = (cm_large_t *)(at - sizeof(cm_large_t));
    return header->check == (CM_LARGE_MAGIC ^ at ^ header->length) ? header : NULL;
}

static int cm_class_of_size(size_t size) {
    size_t rounded = size <= ((size_t)1 << cm_min_shift_k) ? ((size_t)1 << cm_min_shift_k) : size;
    int shift = 64 - __builtin_clzll((unsigned long long)(rounded - 1)); /* ceil(log2) */
    return shift - cm_min_shift_k;
}

static int cm_class_of_block(void const *pointer) {
    return (int)(((uintptr_t)pointer - cm_base) >> cm_span_shift_k);
}

/* The same instructions whether the list holds a block or not. */
static void *cm_pop(int k) {
    uintptr_t sentinel = (uintptr_t)&cm_sentinel[k];
    uintptr_t head = cm_heads[k] ^ sentinel;
    uintptr_t next = *(uintptr_t const *)head;
    uintptr_t empty = (uintptr_t)0 - (uintptr_t)(head == sentinel);
    uintptr_t step = ((uintptr_t)1 << (k + cm_min_shift_k)) & empty;
    uintptr_t fresh = atomic_fetch_add_explicit(&cm_bump[k], step, memory_order_relaxed);
    cm_heads[k] = next ^ sentinel;
    uintptr_t block = (fresh & empty) | (head & ~empty);
    uintptr_t end = cm_base + ((uintptr_t)(k + 1) << cm_span_shift_k);
    if (block >= end) {
        static char const message[] = "arenaref: counting malloc: a size class ran out of its "
                                      "1 GiB (run with ARENAREF_GLIBC_MALLOC=1)\n";
        ssize_t written = write(2, message, sizeof message - 1);
        (void)written;
        abort();
    }
    return (void *)block;
}

static void cm_link(void *pointer) {
    int k = cm_class_of_block(pointer);
    uintptr_t sentinel = (uintptr_t)&cm_sentinel[k];
    /* A block made before the region would come back at an address its history chose. */
    uintptr_t *list =
        cm_in_region && (uintptr_t)pointer < cm_floor[k] ? &cm_aside[k] : &cm_heads[k];
    *(uintptr_t *)pointer = *list ^ sentinel;
    *list = (uintptr_t)pointer ^ sentinel;
}

static void cm_push(void *pointer) {
    int k = cm_class_of_block(pointer);
    if (k + cm_min_shift_k >= cm_given_back_shift_k) /* all zero again but the link word */
        madvise(pointer, (size_t)1 << (k + cm_min_shift_k), MADV_DONTNEED);
    cm_link(pointer);
}

/* The calling thread's region: its lists set aside, every class's next block on a fresh page
 * (its own size's boundary past a page). Ending one puts the region's free blocks back. */
static void cm_region_begin(void) {
    for (int k = 0; k != cm_classes_k; ++k) {
        uintptr_t align = (uintptr_t)1 << (k + cm_min_shift_k);
        if (align < cm_page_k) align = cm_page_k;
        uintptr_t at = atomic_load_explicit(&cm_bump[k], memory_order_relaxed);
        at = (at + align - 1) & ~(align - 1);
        atomic_store_explicit(&cm_bump[k], at, memory_order_relaxed);
        cm_floor[k] = at;
        cm_aside[k] = cm_heads[k];
        cm_heads[k] = 0;
    }
    cm_in_region = true;
}

static void cm_region_end(void) {
    cm_in_region = false;
    for (int k = 0; k != cm_classes_k; ++k) {
        uintptr_t sentinel = (uintptr_t)&cm_sentinel[k];
        uintptr_t freed = cm_heads[k] ^ sentinel;
        cm_heads[k] = cm_aside[k];
        while (freed != sentinel) {
            uintptr_t next = *(uintptr_t const *)freed;
            cm_link((void *)freed);
            freed = next;
        }
    }
}

static void *cm_map(size_t size, size_t offset) {
    if (size > SIZE_MAX - offset - cm_page_k) return NULL;
    size_t length = (size + offset + cm_page_k - 1) & ~(size_t)(cm_page_k - 1);
    void *mapped = mmap(NULL, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped == MAP_FAILED) return NULL;
    uintptr_t at = (uintptr_t)mapped + offset;
    cm_large_t *header = (cm_large_t *)(at - sizeof(cm_large_t));
    header->length = length;
    header->offset = offset;
    header->capacity = length - offset;
    header->check = CM_LARGE_MAGIC ^ at ^ length;
    return (void *)at;
}

static void *cm_alloc(size_t size, size_t alignment) {
    if (size <= ((size_t)1 << cm_max_shift_k) && alignment <= ((size_t)1 << cm_max_shift_k)) {
        int k = cm_class_of_size(size > alignment ? size : alignment);
        return cm_pop(k);
    }
    if (alignment <= cm_large_offset_k) return cm_map(size, cm_large_offset_k);
    if (alignment <= cm_page_k) return cm_map(size, cm_page_k);
    return __libc_memalign(alignment, size); /* not asked for here; glibc's own */
}

static size_t cm_capacity(void *pointer) {
    if (cm_owns_class(pointer)) return (size_t)1 << (cm_class_of_block(pointer) + cm_min_shift_k);
    cm_large_t const *large = cm_large_of(pointer);
    return large ? large->capacity : 0;
}

void *malloc(size_t size) {
    if (!cm_counting()) return __libc_malloc(size);
    void *block = cm_alloc(size, 16);
    if (!block) errno = ENOMEM;
    return block;
}

void free(void *pointer) {
    if (!pointer) return;
    if (cm_owns_class(pointer)) {
        cm_push(pointer);
        return;
    }
    cm_large_t *large = cm_large_of(pointer);
    if (large) {
        uintptr_t mapping = (uintptr_t)pointer - large->offset;
        large->check = 0;
        munmap((void *)mapping, large->length);
        return;
    }
    __libc_free(pointer);
}

void *calloc(size_t count, size_t size) {
    if (!cm_counting()) return __libc_calloc(count, size);
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    void *block = cm_alloc(bytes, 16);
    if (!block) {
        errno = ENOMEM;
        return NULL;
    }
    /* A mapping comes zeroed, and so does a class block whose pages were given back, but for
     * the word that linked it. */
    if (!cm_owns_class(block)) return block;
    if (cm_class_of_block(block) + cm_min_shift_k < cm_given_back_shift_k)
        memset(block, 0, bytes);
    else
        *(uintptr_t *)block = 0;
    return block;
}

void *realloc(void *pointer, size_t size) {
    if (!pointer) return malloc(size);
    size_t capacity = cm_capacity(pointer);
    if (!capacity) return __libc_realloc(pointer, size); /* glibc's block */
    if (size == 0) {
        free(pointer);
        return NULL;
    }
    if (size <= capacity) return pointer;
    void *grown = cm_alloc(size, 16);
    if (!grown) {
        errno = ENOMEM;
        return NULL;
    }
    memcpy(grown, pointer, capacity);
    free(pointer);
    return grown;
}

void *reallocarray(void *pointer, size_t count, size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(pointer, bytes);
}

static bool cm_power_of_two(size_t value) { return value && !(value & (value - 1)); }

int posix_memalign(void **out, size_t alignment, size_t size) {
    if (!cm_power_of_two(alignment) || alignment % sizeof(void *)) return EINVAL;
    void *block = cm_counting() ? cm_alloc(size, alignment) : __libc_memalign(alignment, size);
    if (!block) return ENOMEM;
    *out = block;
    return 0;
}

void *memalign(size_t alignment, size_t size) {
    if (!cm_counting()) return __libc_memalign(alignment, size);
    if (!cm_power_of_two(alignment)) {
        errno = EINVAL;
        return NULL;
    }
    void *block = cm_alloc(size, alignment);
    if (!block) errno = ENOMEM;
    return block;
}

void *aligned_alloc(size_t alignment, size_t size) { return memalign(alignment, size); }
void *valloc(size_t size) { return memalign(cm_page_k, size); }
void *pvalloc(size_t size) {
    return memalign(cm_page_k, (size + cm_page_k - 1) & ~(size_t)(cm_page_k - 1));
}

size_t malloc_usable_size(void *pointer) {
    if (!pointer) return 0;
    size_t capacity = cm_capacity(pointer);
    if (capacity) return capacity;
    /* glibc's block: its size word holds the chunk's size, the low three bits flags; an mmapped
     * chunk (flag 2) has no next chunk's header to use. */
    size_t word = ((size_t const *)pointer)[-1];
    return (word & ~(size_t)7) - ((word & 2) ? 2 : 1) * sizeof(size_t);
}

bool arp_counting_malloc_active(void) { return cm_counting(); }

/* The environment and the arguments sit above main's frame: their length moves every stack
 * buffer's page offset, which string functions' costs follow (strlen reads to a page's end). */
__attribute__((noinline)) int arp_counting_main(int (*body)(int, char **), int argc, char **argv) {
    if (!cm_counting()) return body(argc, argv);
    char here;
    size_t offset = (uintptr_t)&here & (cm_page_k - 1);
    char *pad = __builtin_alloca(offset + 1);
    __asm__ volatile("" : : "r"(pad) : "memory"); /* kept */
    cm_region_begin(); /* what ran before main (a preloaded library, say) leaves no trace */
    return body(argc, argv);
}

void arp_counting_malloc_region(bool begin) {
    if (!cm_counting()) return;
    if (cm_in_region) cm_region_end(); /* a region begun inside another ends that one */
    if (begin) cm_region_begin();
}
#endif
