// Generated from core/src/constants.rs by esa_core::p4gen: do not edit.
// Regenerate: ESA_BLESS=1 cargo test -p esa-core --test p4_constants
#ifndef ESA_CONSTANTS_P4
#define ESA_CONSTANTS_P4

// Value lanes per packet (K); compile with -DESA_LANES=K to change.
#ifndef ESA_LANES
#define ESA_LANES 32
#endif
// Aggregator slots (a power of two); -DESA_POOL_SLOTS=N to change.
#ifndef ESA_POOL_SLOTS
#define ESA_POOL_SLOTS 4096
#endif
// Entries of per-job tables and counters (job ids are 12 bits).
#define ESA_MAX_JOBS 4096

const bit<16> ESA_UDP_PORT = 17747;
const bit<4> ESA_VERSION = 1;
const bit<16> ESA_HEADER_LEN = 16;
const bit<8> ESA_MAX_FAN_IN = 32;
const bit<4> ESA_MAX_PRIORITY = 15;
const bit<8> PS_WORKER_ID = 255;
const bit<48> DEFAULT_STALE_AFTER_US = 10000;

// Packet types (docs/protocol.md 2.3).
const bit<4> TYPE_DATA = 1;
const bit<4> TYPE_RESULT = 2;
const bit<4> TYPE_FALLBACK = 3;
const bit<4> TYPE_EVICTED = 4;
const bit<4> TYPE_FLUSH = 5;
const bit<4> TYPE_QUERY = 6;

// Flags (docs/protocol.md 2.4).
const bit<8> FLAG_RESEND = 0x01;
const bit<8> FLAG_COLLISION = 0x02;
const bit<8> FLAG_OVERFLOW = 0x04;
const bit<8> FLAG_STALE = 0x08;
const bit<8> FLAG_ECN = 0x10;

// slot_flags bits (docs/protocol.md 3.2).
const bit<8> SLOT_COMPLETE = 0x01;
const bit<8> SLOT_HELD = 0x02;
const bit<8> SLOT_OVERFLOW = 0x04;

// Job modes (docs/protocol.md 5).
const bit<2> MODE_ESA = 0;
const bit<2> MODE_ATP = 1;
const bit<2> MODE_SWITCHML = 2;

// ESA_FOR_EACH_LANE(M) expands M(0) M(1) ... M(ESA_LANES - 1), so
// lanes are generated, never copied by hand.
#if ESA_LANES == 4
#define ESA_FOR_EACH_LANE(M) M(0) M(1) M(2) M(3)
#elif ESA_LANES == 8
#define ESA_FOR_EACH_LANE(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7)
#elif ESA_LANES == 16
#define ESA_FOR_EACH_LANE(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15)
#elif ESA_LANES == 32
#define ESA_FOR_EACH_LANE(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15) M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29) M(30) M(31)
#elif ESA_LANES == 64
#define ESA_FOR_EACH_LANE(M) M(0) M(1) M(2) M(3) M(4) M(5) M(6) M(7) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15) M(16) M(17) M(18) M(19) M(20) M(21) M(22) M(23) M(24) M(25) M(26) M(27) M(28) M(29) M(30) M(31) M(32) M(33) M(34) M(35) M(36) M(37) M(38) M(39) M(40) M(41) M(42) M(43) M(44) M(45) M(46) M(47) M(48) M(49) M(50) M(51) M(52) M(53) M(54) M(55) M(56) M(57) M(58) M(59) M(60) M(61) M(62) M(63)
#else
#error "ESA_LANES must be one of 4, 8, 16, 32, 64"
#endif

#endif  // ESA_CONSTANTS_P4
