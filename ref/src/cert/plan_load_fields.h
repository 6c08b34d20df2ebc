/* The JSON loader's field conversions (plan_load_fields.c), shared with plan_load.c. */
#ifndef ARENAREF_PLAN_LOAD_FIELDS_H
#define ARENAREF_PLAN_LOAD_FIELDS_H

#include <jansson.h>

#include "cert/plan_internal.h"

/* A breach inside one element: its field path relative to the element, and what is wrong. The
 * caller prefixes the element's own path, which is formatted only when something failed. */
typedef struct breach_t {
    char field[128];
    char text[400];
} breach_t;

/* Sets the breach's field path from a format; returns ar_status_invalid_argument_k. */
ar_status_t arp_json_breach(breach_t *where, char const *field_format, ...)
    __attribute__((format(printf, 2, 3)));
char const *arp_json_type_name(json_t const *value); /* "an object", "a float", ... */
/* A 64-bit field: an integer in [0, 2^63) or "0x" and 1 to 16 hex digits. */
ar_status_t arp_json_to_u64(json_t const *value, uint64_t *out, breach_t *where);
/* A signed 64-bit field: an integer, "0x..." or "-0x...". */
ar_status_t arp_json_to_i64(json_t const *value, int64_t *out, breach_t *where);
ar_status_t arp_json_missing(breach_t *where, char const *key, char const *what);
ar_status_t arp_json_member_u64(json_t const *object, char const *key, uint64_t *out,
                                breach_t *where);
ar_status_t arp_json_member_index(json_t const *object, char const *key, size_t *out,
                                  breach_t *where);
/* A string member; absent (or null when optional) gives `fallback` unless `required`. */
ar_status_t arp_json_member_string(json_t const *object, char const *key, bool required,
                                   char const *fallback, char const **out, size_t *length,
                                   breach_t *where);
ar_status_t arp_json_expect_object(json_t const *value, breach_t *where);
/* At most 40 bytes of a bad string value, quoted, for a message. */
void arp_json_quote(char *out, size_t size, char const *text, size_t length);

/* The byte offset in `text` of the value JSON path `path` names (`$.phases[2].planes[0].size`),
 * or of the deepest value on the way that the text holds (plan_load_locate.c). */
size_t arp_json_locate(char const *text, size_t length, char const *path);

#endif
