/* The family table: one entry per file family_NAME.c, which CMake lists in families.inc (in
 * the order of AR_WORKLOAD_FAMILY_ORDER, the rest by name), so adding a family adds one file.
 * The listed name is the file's; each entry's own name must equal it (test_registry). */
#include <string.h>

#include "wl.h"

#define ARP_WL_FAMILY(name) extern arp_wl_family_t const arp_wl_family_##name;
#include "families.inc"
#undef ARP_WL_FAMILY

static arp_wl_family_t const *const families[] = {
#define ARP_WL_FAMILY(name) &arp_wl_family_##name,
#include "families.inc"
#undef ARP_WL_FAMILY
};

static char const *const family_names[] = {
#define ARP_WL_FAMILY(name) #name,
#include "families.inc"
#undef ARP_WL_FAMILY
    NULL};

char const *const *ar_workload_families(void) { return family_names; }

arp_wl_family_t const *arp_wl_find_family(char const *name) {
    if (!name) return NULL;
    for (size_t i = 0; i < sizeof families / sizeof *families; ++i)
        if (strcmp(families[i]->name, name) == 0) return families[i];
    return NULL;
}

/* Every fault applies to every transformer family: each family has a layer bank walked by a repeat, an
 * embedding phase that declares the "mask" plane every attention-scores phase carries, and
 * phases with planes; the two precision probes bring their own repeats. Whether the plan is
 * big enough (a fault's min_layers) is checked when generating. A family may list the faults it
 * takes (flat: those that need only a launch and the window, and the in-place one); a fault
 * planted in an in-place update applies where the family makes one it can plant in. */
bool ar_workload_fault_applies(char const *family, char const *fault) {
    arp_wl_family_t const *f = arp_wl_find_family(family);
    arp_wl_fault_t const *entry = arp_wl_find_fault(fault);
    if (!f || !entry) return false;
    if (entry->in_place && !f->in_place_fault) return false;
    if (!f->faults) return true;
    for (char const *const *name = f->faults; *name; ++name)
        if (strcmp(*name, fault) == 0) return true;
    return false;
}
