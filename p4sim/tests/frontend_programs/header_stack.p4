/* Header stacks and a parser loop: an MPLS label stack is parsed until the
 * bottom-of-stack bit, then popped in ingress; a switch on action_run picks
 * what happens next. */
#include <v1model.p4>

#define MAX_LABELS 4

header ethernet_t {
    bit<48> dst;
    bit<48> src;
    bit<16> ether_type;
}

header mpls_t {
    bit<20> label;
    bit<3>  tc;
    bit<1>  bos;
    bit<8>  ttl;
}

header_union inner_t {
    ethernet_t eth;
    mpls_t     extra;
}

struct headers_t {
    ethernet_t         ethernet;
    mpls_t[MAX_LABELS] labels;
    inner_t            inner;
}

struct metadata_t {
    bit<8> depth;
}

parser StackParser(packet_in pkt, out headers_t hdr, inout metadata_t meta,
                   inout standard_metadata_t sm) {
    state start {
        pkt.extract(hdr.ethernet);
        meta.depth = 0;
        transition select(hdr.ethernet.ether_type) {
            0x8847: parse_label;
            default: accept;
        }
    }

    state parse_label {
        pkt.extract(hdr.labels.next);
        meta.depth = meta.depth + 1;
        transition select(hdr.labels.last.bos, pkt.lookahead<bit<4>>()) {
            (1w0, _): parse_label;
            (1, 4w4): accept;
            default: reject;
        }
    }
}

control NoVerify(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control StackIngress(inout headers_t hdr, inout metadata_t meta,
                     inout standard_metadata_t sm) {
    action pop_label() {
        hdr.labels.pop_front(1);
    }

    action swap_label(bit<20> label) {
        hdr.labels[0].label = label;
    }

    action forward(bit<9> port) {
        sm.egress_spec = port;
    }

    table labels {
        key = {
            hdr.labels[0].label : exact;
            hdr.labels[0].tc    : ternary;
            meta.depth          : range;
        }
        actions = { pop_label; swap_label; forward; }
        const entries = {
            (20w16, 3w0 &&& 3w0, 1 .. 2) : pop_label();
            priority = 5 : (20w17, _, _) : swap_label(20w18);
            @priority(9) (_, _, _) : forward(9w3);
        }
        default_action = forward(0);
    }

    apply {
        switch (labels.apply().action_run) {
            pop_label: {
                if (hdr.labels[0].isValid()) {
                    hdr.labels[0].ttl = hdr.labels[0].ttl - 1;
                }
            }
            swap_label:
            forward: { }
            default: { mark_to_drop(sm); }
        }
        if (labels.apply().hit) {
            return;
        }
        hdr.inner.eth.setInvalid();
        hdr.labels.push_front(1);
        hdr.labels[0] = { 20w1, 3w0, 1w1, 8w64 };
    }
}

control StackEgress(inout headers_t hdr, inout metadata_t meta,
                    inout standard_metadata_t sm) {
    apply { }
}

control NoCompute(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control StackDeparser(packet_out pkt, in headers_t hdr) {
    apply {
        pkt.emit(hdr.ethernet);
        pkt.emit(hdr.labels);
        pkt.emit(hdr.inner);
    }
}

V1Switch(StackParser(), NoVerify(), StackIngress(), StackEgress(), NoCompute(),
         StackDeparser()) main;
