// Sub-parser instances: a parser applies another (with in, out and inout
// parameters, locals, several states), one instance is applied at two
// call sites, and a sub-parser applies a sub-parser of its own. A
// sub-parser that rejects (a packet too short) rejects the whole parse.
#include <core.p4>
#include <v1model.p4>

header eth_t { bit<8> kind; }
header opt_t { bit<8> type; bit<8> value; }
header cnt_t { bit<8> n; bit<8> base; }
struct headers_t { eth_t eth; opt_t a; opt_t b; opt_t c; cnt_t cnt; }
struct meta_t { bit<8> n; bit<8> base; }

parser Inner(packet_in pkt, out opt_t o, inout bit<8> n) {
    state start {
        pkt.extract(o);
        n = n + 1;
        transition select(o.type) {
            0x80 &&& 0x80: high;
            default: accept;
        }
    }
    state high {
        n = n + 0x10;
        transition accept;
    }
}

parser Outer(packet_in pkt, out opt_t x, out opt_t y, inout bit<8> n, in bit<8> base,
             out bit<8> seen) {
    Inner() inner;
    bit<8> local_base = 0;
    state start {
        local_base = base + 1;
        inner.apply(pkt, x, n);
        transition select(x.type) {
            1: second;
            default: done;
        }
    }
    state second {
        inner.apply(pkt, y, n);
        transition done;
    }
    state done {
        seen = local_base;
        transition accept;
    }
}

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    Outer() outer;
    Inner() single;
    state start {
        pkt.extract(hdr.eth);
        meta.n = 10;
        outer.apply(pkt, hdr.a, hdr.b, meta.n, hdr.eth.kind, meta.base);
        single.apply(pkt, hdr.c, meta.n);
        hdr.cnt.setValid();
        hdr.cnt.n = meta.n;
        hdr.cnt.base = meta.base;
        transition accept;
    }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply { sm.egress_spec = 1; }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(P(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
