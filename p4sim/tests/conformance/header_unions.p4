// Header unions as BMv2 runs them (p4c samples issue561-3, issue561-6):
// making one member valid, with setValid or extract, makes the others
// invalid; extract(stack.next.member) on a stack of unions fills the
// member of the element at nextIndex and advances it.
#include <core.p4>
#include <v1model.p4>

header t_t { bit<8> t; }
header b_t { bit<8> v; }
header s_t { bit<16> v; }
header_union u_t { b_t b; s_t s; }
struct headers_t { t_t t; u_t u; u_t[2] us; }
struct meta_t { }

parser Prs(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.t);
        transition select(hdr.t.t) {
            0: one_byte;
            1: short_then_byte;
            2: stack;
            default: accept;
        }
    }
    state one_byte {
        pkt.extract(hdr.u.b);
        transition accept;
    }
    state short_then_byte {
        pkt.extract(hdr.u.s);
        pkt.extract(hdr.u.b);
        transition accept;
    }
    state stack {
        pkt.extract(hdr.us.next.b);
        pkt.extract(hdr.us.next.s);
        transition accept;
    }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        if (hdr.t.t == 0) {
            hdr.u.s.setValid();
            hdr.u.s.v = 0xabcd;
        }
        if (hdr.t.t == 2) {
            hdr.us[1].s.v = hdr.us[1].s.v + 1;
            if (hdr.us[0].s.isValid() || hdr.us[1].b.isValid()) {
                hdr.t.t = 0xee;
            }
        }
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(Prs(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
