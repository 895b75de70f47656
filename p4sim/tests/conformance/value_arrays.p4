// p4c's arrays of values and indexed part selects (p4c's array1, array2):
// `bit<8>[4]` and the C-style `bit<16> w[2]` as header fields, on the wire
// element 0 first; read and written by constant and runtime index; `e[lo
// +: w]` is `e[lo + w - 1 : lo]`; `size`; a header holding arrays copied
// and compared whole. p4c-bm2-ss 1.2.5 stops on these programs with a
// "Compiler Bug" (backends/bmv2/common/header.cpp), so the expectations
// are P4_16's and p4c's front end's (array1-midend.p4 turns `f1[0+:8]`
// into `f1[7:0]`).
#include <core.p4>
#include <v1model.p4>

header data_t {
    bit<32>    f1;
    bit<8>[4]  arr;
    bit<16>    w[2];
    bit<8>     i;
    bit<8>     res;
}
struct headers_t { data_t data; }
struct meta_t { }

parser Prs(packet_in pkt, out headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    state start { pkt.extract(hdr.data); transition accept; }
}

control Ing(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) {
    apply {
        sm.egress_spec = 1;
        data_t before = hdr.data;
        // Byte k of f1 (k = 0 the least significant) into arr[k].
        hdr.data.arr[0] = hdr.data.f1[0+:8];
        hdr.data.arr[1] = hdr.data.f1[8+:8];
        hdr.data.arr[2] = hdr.data.f1[16 +: 8];
        hdr.data.arr[3] = hdr.data.f1[24+:8];
        // A runtime index: w[i & 1] gets arr[0] ++ arr[1] of the input.
        hdr.data.w[hdr.data.i & 1] = before.arr[0] ++ before.arr[1];
        bit<8> r = (bit<8>)hdr.data.arr.size;
        if (hdr.data == before) {
            r = r | 0x80;
        }
        hdr.data.res = r;
    }
}

control Eg(inout headers_t hdr, inout meta_t meta, inout standard_metadata_t sm) { apply { } }
control Vck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Cck(inout headers_t hdr, inout meta_t meta) { apply { } }
control Dep(packet_out pkt, in headers_t hdr) { apply { pkt.emit(hdr); } }

V1Switch(Prs(), Vck(), Ing(), Eg(), Cck(), Dep()) main;
