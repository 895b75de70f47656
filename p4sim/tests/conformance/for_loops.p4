// `for` loops (P4_16 v1.2.4): a sum over a header stack, `continue`,
// `break`, `for (T x in lo .. hi)` (inclusive, no wrap at the type's
// largest value), nested loops with `break` and `continue` in the inner
// one, a run-time bound, and two variables in the init and update.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> limit;
    bit<8> sum;
    bit<8> evens;
    bit<8> first_over;
    bit<8> range_sum;
    bit<8> top_count;
    bit<8> pairs;
    bit<8> steps;
    bit<8> meet;
}
header e_t { bit<8> v; }
struct headers_t { h_t h; e_t[4] s; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        pkt.extract(hdr.s[0]);
        pkt.extract(hdr.s[1]);
        pkt.extract(hdr.s[2]);
        pkt.extract(hdr.s[3]);
        transition accept;
    }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        bit<8> sum = 0;
        for (bit<8> i = 0; i < 4; i = i + 1) {
            sum = sum + hdr.s[i].v;
        }
        hdr.h.sum = sum;

        // elements 0 and 2 only
        bit<8> evens = 0;
        for (bit<8> e = 0; e < 4; e = e + 1) {
            if ((e & 1) == 1) {
                continue;
            }
            evens = evens + hdr.s[e].v;
        }
        hdr.h.evens = evens;

        // the first element over the limit, 0xff when none is
        hdr.h.first_over = 0xff;
        for (bit<8> f = 0; f < 4; f = f + 1) {
            if (hdr.s[f].v > hdr.h.limit) {
                hdr.h.first_over = f;
                break;
            }
        }

        hdr.h.range_sum = 0;
        for (bit<8> k in 1 .. 5) {
            hdr.h.range_sum = hdr.h.range_sum + k;
        }

        // 250 .. 255 is six values; k + 1 would wrap at 255
        hdr.h.top_count = 0;
        for (bit<8> t in 250 .. 255) {
            hdr.h.top_count = hdr.h.top_count + 1;
        }

        // pairs (i, j) with j < i, skipping j == 1, the inner loop stopped
        // at j == 3: i = 0..4 gives 0 + 1 + 1 + 2 + 2 = 6
        bit<8> pairs = 0;
        for (bit<8> p = 0; p < 5; p = p + 1) {
            for (bit<8> j = 0; j < p; j = j + 1) {
                if (j == 1) {
                    continue;
                }
                if (j == 3) {
                    break;
                }
                pairs = pairs + 1;
            }
        }
        hdr.h.pairs = pairs;

        // a bound known only at run time
        hdr.h.steps = 0;
        for (bit<8> r = 0; r < hdr.h.limit; r = r + 1) {
            hdr.h.steps = hdr.h.steps + 2;
        }

        // two variables: where i and j meet
        bit<8> meet = 0;
        for (bit<8> lo = 0, bit<8> hi = 10; lo < hi; lo = lo + 1, hi = hi - 1) {
            meet = hi;
        }
        hdr.h.meet = meet;

        sm.egress_spec = 1;
    }
}
control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }

control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
