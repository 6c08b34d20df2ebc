/* The loader's fields: a 64-bit field, a signed shift, a string, an object, each converted
 * from one jansson value with a breach (field path and text) saying what is wrong.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cert/plan_load_fields.h"

ar_status_t arp_json_breach(breach_t *where, char const *field_format, ...) {
    va_list args;
    va_start(args, field_format);
    vsnprintf(where->field, sizeof where->field, field_format, args);
    va_end(args);
    return ar_status_invalid_argument_k;
}

char const *arp_json_type_name(json_t const *value) {
    switch (json_typeof(value)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a float";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "something else";
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* "0x" then 1 to 16 hex digits, nothing else. */
static bool parse_hex(char const *text, size_t length, uint64_t *value) {
    if (length < 3 || length > 18 || text[0] != '0' || text[1] != 'x') return false;
    uint64_t result = 0;
    for (size_t i = 2; i < length; ++i) {
        int digit = hex_digit(text[i]);
        if (digit < 0) return false;
        result = result << 4 | (uint64_t)digit;
    }
    *value = result;
    return true;
}

/* Print at most 40 bytes of a bad string value, for the message. */
void arp_json_quote(char *out, size_t size, char const *text, size_t length) {
    snprintf(out, size, "\"%.*s%s\"", (int)(length > 40 ? 40 : length), text,
             length > 40 ? "…" : "");
}

/* A 64-bit field: integer in [0, 2^63) or "0x…". The breach field is `.key` (or `[i]`). */
ar_status_t arp_json_to_u64(json_t const *value, uint64_t *out, breach_t *where) {
    if (json_is_integer(value)) {
        json_int_t number = json_integer_value(value);
        if (number < 0) {
            snprintf(where->text, sizeof where->text,
                     "%lld is negative: a 64-bit field is an integer in [0, 2^63) or a \"0x…\" "
                     "string",
                     (long long)number);
            return ar_status_invalid_argument_k;
        }
        *out = (uint64_t)number;
        return ar_status_success_k;
    }
    if (json_is_string(value)) {
        char const *text = json_string_value(value);
        size_t length = json_string_length(value);
        if (parse_hex(text, length, out)) return ar_status_success_k;
        char shown[64];
        arp_json_quote(shown, sizeof shown, text, length);
        snprintf(where->text, sizeof where->text, "%s is not \"0x\" followed by 1 to 16 hex digits",
                 shown);
        return ar_status_invalid_argument_k;
    }
    snprintf(where->text, sizeof where->text,
             "expected an integer in [0, 2^63) or a \"0x…\" string, found %s",
             arp_json_type_name(value));
    return ar_status_invalid_argument_k;
}

/* A signed 64-bit field: integer, "0x…" or "-0x…" inside [-2^63, 2^63). */
ar_status_t arp_json_to_i64(json_t const *value, int64_t *out, breach_t *where) {
    if (json_is_integer(value)) {
        *out = (int64_t)json_integer_value(value);
        return ar_status_success_k;
    }
    if (json_is_string(value)) {
        char const *text = json_string_value(value);
        size_t length = json_string_length(value);
        bool negative = length > 0 && text[0] == '-';
        uint64_t magnitude;
        char shown[64];
        arp_json_quote(shown, sizeof shown, text, length);
        if (!parse_hex(text + negative, length - negative, &magnitude)) {
            snprintf(where->text, sizeof where->text,
                     "%s is not \"0x\" or \"-0x\" followed by 1 to 16 hex digits", shown);
            return ar_status_invalid_argument_k;
        }
        if (negative ? magnitude > (uint64_t)INT64_MAX + 1 : magnitude > (uint64_t)INT64_MAX) {
            snprintf(where->text, sizeof where->text,
                     "%s is outside the signed 64-bit range [-2^63, 2^63)", shown);
            return ar_status_invalid_argument_k;
        }
        *out = negative ? (int64_t)(0 - magnitude) : (int64_t)magnitude;
        return ar_status_success_k;
    }
    snprintf(where->text, sizeof where->text,
             "expected a signed 64-bit integer or a \"0x…\"/\"-0x…\" string, found %s",
             arp_json_type_name(value));
    return ar_status_invalid_argument_k;
}

ar_status_t arp_json_missing(breach_t *where, char const *key, char const *what) {
    arp_json_breach(where, ".%s", key);
    snprintf(where->text, sizeof where->text, "missing required field \"%s\" (%s)", key, what);
    return ar_status_invalid_argument_k;
}

ar_status_t arp_json_member_u64(json_t const *object, char const *key, uint64_t *out,
                                breach_t *where) {
    json_t const *value = json_object_get(object, key);
    if (!value) return arp_json_missing(where, key, "a 64-bit value");
    if (arp_json_to_u64(value, out, where)) return arp_json_breach(where, ".%s", key);
    return ar_status_success_k;
}

ar_status_t arp_json_member_index(json_t const *object, char const *key, size_t *out,
                                  breach_t *where) {
    uint64_t value;
    ar_status_t status = arp_json_member_u64(object, key, &value, where);
    if (status) return status;
    if (value > SIZE_MAX) {
        snprintf(where->text, sizeof where->text, "%llu does not fit this machine's size_t",
                 (unsigned long long)value);
        return arp_json_breach(where, ".%s", key);
    }
    *out = (size_t)value;
    return ar_status_success_k;
}

/* A string member; absent is an error when `required`, else *out is `fallback`. */
ar_status_t arp_json_member_string(json_t const *object, char const *key, bool required,
                                   char const *fallback, char const **out, size_t *length,
                                   breach_t *where) {
    json_t const *value = json_object_get(object, key);
    if (!value || (!required && json_is_null(value))) {
        if (required) return arp_json_missing(where, key, "a string");
        *out = fallback;
        *length = fallback ? strlen(fallback) : 0;
        return ar_status_success_k;
    }
    if (!json_is_string(value)) {
        snprintf(where->text, sizeof where->text, "expected a string, found %s",
                 arp_json_type_name(value));
        return arp_json_breach(where, ".%s", key);
    }
    *out = json_string_value(value);
    *length = json_string_length(value);
    return ar_status_success_k;
}

ar_status_t arp_json_expect_object(json_t const *value, breach_t *where) {
    if (json_is_object(value)) return ar_status_success_k;
    snprintf(where->text, sizeof where->text, "expected an object, found %s",
             arp_json_type_name(value));
    return arp_json_breach(where, "%s", "");
}
