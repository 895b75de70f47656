// Assignment to slices of any scalar l-value: a 128-bit field (the wide
// path: bits above, value, bits below), and a field of a header stack
// element chosen at run time.
#include <core.p4>
#include <v1model.p4>
header w_t { bit<128> x; bit<8> i; }
header e_t { bit<8> v; }
struct headers { w_t w; e_t[2] st; }
struct meta_t { bit<8> m; }
parser P(packet_in pkt, out headers hdr, inout meta_t meta, inout standard_metadata_t sm) { state start { pkt.extract(hdr.w); pkt.extract(hdr.st.next); pkt.extract(hdr.st.next); transition accept; } }
control VC(inout headers hdr, inout meta_t meta) { apply {} }
control IG(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) {
  apply {
    hdr.w.x[7:0] = 8w0xaa;
    hdr.w.x[127:120] = hdr.w.i;
    hdr.w.x[71:64] = 8w0x55;
    hdr.st[hdr.w.i[0:0]].v[3:0] = 4w0xf;
    sm.egress_spec = 1;
  }
}
control EG(inout headers hdr, inout meta_t meta, inout standard_metadata_t sm) { apply {} }
control CC(inout headers hdr, inout meta_t meta) { apply {} }
control DP(packet_out pkt, in headers hdr) { apply { pkt.emit(hdr); } }
V1Switch(P(), VC(), IG(), EG(), CC(), DP()) main;
