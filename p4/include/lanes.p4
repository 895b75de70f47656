// The K value lanes of the aggregator pool: one register array per lane,
// each read and written exactly once per packet (what Tofino requires of a
// register array), instantiated by macro rather than copied by hand.
#ifndef ESA_LANES_P4
#define ESA_LANES_P4

#include "headers.p4"

control Lane(inout bit<32> value, in bit<32> index, in bit<2> op, in bit<2> out_sel) {
    register<bit<32>>(ESA_POOL_SLOTS) lane;

    apply {
        bit<32> old;
        lane.read(old, index);
        bit<32> updated = old;
        if (op == LANE_WRITE) {
            updated = value;
        } else if (op == LANE_ADD) {
            updated = old + value;
        }
        lane.write(index, updated);
        if (out_sel == OUT_OLD) {
            value = old;
        } else if (out_sel == OUT_NEW) {
            value = updated;
        }
    }
}

#define ESA_LANE_DECLARE(i) Lane() lane##i;
#define ESA_LANE_APPLY(i) lane##i.apply(hdr.values.v##i, meta.index, meta.lane_op, meta.lane_out);

#endif  // ESA_LANES_P4
