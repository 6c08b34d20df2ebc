/* Where a JSON path lies in a plan's text, so that every malformed plan's error carries a line
 * and column, not only syntax errors: the structural rules are checked on the flat arrays (by the
 * loader's conversions and by ar_plan_finish), which keep no positions, so on failure the path
 * is walked again through the raw text, once. A scanner, not a parser: it skips values by their
 * brackets and strings, reads keys raw (a key written with escapes does not match, and the walk
 * stops at the object holding it), and stops at the deepest value it reaches, so a missing
 * field points at the object that lacks it. Bounded by the text; never fails.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cert/plan_load_fields.h"

typedef struct scan_t {
    char const *text;
    size_t length, at;
} scan_t;

static void skip_space(scan_t *s) {
    while (s->at < s->length && strchr(" \t\r\n", s->text[s->at]) && s->text[s->at]) ++s->at;
}

/* Past the string that starts at s->at (a '"'). */
static void skip_string(scan_t *s) {
    for (++s->at; s->at < s->length; ++s->at) {
        if (s->text[s->at] == '\\')
            ++s->at;
        else if (s->text[s->at] == '"') {
            ++s->at;
            return;
        }
    }
}

/* Past the value that starts at s->at. */
static void skip_value(scan_t *s) {
    skip_space(s);
    if (s->at >= s->length) return;
    char c = s->text[s->at];
    if (c == '"') {
        skip_string(s);
        return;
    }
    if (c != '{' && c != '[') {
        while (s->at < s->length && !strchr(",]} \t\r\n", s->text[s->at])) ++s->at;
        return;
    }
    size_t depth = 0;
    while (s->at < s->length) {
        c = s->text[s->at];
        if (c == '"') {
            skip_string(s);
            continue;
        }
        ++s->at;
        if (c == '{' || c == '[') ++depth;
        if ((c == '}' || c == ']') && --depth == 0) return;
    }
}

/* From the object at s->at, to the value of member `key` [key, key + length); false when the
 * object has no such member (s->at is then left where the object starts). */
static bool enter_member(scan_t *s, char const *key, size_t length) {
    size_t start = s->at;
    ++s->at; /* '{' */
    for (;;) {
        skip_space(s);
        if (s->at >= s->length || s->text[s->at] != '"') break;
        size_t name = s->at + 1;
        skip_string(s);
        size_t name_length = s->at > name ? s->at - name - 1 : 0;
        skip_space(s);
        if (s->at >= s->length || s->text[s->at] != ':') break;
        ++s->at;
        skip_space(s);
        if (name_length == length && memcmp(s->text + name, key, length) == 0) return true;
        skip_value(s);
        skip_space(s);
        if (s->at >= s->length || s->text[s->at] != ',') break;
        ++s->at;
    }
    s->at = start;
    return false;
}

/* From the array at s->at, to its element `index`; false when it has fewer. */
static bool enter_element(scan_t *s, size_t index) {
    size_t start = s->at;
    ++s->at; /* '[' */
    for (size_t i = 0;; ++i) {
        skip_space(s);
        if (s->at >= s->length || s->text[s->at] == ']') break;
        if (i == index) return true;
        skip_value(s);
        skip_space(s);
        if (s->at >= s->length || s->text[s->at] != ',') break;
        ++s->at;
    }
    s->at = start;
    return false;
}

size_t arp_json_locate(char const *text, size_t length, char const *path) {
    scan_t s = {text, length, 0};
    skip_space(&s);
    if (!path || path[0] != '$') return s.at;
    for (char const *p = path + 1; *p && s.at < length;) {
        char c = text[s.at];
        if (*p == '.' && c == '{') {
            size_t key = strcspn(p + 1, ".[");
            if (!enter_member(&s, p + 1, key)) break;
            p += 1 + key;
        } else if (*p == '[' && c == '[') {
            char *end;
            unsigned long long index = strtoull(p + 1, &end, 10);
            if (end == p + 1 || *end != ']' || !enter_element(&s, (size_t)index)) break;
            p = end + 1;
        } else {
            break;
        }
    }
    return s.at;
}
