/* malloc-trace-csv: a tracer file (trace_format.h) as MiniMalloc's CSV. Time is the allocation
 * index: allocation k is buffer k, live over [k, j) where j counts the allocations made before
 * its release (never released: to the end). A realloc is a release and an allocation. The slots
 * are already in global order, so one pass with a hash map of live addresses does it; the
 * max-live bound comes from the same pass (+size at lower, -size at upper, one prefix sum). A
 * release of an address never seen allocated (made before tracing began) is counted and left
 * out; an allocation at a live address (its release went unseen) ends the older buffer there. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "trace_format.h"

typedef struct row_t {
    uint64_t upper, size;
} row_t;

/* Live addresses to rows: linear probing, deletion by backward shift. */
typedef struct live_t {
    uint64_t *keys;
    uint64_t *rows;
    size_t mask, count;
} live_t;

static size_t slot_of(live_t const *m, uint64_t key) {
    return (size_t)((key * 0x9e3779b97f4a7c15ull) >> 20) & m->mask;
}

static bool live_grow(live_t *m) {
    size_t size = m->mask ? 2 * (m->mask + 1) : 1 << 16;
    uint64_t *keys = calloc(size, sizeof *keys), *rows = malloc(size * sizeof *rows);
    if (!keys || !rows) return free(keys), free(rows), false;
    live_t bigger = {keys, rows, size - 1, m->count};
    for (size_t i = 0; m->mask && i <= m->mask; ++i) {
        if (!m->keys[i]) continue;
        size_t at = slot_of(&bigger, m->keys[i]);
        while (keys[at]) at = (at + 1) & bigger.mask;
        keys[at] = m->keys[i], rows[at] = m->rows[i];
    }
    free(m->keys), free(m->rows);
    *m = bigger;
    return true;
}

static size_t live_find(live_t const *m, uint64_t key) {
    for (size_t at = slot_of(m, key);; at = (at + 1) & m->mask) {
        if (m->keys[at] == key) return at;
        if (!m->keys[at]) return SIZE_MAX;
    }
}

static void live_remove(live_t *m, size_t at) {
    m->keys[at] = 0;
    --m->count;
    for (size_t next = (at + 1) & m->mask; m->keys[next]; next = (next + 1) & m->mask) {
        size_t home = slot_of(m, m->keys[next]);
        /* Move it back unless its home lies cyclically in (at, next]. */
        if ((next > at && (home <= at || home > next)) ||
            (next < at && home <= at && home > next)) {
            m->keys[at] = m->keys[next], m->rows[at] = m->rows[next];
            m->keys[next] = 0;
            at = next;
        }
    }
}

typedef struct facts_t {
    uint64_t slots, empty, lost, allocations, by_kind[8], releases, unknown_releases, realloc_moves,
        live_reused, never_released, never_released_bytes, zero_size, size_sum, size_max, bound,
        bound_time, long_lived, long_lived_bytes_at_bound;
} facts_t;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int usage(FILE *to) {
    fprintf(to, "usage: malloc-trace-csv TRACE [--out CSV] [--info JSON] [--first N]\n"
                "  TRACE   a file the tracer wrote (ARENAREF_TRACE_OUT, workloads/tracer)\n"
                "  --out   the CSV (id,lower,upper,size; time = allocation index); default stdout\n"
                "  --info  facts as JSON: buffers, max-live bound, releases, never released, ...\n"
                "  --first keep the first N allocations (those live after them: to the end)\n");
    return to == stdout ? 0 : 2;
}

static void json_string(FILE *f, char const *s, size_t n) {
    fputc('"', f);
    for (size_t i = 0; i < n && s[i]; ++i) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20 || c >= 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static char *put_u64(char *at, uint64_t v) {
    char digits[24];
    int n = 0;
    do digits[n++] = (char)('0' + v % 10);
    while (v /= 10);
    while (n) *at++ = digits[--n];
    return at;
}

int main(int argc, char **argv) {
    char const *in = NULL, *out = NULL, *info = NULL;
    uint64_t first = UINT64_MAX;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) return usage(stdout);
        if ((!strcmp(argv[i], "--out") || !strcmp(argv[i], "--info") ||
             !strcmp(argv[i], "--first")) &&
            i + 1 < argc) {
            char const *v = argv[++i];
            if (!strcmp(argv[i - 1], "--out"))
                out = v;
            else if (!strcmp(argv[i - 1], "--info"))
                info = v;
            else {
                char *end;
                errno = 0;
                first = strtoull(v, &end, 10);
                if (errno || *end || !*v || first == 0) {
                    fprintf(stderr, "malloc-trace-csv: --first %s: not a positive integer\n", v);
                    return 2;
                }
            }
        } else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "malloc-trace-csv: unknown option %s (or its value is missing)\n",
                    argv[i]);
            return usage(stderr);
        } else if (!in) {
            in = argv[i];
        } else {
            fprintf(stderr, "malloc-trace-csv: one trace at a time (%s and %s)\n", in, argv[i]);
            return 2;
        }
    }
    if (!in) return usage(stderr);
    double t0 = now();
    int fd = open(in, O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        fprintf(stderr, "malloc-trace-csv: %s: %s\n", in, strerror(errno));
        return 2;
    }
    if ((uint64_t)st.st_size < ARP_TRACE_HEADER_BYTES) {
        fprintf(stderr, "malloc-trace-csv: %s: %lld bytes, shorter than the tracer's header (%u)\n",
                in, (long long)st.st_size, ARP_TRACE_HEADER_BYTES);
        return 2;
    }
    char const *file = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (file == MAP_FAILED) {
        fprintf(stderr, "malloc-trace-csv: %s: cannot map: %s\n", in, strerror(errno));
        return 2;
    }
    arp_trace_header_t h;
    memcpy(&h, file, sizeof h);
    if (memcmp(h.magic, ARP_TRACE_MAGIC, 8) || h.version != ARP_TRACE_VERSION ||
        h.record_bytes != sizeof(arp_trace_record_t) || h.chunk_bytes != ARP_TRACE_CHUNK_BYTES) {
        fprintf(stderr,
                "malloc-trace-csv: %s: not a tracer file of this version (magic %.8s, version "
                "%u, record %u bytes, chunk %" PRIu64 " bytes; expected %s, %u, %zu, %u)\n",
                in, h.magic, h.version, h.record_bytes, h.chunk_bytes, ARP_TRACE_MAGIC,
                ARP_TRACE_VERSION, sizeof(arp_trace_record_t), ARP_TRACE_CHUNK_BYTES);
        return 2;
    }
    arp_trace_record_t const *records = (arp_trace_record_t const *)(file + ARP_TRACE_HEADER_BYTES);
    uint64_t stored = ((uint64_t)st.st_size - ARP_TRACE_HEADER_BYTES) / sizeof *records;
    facts_t f = {0};
    f.slots = h.slots;
    f.lost = h.lost;
    uint64_t slots = h.slots < stored ? h.slots : stored;
    f.lost += h.slots - slots; /* slots past the file's end: their chunks were never mapped */

    int status = 0;
    size_t cap = 1 << 16;
    row_t *rows = malloc(cap * sizeof *rows);
    live_t live = {0};
    if (!rows || !live_grow(&live)) goto out_of_memory;
    uint64_t n = 0;
    for (uint64_t s = 0; s < slots; ++s) {
        arp_trace_record_t r = records[s];
        unsigned kind = (unsigned)(r.kind_size >> ARP_TRACE_SIZE_BITS);
        uint64_t size = r.kind_size & ARP_TRACE_SIZE_MASK;
        if (kind == 0) {
            ++f.empty;
            continue;
        }
        if (kind >= ARP_TRACE_FREE) {
            size_t at = live_find(&live, r.address);
            if (at == SIZE_MAX) {
                ++f.unknown_releases;
                continue;
            }
            rows[live.rows[at]].upper = n;
            live_remove(&live, at);
            ++f.releases;
            if (kind == ARP_TRACE_REALLOC_FREE) ++f.realloc_moves;
            continue;
        }
        if (n == first) break;
        size_t at = live_find(&live, r.address);
        if (at != SIZE_MAX) { /* the release of the block there was not seen */
            rows[live.rows[at]].upper = n;
            live_remove(&live, at);
            ++f.live_reused;
        }
        if (n == cap) {
            cap *= 2;
            row_t *bigger = realloc(rows, cap * sizeof *rows);
            if (!bigger) goto out_of_memory;
            rows = bigger;
        }
        if (2 * (live.count + 1) > live.mask + 1 && !live_grow(&live)) goto out_of_memory;
        at = slot_of(&live, r.address);
        while (live.keys[at]) at = (at + 1) & live.mask;
        live.keys[at] = r.address, live.rows[at] = n, ++live.count;
        rows[n] = (row_t){UINT64_MAX, size};
        ++f.by_kind[kind];
        if (!size) ++f.zero_size;
        f.size_sum += size;
        if (size > f.size_max) f.size_max = size;
        ++n;
    }
    f.allocations = n;
    /* The bound: bytes live at each time, by the differences at each row's ends. */
    int64_t *delta = calloc(n + 1, sizeof *delta);
    if (!delta) goto out_of_memory;
    for (uint64_t i = 0; i < n; ++i) {
        if (rows[i].upper == UINT64_MAX) {
            rows[i].upper = n;
            ++f.never_released;
            f.never_released_bytes += rows[i].size;
        }
        delta[i] += (int64_t)rows[i].size;
        delta[rows[i].upper] -= (int64_t)rows[i].size;
        if (2 * (rows[i].upper - i) >= n) ++f.long_lived;
    }
    int64_t load = 0;
    for (uint64_t t = 0; t < n; ++t) {
        load += delta[t];
        if ((uint64_t)load > f.bound) f.bound = (uint64_t)load, f.bound_time = t;
    }
    free(delta);
    for (uint64_t i = 0; i <= f.bound_time && i < n; ++i)
        if (rows[i].upper > f.bound_time && 2 * (rows[i].upper - i) >= n)
            f.long_lived_bytes_at_bound += rows[i].size;
    double t_read = now() - t0;

    double t1 = now();
    FILE *csv = out ? fopen(out, "w") : stdout;
    if (!csv) {
        fprintf(stderr, "malloc-trace-csv: %s: %s\n", out, strerror(errno));
        status = 2;
        goto done;
    }
    static char buffer[1 << 16];
    char *at = buffer;
    at += sprintf(at, "id,lower,upper,size\n");
    for (uint64_t i = 0; i < n; ++i) {
        if (at > buffer + sizeof buffer - 128) {
            fwrite(buffer, 1, (size_t)(at - buffer), csv);
            at = buffer;
        }
        at = put_u64(at, i), *at++ = ',';
        at = put_u64(at, i), *at++ = ',';
        at = put_u64(at, rows[i].upper), *at++ = ',';
        at = put_u64(at, rows[i].size), *at++ = '\n';
    }
    fwrite(buffer, 1, (size_t)(at - buffer), csv);
    if (fflush(csv) != 0 || ferror(csv) || (out && fclose(csv) != 0)) {
        fprintf(stderr, "malloc-trace-csv: %s: write failed: %s\n", out ? out : "stdout",
                strerror(errno));
        status = 2;
        goto done;
    }
    double t_write = now() - t1;

    if (info) {
        char first_text[24] = "null";
        if (first != UINT64_MAX) snprintf(first_text, sizeof first_text, "%" PRIu64, first);
        FILE *j = fopen(info, "w");
        if (!j) {
            fprintf(stderr, "malloc-trace-csv: %s: %s\n", info, strerror(errno));
            status = 2;
            goto done;
        }
        fprintf(j, "{\n  \"pid\": %" PRIu64 ",\n  \"exe\": ", h.pid);
        json_string(j, h.exe, sizeof h.exe);
        fprintf(j, ",\n  \"argv\": [");
        size_t cmd = h.cmdline_bytes < sizeof h.cmdline ? h.cmdline_bytes : sizeof h.cmdline;
        for (size_t a = 0, k = 0; a < cmd; ++k) {
            size_t len = strnlen(h.cmdline + a, cmd - a);
            fprintf(j, "%s", k ? ", " : "");
            json_string(j, h.cmdline + a, len);
            a += len + 1;
        }
        fprintf(j,
                "],\n  \"buffers\": %" PRIu64 ",\n  \"max_live_bound\": %" PRIu64
                ",\n  \"bound_time\": %" PRIu64 ",\n  \"releases\": %" PRIu64
                ",\n  \"never_released\": %" PRIu64 ",\n  \"never_released_bytes\": %" PRIu64
                ",\n  \"long_lived\": %" PRIu64 ",\n  \"long_lived_bytes_at_bound\": %" PRIu64
                ",\n  \"malloc\": %" PRIu64 ",\n  \"calloc\": %" PRIu64 ",\n  \"realloc\": %" PRIu64
                ",\n  \"memalign\": %" PRIu64 ",\n  \"realloc_releases\": %" PRIu64
                ",\n  \"unknown_releases\": %" PRIu64 ",\n  \"live_address_reused\": %" PRIu64
                ",\n  \"zero_size\": %" PRIu64 ",\n  \"size_sum\": %" PRIu64
                ",\n  \"size_max\": %" PRIu64 ",\n  \"slots\": %" PRIu64
                ",\n  \"empty_slots\": %" PRIu64 ",\n  \"lost\": %" PRIu64
                ",\n  \"first\": %s,\n  \"read_s\": %.3f,\n"
                "  \"write_s\": %.3f\n}\n",
                f.allocations, f.bound, f.bound_time, f.releases, f.never_released,
                f.never_released_bytes, f.long_lived, f.long_lived_bytes_at_bound,
                f.by_kind[ARP_TRACE_MALLOC], f.by_kind[ARP_TRACE_CALLOC],
                f.by_kind[ARP_TRACE_REALLOC], f.by_kind[ARP_TRACE_MEMALIGN], f.realloc_moves,
                f.unknown_releases, f.live_reused, f.zero_size, f.size_sum, f.size_max, f.slots,
                f.empty, f.lost, first_text, t_read, t_write);
        if (fclose(j) != 0) {
            fprintf(stderr, "malloc-trace-csv: %s: write failed\n", info);
            status = 2;
            goto done;
        }
    }
    fprintf(stderr,
            "malloc-trace-csv: %" PRIu64 " buffers, max-live bound %" PRIu64 " bytes, %" PRIu64
            " never released, %" PRIu64 " releases of unknown blocks, %" PRIu64
            " lost; read %.3f s, write %.3f s\n",
            f.allocations, f.bound, f.never_released, f.unknown_releases, f.lost, t_read, t_write);
    if (f.lost) {
        fprintf(stderr,
                "malloc-trace-csv: %s: the tracer lost %" PRIu64
                " calls (a chunk of the file could not be written): the CSV is incomplete\n",
                in, f.lost);
        status = 1;
    }
    goto done;
out_of_memory:
    fprintf(stderr, "malloc-trace-csv: out of memory\n");
    status = 2;
done:
    free(rows);
    free(live.keys), free(live.rows);
    munmap((void *)file, (size_t)st.st_size);
    close(fd);
    return status;
}
