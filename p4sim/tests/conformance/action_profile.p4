// Action profiles: two tables share `ap`'s members, a third has its own
// profile constructed in place. The STF's `add` on such a table makes a
// member of the action (one per action and arguments) and an entry that
// names it; the tests in tests/all/exec.rs drive members directly.
#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8>  k;
    bit<8>  j;
    bit<16> acc;
}
struct headers_t { h_t h; }
struct meta_t { }

parser P(packet_in pkt, out headers_t hdr, inout meta_t meta,
         inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.h);
        transition accept;
    }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    action set_out(bit<16> v) { hdr.h.acc = hdr.h.acc + v; }
    action to_port(bit<9> p) { sm.egress_spec = p; }
    action_profile(4) ap;
    table first {
        key = { hdr.h.k: exact; }
        actions = { set_out; to_port; NoAction; }
        implementation = ap;
        default_action = NoAction();
    }
    table second {
        key = { hdr.h.j: exact; }
        actions = { set_out; to_port; NoAction; }
        implementation = ap;
        default_action = NoAction();
    }
    table ports {
        key = { hdr.h.k: ternary; }
        actions = { to_port; }
        @name("port_profile") implementation = action_profile(2);
        default_action = to_port(1);
    }
    apply {
        ports.apply();
        first.apply();
        second.apply();
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control V(inout headers_t hdr, inout meta_t meta) { apply { } }
control C(inout headers_t hdr, inout meta_t meta) { apply { } }
control D(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr.h); } }

V1Switch(P(), V(), Ing(), Eg(), C(), D()) main;
