// The 64-value layout probe of p4/tna/README.md ("64 values in one pass:
// pair registers"): the lanes of esa.p4 as 32 Register<pair>s, pair p
// holding lanes p and p + 32 of a slot, pinned four to a stage (4..11) as
// esa.p4's lanes are. p4/tests/all/tofino_compile.rs compiles esa.p4 with
// these in place of its one-lane registers, at -DESA_LANES=64, to show
// that 64 values, the slot state and the rest of the program fit the
// PHV, stages and stateful ALUs of Tofino 1.
//
// It is a probe of resources, not a working program: a stateful ALU
// returns one 32-bit value, so a pair gives one half per pass, and the
// passes that would carry the other half out (README: what a 64-lane
// program still needs) are not written. The four RegisterActions are the
// ones that design needs (the hardware's budget for one register): add
// both halves and return the low sum; return the high half; write the low
// half and return the old one; write the high half and return the old one.
// esa.p4's lane operations are mapped onto them only so that each is
// reachable: ADD adds, SWAP and WRITE swap the low half, READ returns the
// high half; nothing swaps the high half but an extra operation code.

struct lane_pair_t {
    bit<32> lo;
    bit<32> hi;
}
const bit<3> LOP_SWAP_HI = 5;

#define TNA_PAIR_DECLARE(i, j)                                                  \
    Register<lane_pair_t, bit<16>>(ESA_POOL_SLOTS) lane_##i;                    \
    RegisterAction<lane_pair_t, bit<16>, bit<32>>(lane_##i) lane_##i##_add = {  \
        void apply(inout lane_pair_t v, out bit<32> rv) {                       \
            v.lo = v.lo + hdr.values.v##i;                                      \
            v.hi = v.hi + hdr.values.v##j;                                      \
            rv = v.lo;                                                          \
        }                                                                       \
    };                                                                          \
    RegisterAction<lane_pair_t, bit<16>, bit<32>>(lane_##i) lane_##i##_read_hi = { \
        void apply(inout lane_pair_t v, out bit<32> rv) {                       \
            rv = v.hi;                                                          \
        }                                                                       \
    };                                                                          \
    RegisterAction<lane_pair_t, bit<16>, bit<32>>(lane_##i) lane_##i##_swap_lo = { \
        void apply(inout lane_pair_t v, out bit<32> rv) {                       \
            rv = v.lo;                                                          \
            v.lo = hdr.values.v##i;                                             \
        }                                                                       \
    };                                                                          \
    RegisterAction<lane_pair_t, bit<16>, bit<32>>(lane_##i) lane_##i##_swap_hi = { \
        void apply(inout lane_pair_t v, out bit<32> rv) {                       \
            rv = v.hi;                                                          \
            v.hi = hdr.values.v##j;                                             \
        }                                                                       \
    };                                                                          \
    action lane_##i##_do_add() {                                                \
        hdr.values.v##i = lane_##i##_add.execute(meta.index);                   \
    }                                                                           \
    action lane_##i##_do_read_hi() {                                            \
        hdr.values.v##j = lane_##i##_read_hi.execute(meta.index);               \
    }                                                                           \
    action lane_##i##_do_swap_lo() {                                            \
        hdr.values.v##i = lane_##i##_swap_lo.execute(meta.index);               \
    }                                                                           \
    action lane_##i##_do_swap_hi() {                                            \
        hdr.values.v##j = lane_##i##_swap_hi.execute(meta.index);               \
    }                                                                           \
    @stage(4 + (i) / 4)                                                         \
    table lane_##i##_op {                                                       \
        key = { meta.lane_op: exact; }                                          \
        actions = {                                                             \
            lane_##i##_do_add; lane_##i##_do_read_hi; lane_##i##_do_swap_lo;    \
            lane_##i##_do_swap_hi; NoAction;                                    \
        }                                                                       \
        const default_action = NoAction();                                      \
        size = 8;                                                               \
        const entries = {                                                       \
            LOP_ADD: lane_##i##_do_add();                                       \
            LOP_SWAP: lane_##i##_do_swap_lo();                                  \
            LOP_WRITE: lane_##i##_do_swap_lo();                                 \
            LOP_READ: lane_##i##_do_read_hi();                                  \
            LOP_SWAP_HI: lane_##i##_do_swap_hi();                               \
        }                                                                       \
    }

#define TNA_PAIR_APPLY(i, j) lane_##i##_op.apply();
