/* The verdict (CERTIFICATE.md §3): rules A and B, then C (the certificate's or the exact
 * oracle's), then D, each reading the plan and what the one before handed it; the first rule
 * broken gives the verdict, 2 + n + k printed exactly at any size. The readings of the
 * contract this follows are in ref/README.md.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cert/certify_internal.h"

void ar_certify_options_default(ar_certify_options_t *options) {
    if (!options) return;
    memset(options, 0, sizeof *options);
    options->few = AR_CERTIFY_FEW_DEFAULT;
}

static void set_verdict(ar_certify_report_t *report, ar_rule_t rule, arp_u128_t verdict) {
    report->rule = rule;
    report->verdict = arp_u128_to_u64_sat(verdict);
    arp_u128_decimal(verdict, report->verdict_text, sizeof report->verdict_text);
}

/* The decimal text of `add` + the number `decimal` spells, of any length; false when the sum
 * does not fit `size`. */
static bool decimal_add(char const *decimal, uint64_t add, char *out, size_t size) {
    if (size < 2) return false;
    size_t i = strlen(decimal), at = size - 1;
    out[at] = '\0';
    arp_u128_t carry = add;
    while (i > 0 || carry || at == size - 1) {
        if (at == 0) return false;
        if (i > 0) carry += (arp_u128_t)(decimal[--i] - '0');
        out[--at] = (char)('0' + (int)(carry % 10));
        carry /= 10;
    }
    memmove(out, out + at, size - at);
    return true;
}

static ar_status_t fail_status(ar_certify_report_t *report, ar_status_t status, char const *why) {
    report->rule = ar_rule_none_k;
    report->verdict = 0;
    snprintf(report->verdict_text, sizeof report->verdict_text, "none");
    snprintf(report->message, sizeof report->message, "%s", why);
    return status;
}

/* Options as given, with 0 meaning the default; a `few` past its limit is refused. */
static ar_status_t read_options(ar_certify_options_t const *given, ar_certify_options_t *options,
                                ar_certify_report_t *report) {
    if (given)
        *options = *given;
    else
        ar_certify_options_default(options);
    if (options->exact_limit == 0) options->exact_limit = (uint64_t)1 << 32;
    if (options->few == 0) options->few = AR_CERTIFY_FEW_DEFAULT;
    if (options->few <= AR_CERTIFY_FEW_MAX) return ar_status_success_k;
    char message[160];
    snprintf(message, sizeof message,
             "few %" PRIu64 " is above the limit %" PRIu64 " (2^24): listing that many points "
             "per word could take hours",
             options->few, AR_CERTIFY_FEW_MAX);
    return fail_status(report, ar_status_invalid_argument_k, message);
}

/* Rule D's outcome into the report: counts, and the verdict 2 + n + k when it broke. */
static ar_status_t report_rule_d(ar_plan_t const *plan, arp_rule_d_t const *d,
                                 ar_certify_report_t *report) {
    report->executed_launches = arp_u128_to_u64_sat(d->executed_launches);
    report->instances = arp_u128_to_u64_sat(d->instances);
    if (!d->broken) return ar_status_success_k;
    /* The exact text is k's plus 2 + n, in decimal (k may pass 2^128). */
    report->rule = ar_rule_d_k;
    report->verdict = arp_u128_to_u64_sat(
        arp_u128_add_sat(arp_u128_add_sat(2, plan->launches_count), d->instance));
    report->instance = arp_u128_to_u64_sat(d->instance);
    snprintf(report->instance_text, sizeof report->instance_text, "%s", d->instance_text);
    if (!decimal_add(d->instance_text, (uint64_t)plan->launches_count + 2, report->verdict_text,
                     sizeof report->verdict_text))
        return fail_status(report, ar_status_unsupported_k,
                           "the verdict has more digits than a report holds");
    snprintf(report->message, sizeof report->message, "%s", d->message);
    return ar_status_success_k;
}

/* Zero every field, each text to "" (the texts' tails are not cleared: 4 KB per call). */
static void clear_report(ar_certify_report_t *report) {
    size_t const texts[3][2] = {
        {offsetof(ar_certify_report_t, verdict_text), sizeof report->verdict_text},
        {offsetof(ar_certify_report_t, message), sizeof report->message},
        {offsetof(ar_certify_report_t, instance_text), sizeof report->instance_text},
    };
    char *bytes = (char *)report;
    size_t at = 0;
    for (int t = 0; t < 3; ++t) {
        memset(bytes + at, 0, texts[t][0] + 1 - at);
        at = texts[t][0] + texts[t][1];
    }
    memset(bytes + at, 0, sizeof *report - at);
}

ar_status_t ar_certify(ar_plan_t const *plan, ar_certify_options_t const *options,
                       ar_certify_report_t *report) {
    if (!report) return ar_status_invalid_argument_k;
    clear_report(report);
    if (!plan) return fail_status(report, ar_status_invalid_argument_k, "no plan (NULL)");
    if (!plan->finished)
        return fail_status(report, ar_status_invalid_argument_k,
                           "the plan is not finished: call ar_plan_finish first");
    arp_cert_t cert = {.plan = plan};
    ar_status_t status = read_options(options, &cert.options, report);
    if (status) return status;
    set_verdict(report, ar_rule_none_k, 0);
    snprintf(report->message, sizeof report->message, "certified");
    snprintf(report->instance_text, sizeof report->instance_text, "0");

    /* A and B; they leave the globals and each phase's planes sorted, for C. */
    ar_rule_t rule;
    status = arp_rule_ab(&cert, &rule, report->message, sizeof report->message);
    if (status) goto out;
    if (rule != ar_rule_none_k) {
        set_verdict(report, rule, 1);
        status = ar_status_success_k;
        goto out;
    }
    /* C reads the windows' union and which repeats name each word. */
    status = arp_cert_windows(&cert);
    if (!status) status = arp_namings_build(&cert);
    if (status) goto out;
    size_t failed = SIZE_MAX;
    status = cert.options.exact ? arp_rule_c_exact(&cert, report, &failed)
                                : arp_rule_c(&cert, report, &failed);
    if (status) goto out;
    if (failed != SIZE_MAX) {
        set_verdict(report, ar_rule_c_k, (arp_u128_t)2 + failed);
        goto out;
    }
    /* D reads the plan alone (its repeat order and phase runs come from ar_plan_finish). */
    arp_rule_d_t d;
    status = arp_rule_d(plan, &d);
    if (!status)
        status = report_rule_d(plan, &d, report);
    else
        snprintf(report->message, sizeof report->message, "%s", d.message);
out:
    if (status == ar_status_out_of_memory_k)
        fail_status(report, status, "out of memory while certifying the plan");
    else if (status) {
        report->rule = ar_rule_none_k, report->verdict = 0;
        snprintf(report->verdict_text, sizeof report->verdict_text, "none");
    }
    free(cert.global_order), free(cert.pieces_owned);
    free(cert.plane_lo), free(cert.plane_hi), free(cert.plane_index);
    free(cert.spans);
    arp_namings_free(&cert);
    return status;
}
