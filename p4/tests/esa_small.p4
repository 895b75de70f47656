// esa.p4 with 4 lanes and a 16-slot pool: small enough that random traces
// collide, preempt and fall back all the time (tests/p4_differential.rs).
#define ESA_LANES 4
#define ESA_POOL_SLOTS 16
#include "../v1model/esa.p4"
