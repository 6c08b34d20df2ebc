/* Typed expect macros for the project's C tests, in jemalloc's manner: each prints both values
 * and where, counts the failure, and lets the test go on; `expect_finish()` turns the count into
 * the exit status (0 pass, 1 fail). `skip_test(why)` exits 77, which ctest reports as skipped
 * (SKIP_RETURN_CODE), for hardware this machine lacks. */
#ifndef ARENAREF_TEST_EXPECT_H
#define ARENAREF_TEST_EXPECT_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int expect_failures_ = 0;
static int expect_checks_ = 0;

#define expect_fail_(fmt, ...)                                                                     \
    do {                                                                                           \
        ++expect_failures_;                                                                        \
        fprintf(stderr, "%s:%d: " fmt "\n", __FILE__, __LINE__, __VA_ARGS__);                      \
    } while (0)

#define expect_cmp_(type, pri, a, op, b)                                                           \
    do {                                                                                           \
        type expect_a_ = (type)(a), expect_b_ = (type)(b);                                         \
        ++expect_checks_;                                                                          \
        if (!(expect_a_ op expect_b_))                                                             \
            expect_fail_("expected %s " #op " %s: %" pri " vs %" pri, #a, #b, expect_a_,           \
                         expect_b_);                                                               \
    } while (0)

#define expect_u64_eq(a, b) expect_cmp_(uint64_t, PRIu64, a, ==, b)
#define expect_u64_ne(a, b) expect_cmp_(uint64_t, PRIu64, a, !=, b)
#define expect_u64_le(a, b) expect_cmp_(uint64_t, PRIu64, a, <=, b)
#define expect_u64_lt(a, b) expect_cmp_(uint64_t, PRIu64, a, <, b)
#define expect_u64_ge(a, b) expect_cmp_(uint64_t, PRIu64, a, >=, b)
#define expect_u64_gt(a, b) expect_cmp_(uint64_t, PRIu64, a, >, b)
#define expect_i64_eq(a, b) expect_cmp_(int64_t, PRId64, a, ==, b)
#define expect_i64_ne(a, b) expect_cmp_(int64_t, PRId64, a, !=, b)
#define expect_int_eq(a, b) expect_cmp_(int, "d", a, ==, b)
#define expect_int_ne(a, b) expect_cmp_(int, "d", a, !=, b)
#define expect_size_eq(a, b) expect_cmp_(size_t, "zu", a, ==, b)
#define expect_dbl_eq(a, b) expect_cmp_(double, ".17g", a, ==, b)
typedef void const *expect_ptr_t_; /* one token, so expect_cmp_ declares two pointers */
#define expect_ptr_eq(a, b) expect_cmp_(expect_ptr_t_, "p", a, ==, b)
#define expect_ptr_ne(a, b) expect_cmp_(expect_ptr_t_, "p", a, !=, b)
#define expect_ptr_null(a) expect_ptr_eq(a, NULL)
#define expect_ptr_not_null(a) expect_ptr_ne(a, NULL)

#define expect_true(c)                                                                             \
    do {                                                                                           \
        ++expect_checks_;                                                                          \
        if (!(c)) expect_fail_("expected %s to hold", #c);                                         \
    } while (0)
#define expect_false(c) expect_true(!(c))

#define expect_str_eq(a, b)                                                                        \
    do {                                                                                           \
        char const *expect_sa_ = (a), *expect_sb_ = (b);                                           \
        ++expect_checks_;                                                                          \
        if (!expect_sa_ || !expect_sb_ || strcmp(expect_sa_, expect_sb_) != 0)                     \
            expect_fail_("expected %s == %s: \"%s\" vs \"%s\"", #a, #b,                            \
                         expect_sa_ ? expect_sa_ : "(null)", expect_sb_ ? expect_sb_ : "(null)");  \
    } while (0)

#define expect_str_contains(haystack, needle)                                                      \
    do {                                                                                           \
        char const *expect_h_ = (haystack), *expect_n_ = (needle);                                 \
        ++expect_checks_;                                                                          \
        if (!expect_h_ || !strstr(expect_h_, expect_n_))                                           \
            expect_fail_("expected %s to contain \"%s\": \"%s\"", #haystack, expect_n_,            \
                         expect_h_ ? expect_h_ : "(null)");                                        \
    } while (0)

/* Stop the test now: for a failure after which nothing else is meaningful. */
#define require_true(c)                                                                            \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            fprintf(stderr, "%s:%d: required %s\n", __FILE__, __LINE__, #c);                       \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define skip_test(why)                                                                             \
    do {                                                                                           \
        fprintf(stderr, "skipped: %s\n", why);                                                     \
        exit(77);                                                                                  \
    } while (0)

static inline int expect_finish(void) {
    if (expect_checks_ == 0) {
        fprintf(stderr, "no checks ran: a test that checks nothing cannot fail\n");
        return 1;
    }
    if (expect_failures_)
        fprintf(stderr, "%d of %d checks failed\n", expect_failures_, expect_checks_);
    return expect_failures_ ? 1 : 0;
}

#endif
