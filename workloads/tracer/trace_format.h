/* The malloc tracer's file, shared by the preloaded tracer (tracer.c) and the converter
 * (trace_csv.c): a header page, then one record per slot. A call takes the next slot from a
 * counter in the header (one atomic add), so the slot is also its place in the global order;
 * the file is mapped shared, so what is stored reaches it even when the program ends by _exit or
 * a signal. A slot taken and never written (a realloc that failed) stays zero and is skipped. */
#ifndef ARENAREF_TRACE_FORMAT_H
#define ARENAREF_TRACE_FORMAT_H

#include <stdint.h>

#define ARP_TRACE_MAGIC "ARMTRACE"
#define ARP_TRACE_VERSION 1u
#define ARP_TRACE_HEADER_BYTES 4096u
#define ARP_TRACE_CHUNK_BYTES (1u << 20)

/* The calls, in the record's kind bits. */
enum {
    ARP_TRACE_MALLOC = 1,
    ARP_TRACE_CALLOC,
    ARP_TRACE_REALLOC,  /* the allocation half of a realloc */
    ARP_TRACE_MEMALIGN, /* memalign, posix_memalign, aligned_alloc, valloc, pvalloc */
    ARP_TRACE_FREE,
    ARP_TRACE_REALLOC_FREE, /* the release half of a realloc that moved or freed its block */
};

#define ARP_TRACE_SIZE_BITS 56
#define ARP_TRACE_SIZE_MASK ((UINT64_C(1) << ARP_TRACE_SIZE_BITS) - 1)

/* One call: the block's address and the kind above bit 56 of the size (0 for releases). Its
 * slot is taken after an allocation returned and before a release starts, so a block's release
 * precedes the next allocation of its address in slot order, whichever threads make them. */
typedef struct arp_trace_record_t {
    uint64_t address;
    uint64_t kind_size;
} arp_trace_record_t;

#define ARP_TRACE_RECORDS_PER_CHUNK (ARP_TRACE_CHUNK_BYTES / sizeof(arp_trace_record_t))
#define ARP_TRACE_MAX_CHUNKS (1u << 16) /* 2^32 calls, a 64 GiB file */

typedef struct arp_trace_header_t {
    char magic[8];
    uint32_t version;
    uint32_t record_bytes;
    uint64_t chunk_bytes;
    uint64_t slots; /* slots taken (the tracer's atomic counter) */
    uint64_t lost;  /* calls not recorded: a chunk that could not be mapped, or past the last */
    uint64_t pid;
    uint64_t cmdline_bytes; /* of cmdline below, NUL-separated arguments as /proc gives them */
    char exe[256];          /* /proc/self/exe when the trace started */
    char cmdline[3072];
} arp_trace_header_t;

#endif
