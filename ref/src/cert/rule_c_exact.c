/* Rule C of the exact oracle (CERTIFICATE.md §4): every word at every ordinal tuple it stands
 * for, each value a point. Only the repeats that name a word move it, so a word is evaluated
 * once per tuple of its naming repeats' ordinals (an odometer, innermost last), from the same
 * naming stream as the certificate. The evaluations are counted first and a plan over
 * options.exact_limit is refused whatever its verdict. Rules A, B and D are the certificate's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert/certify_internal.h"

typedef struct odometer_t {
    arp_naming_t const *naming;
    uint64_t iterations;
    bool frames;
    uint64_t ordinal;
    size_t cursor;  /* into cert->frame_entries, for a frames repeat */
    uint64_t shift; /* this repeat's shift at `ordinal`, mod 2^64 */
} odometer_t;

ar_status_t arp_rule_c_exact(arp_cert_t const *cert, ar_certify_report_t *report,
                             size_t *failed_launch) {
    *failed_launch = SIZE_MAX;
    ar_plan_t const *plan = cert->plan;
    odometer_t *groups = NULL;
    size_t capacity = 0;

    /* The whole unrolled work first, so refusal does not depend on the verdict. */
    arp_u128_t total = 0;
    arp_naming_stream_t stream;
    arp_namings_stream_begin(cert, &stream);
    for (size_t li = 0; li < plan->launches_count; ++li) {
        ar_launch_t const *launch = &plan->launches[li];
        if (launch->phase < 0 || (size_t)launch->phase >= plan->phases_count) continue;
        size_t named = 0;
        if (arp_namings_stream_launch(cert, &stream, li, &named) != ar_status_success_k) {
            arp_namings_stream_end(&stream);
            return ar_status_out_of_memory_k;
        }
        /* A word none names is one evaluation; a named one, the product of its repeats'. */
        size_t named_words = 0;
        for (size_t k = 0; k < named;) {
            arp_u128_t tuples = 1;
            size_t word = stream.out[k].word;
            for (; k < named && stream.out[k].word == word; ++k)
                tuples =
                    arp_u128_mul_sat(tuples, plan->repeats[stream.out[k].naming.repeat].iterations);
            total = arp_u128_add_sat(total, tuples);
            ++named_words;
        }
        total = arp_u128_add_sat(total, launch->words_count - named_words);
    }
    arp_namings_stream_end(&stream);
    if (total > cert->options.exact_limit) {
        char count[48];
        arp_u128_decimal(total, count, sizeof count);
        snprintf(report->message, sizeof report->message,
                 "the exact oracle refuses this plan: its rule C would evaluate %s words at "
                 "their ordinals, past its limit of %" PRIu64 " (options.exact_limit)",
                 count, cert->options.exact_limit);
        return ar_status_unsupported_k;
    }

    bool failed = false;
    ar_status_t status = ar_status_success_k;
    arp_namings_stream_begin(cert, &stream);
    for (size_t li = 0; li < plan->launches_count && !status; ++li) {
        ar_launch_t const *launch = &plan->launches[li];
        size_t named = 0;
        status = arp_namings_stream_launch(cert, &stream, li, &named);
        if (status) break;
        arp_site_naming_t const *next = stream.out, *end = named ? stream.out + named : stream.out;
        bool phaseless = launch->phase < 0 || (size_t)launch->phase >= plan->phases_count;
        bool launch_ok = !phaseless;
        if (phaseless && !failed) {
            failed = true;
            *failed_launch = li;
            arp_cert_report_phaseless(report, plan, li);
        }
        if (phaseless && !cert->options.all_sites) break;
        for (size_t w = 0; w < launch->words_count; ++w) {
            size_t site = launch->words_first + w;
            ++report->sites_checked;
            if (phaseless) continue;
            while (next < end && next->word < w) ++next;
            arp_site_naming_t const *first = next;
            while (next < end && next->word == w) ++next;
            size_t count = (size_t)(next - first);
            if (count > capacity) {
                odometer_t *grown = realloc(groups, count * sizeof *groups);
                if (!grown) {
                    status = ar_status_out_of_memory_k;
                    break;
                }
                groups = grown, capacity = count;
            }
            size_t n = count;
            uint64_t word = plan->words[site], sum = 0;
            for (size_t g = 0; g < n; ++g) {
                arp_naming_t const *naming = &first[g].naming;
                ar_repeat_t const *rep = &plan->repeats[naming->repeat];
                groups[g] = (odometer_t){naming, rep->iterations,       rep->has_frames,
                                         0,      naming->entries_first, 0};
                groups[g].shift =
                    arp_cert_shift_at(cert, naming, rep->has_frames, 0, &groups[g].cursor);
                sum += groups[g].shift;
            }
            bool site_ok = true; /* every repeat runs at least once (finish) */
            for (;;) {
                uint64_t value = word + sum;
                ++report->evaluations;
                if (arp_cert_meets_window(cert, value, value, NULL) &&
                    !arp_cert_allowed(cert, launch->phase, value, value)) {
                    site_ok = false;
                    if (!failed) {
                        char detail[256] = "";
                        int used = 0;
                        for (size_t g = 0; g < n && used >= 0 && (size_t)used < sizeof detail - 48;
                             ++g)
                            used +=
                                snprintf(detail + used, sizeof detail - (size_t)used,
                                         "%s iteration %" PRIu64 " of repeat %zu", g ? "," : "at",
                                         groups[g].ordinal, groups[g].naming->repeat);
                        failed = true;
                        *failed_launch = li;
                        report->launch = li, report->word = w, report->lo = report->hi = value;
                        arp_cert_describe_c(cert, li, w, value, value, detail, report->message,
                                            sizeof report->message);
                    }
                    break;
                }
                /* Next ordinal tuple, innermost (last) repeat fastest. */
                size_t g = n;
                while (g > 0) {
                    odometer_t *o = &groups[g - 1];
                    sum -= o->shift;
                    if (++o->ordinal < o->iterations) {
                        o->shift =
                            arp_cert_shift_at(cert, o->naming, o->frames, o->ordinal, &o->cursor);
                        sum += o->shift;
                        break;
                    }
                    o->ordinal = 0;
                    o->shift = arp_cert_shift_at(cert, o->naming, o->frames, 0, &o->cursor);
                    sum += o->shift;
                    --g;
                }
                if (g == 0) break;
            }
            if (site_ok)
                ++report->sites_accepted;
            else {
                launch_ok = false;
                if (!cert->options.all_sites) break;
            }
        }
        if (!launch_ok && !cert->options.all_sites) break;
    }
    free(groups);
    arp_namings_stream_end(&stream);
    return status;
}
