// Struct and tuple constants (p4c's issue1210: `const PortId_t
// PSA_CPU_PORT = {9w192};`): from a list and from a named initializer,
// nested; read by member, assigned whole, and compared with a place of
// their type on either side of == and !=.
#include <core.p4>
#include <v1model.p4>

struct port_t { bit<9> v; }
struct pair_t { port_t port; bit<8> tag; }
const port_t CPU = {9w192};
const pair_t PAIR = { port = {9w3}, tag = 8w0xAB };
const tuple<bit<8>, bit<16>> TUP = {8w1, 16w0x0203};

header h_t { bit<7> pad; bit<9> port; bit<8> tag; bit<8> a; bit<16> b; bit<8> res; }
struct headers_t { h_t h; }
struct meta_t { port_t p; }

parser Prs(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.h); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = PAIR.port.v;
        meta.p.v = hdr.h.port;
        bit<8> r = 0;
        if (meta.p == CPU) { r = r | 1; }
        if (CPU == meta.p) { r = r | 2; }
        if (meta.p != CPU) { r = r | 4; }
        pair_t q = PAIR;
        if (q == PAIR) { r = r | 8; }
        q.port = meta.p;
        q.tag = hdr.h.tag;
        if (q == PAIR) { r = r | 16; }
        tuple<bit<8>, bit<16>> t = { hdr.h.a, hdr.h.b };
        if (t == TUP) { r = r | 32; }
        hdr.h.res = r;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(Prs(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
