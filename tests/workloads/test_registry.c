/* The tables behind the generators: every family file's entry is listed under its own name, in
 * the documented order (decoder, moe, training, pipeline, encoder, then any other by name),
 * with four presets whose models exist; every fault's entry is found by its name, names a site
 * where its verdict class needs one, and applies to every family that does not list its own
 * (flat lists the three it takes: it exists in the table, and applies to none other); unknown
 * names are refused. */
#include <string.h>

#include "expect.h"
#include "wl.h"

int main(void) {
    char const *const order[] = {"decoder", "moe", "training", "pipeline", "encoder"};
    char const *const *families = ar_workload_families();
    size_t count = 0;
    for (; families[count]; ++count) {
        arp_wl_family_t const *family = arp_wl_find_family(families[count]);
        require_true(family != NULL);
        expect_str_eq(family->name, families[count]);
        expect_true(family->declare != NULL && family->emit != NULL);
        for (int p = 0; p < ARP_WL_PRESETS; ++p) {
            expect_true(arp_wl_find_model(family->presets[p].model) != NULL);
            expect_true(family->presets[p].batch > 0 && family->presets[p].seq > 0);
            expect_true(family->presets[p].decode > 0 && family->presets[p].epochs > 0);
        }
        if (count < 5) expect_str_eq(families[count], order[count]);
        if (count > 5) expect_true(strcmp(families[count - 1], families[count]) < 0);
    }
    expect_true(count >= 6);
    require_true(arp_wl_find_family("flat") != NULL);
    expect_true(ar_workload_fault_applies("flat", "stray-pointer"));
    expect_false(ar_workload_fault_applies("flat", "carried-clobbered"));
    expect_true(ar_workload_fault_applies("decoder", "in-place-input-read-later"));
    expect_true(ar_workload_fault_applies("moe", "in-place-input-read-later"));
    expect_true(ar_workload_fault_applies("training", "in-place-input-read-later"));
    expect_true(ar_workload_fault_applies("flat", "in-place-input-read-later"));
    expect_true(ar_workload_fault_applies("flat", "in-place-cross-read"));
    expect_true(ar_workload_fault_applies("training", "in-place-cross-read"));
    expect_false(ar_workload_fault_applies("flat", "misaligned-plane"));
    expect_ptr_null(arp_wl_find_family("no-such-family"));
    expect_ptr_null(arp_wl_find_family(NULL));

    size_t faults = 0;
    for (char const *const *name = ar_workload_faults(); *name; ++name, ++faults) {
        arp_wl_fault_t const *fault = arp_wl_find_fault(*name);
        require_true(fault != NULL);
        expect_str_eq(fault->name, *name);
        expect_true(fault->plant != NULL);
        if (fault->verdict != ARP_WL_RANGES) expect_true(fault->site < ARP_WL_SITE_COUNT);
        if (fault->verdict == ARP_WL_PROBE) expect_int_eq(fault->stage, ARP_WL_EMITTED);
        for (char const *const *f = families; *f; ++f) {
            arp_wl_family_t const *family = arp_wl_find_family(*f);
            bool listed = !family->faults;
            for (char const *const *g = family->faults; g && *g; ++g)
                listed |= strcmp(*g, *name) == 0;
            if (fault->in_place && !family->in_place) listed = false; /* needs the knob */
            expect_true(ar_workload_fault_applies(*f, *name) == listed);
        }
    }
    expect_size_eq(faults, 13);
    expect_ptr_null(arp_wl_find_fault("no-such-fault"));
    expect_ptr_eq(ar_workload_faults(), ar_workload_faults()); /* one static list */
    return expect_finish();
}
