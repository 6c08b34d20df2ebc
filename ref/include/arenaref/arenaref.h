/* arenaref: the one public header. It includes the error convention (status.h), arenas and
 * executors (arena.h), and plans and the certificate (plan.h). The optional CUDA helpers live
 * in arenaref/cuda.h, which this header never includes. */
#ifndef ARENAREF_ARENAREF_H
#define ARENAREF_ARENAREF_H

#include "arenaref/status.h"
#include "arenaref/plan.h"
#include "arenaref/arena.h"

#endif
