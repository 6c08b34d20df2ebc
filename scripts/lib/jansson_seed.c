/* An LD_PRELOAD shim for instruction counts of past builds: fixes jansson's hash seed before
 * main, so object key order (and what the loader hands the certificate) is the same in every
 * run. Without it one build's count of one ar_certify call moves by ~0.1% between runs. */
#include <jansson.h>

__attribute__((constructor)) static void arp_fixed_jansson_seed(void) { json_object_seed(0x5eed); }
