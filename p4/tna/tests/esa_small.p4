// The TNA esa.p4 with 4 lanes and a 16-slot pool, the configuration of
// ../../tests/esa_small.p4: the STF scenarios of tests/p4_stf.rs and the
// differential test against esa_core::pool run on it in p4sim.
#define ESA_LANES 4
#define ESA_POOL_SLOTS 16
#include "../esa.p4"
