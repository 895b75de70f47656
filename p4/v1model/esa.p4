// ESA: preemptive, priority-based in-network aggregation — the v1model
// (BMv2 simple_switch) top. The behaviour lives in ../include, one concern
// per file; docs/protocol.md is the specification and esa_core::pool the
// reference model this program is tested against.
#include <core.p4>
#include <v1model.p4>

#include "../include/constants.p4"
#include "../include/headers.p4"
#include "../include/parser.p4"
#include "../include/l2.p4"
#include "../include/admission.p4"
#include "../include/aggregation.p4"
#include "../include/egress.p4"

control EsaIngress(inout headers_t hdr,
                   inout metadata_t meta,
                   inout standard_metadata_t sm) {
    Admission() admission;
    Aggregation() aggregation;
    L2Forward() l2;

    apply {
        bit<2> verdict;
        admission.apply(hdr, meta, sm, verdict);
        if (verdict == VERDICT_L2) {
            l2.apply(hdr, sm);
        } else if (verdict == VERDICT_AGGREGATE) {
            aggregation.apply(hdr, meta, sm);
        }
    }
}

V1Switch(EsaParser(),
         EsaVerifyChecksum(),
         EsaIngress(),
         EsaEgress(),
         EsaComputeChecksum(),
         EsaDeparser()) main;
