/* The one clock every placement engine reads, passed to it (engine.h): the wall clock, or a
 * tick clock that moves a fixed step per read, so a run's work follows from its input; either
 * can be told to expire after a number of reads (tests) or when another thread's flag is set
 * (the portfolio's threads). No global state: each thread reads its own. */
#include <time.h>

#include "place/engine.h"

double arp_clock_now(arp_clock_t *clock) {
    ++clock->reads;
    if (clock->tick_s > 0) {
        clock->last = clock->ticks += clock->tick_s;
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        clock->last = (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
    }
    if ((clock->expire_after && clock->reads > clock->expire_after) ||
        (clock->stop && __atomic_load_n(clock->stop, __ATOMIC_RELAXED)))
        clock->expired = true;
    return clock->expired ? ARP_CLOCK_EXPIRED : clock->last;
}
