/* arenaref: the one public header. It includes the error convention (status.h), arenas and
 * executors (arena.h), zero-copy export to Arrow and DLPack (export.h), plans and the
 * certificate (plan.h), and placement (place.h): every public header but the CUDA ones
 * (cuda.h, cuda_register.h), which this header never includes. */
#ifndef ARENAREF_ARENAREF_H
#define ARENAREF_ARENAREF_H

#include "arenaref/status.h"
#include "arenaref/plan.h"
#include "arenaref/arena.h"
#include "arenaref/export.h"
#include "arenaref/place.h"

#endif
