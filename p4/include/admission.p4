// Admission of every packet (docs/protocol.md 4.1): not ESA, malformed,
// unknown job, unauthorized port, a sender the port may not speak for
// (DATA, PROBE, RESULT), switch-only type, slot out of range, bad worker (DATA
// and PROBE). The first failing check drops the packet and counts it; nothing of
// a dropped packet touches any slot.
#ifndef ESA_ADMISSION_P4
#define ESA_ADMISSION_P4

#include "headers.p4"

// VERDICT_* and the esa_global indices GLOBAL_* are in constants.p4.

control Admission(inout headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t sm,
                  out bit<2> verdict) {
    counter(3, CounterType.packets) esa_global;
    counter(ESA_MAX_JOBS, CounterType.packets) drop_bad_port;
    counter(ESA_MAX_JOBS, CounterType.packets) drop_spoofed;
    counter(ESA_MAX_JOBS, CounterType.packets) drop_bad_type;
    counter(ESA_MAX_JOBS, CounterType.packets) drop_bad_slot;
    counter(ESA_MAX_JOBS, CounterType.packets) drop_bad_worker;

    action set_job(bit<8> fan_in, bit<2> mode, bit<4> max_priority, bit<16> mcast_group,
                   port_t ps_port, bit<16> slot_base, bit<16> slot_mask,
                   bit<2> tree_role, bit<1> aggregate, bit<8> racks,
                   port_t uplink_port, bit<8> uplink_bit) {
        meta.job.fan_in = fan_in;
        meta.job.mode = mode;
        meta.job.max_priority = max_priority;
        meta.job.mcast_group = mcast_group;
        meta.job.ps_port = ps_port;
        meta.job.slot_base = slot_base;
        meta.job.slot_mask = slot_mask;
        meta.job.tree_role = tree_role;
        meta.job.aggregate = aggregate;
        meta.job.racks = racks;
        meta.job.uplink_port = uplink_port;
        meta.job.uplink_bit = uplink_bit;
    }
    // The job table, written by the controller (docs/protocol.md 3.1).
    table jobs {
        key = { hdr.esa.job: exact; }
        actions = { set_job; @defaultonly NoAction; }
        const default_action = NoAction();
        size = ESA_MAX_JOBS;
    }

    action allow() { }
    // The (job, ingress port) pairs that may send for a job.
    table job_ports {
        key = {
            hdr.esa.job: exact;
            sm.ingress_port: exact;
        }
        actions = { allow; @defaultonly NoAction; }
        const default_action = NoAction();
        size = 16384;
    }

    action allow_worker() { }
    // The sender ids each port of a job may put on DATA, PROBE and RESULT
    // (the types that name their sender in `worker`): a worker's port
    // speaks only for the workers behind it (several ranks may share one
    // NIC), the PS's port only for PS_WORKER_ID. The PS's other packets
    // (QUERY, PULL, PENDING, MISSING) are not checked: its answers carry
    // the probing worker's id.
    table worker_ports {
        key = {
            hdr.esa.job: exact;
            sm.ingress_port: exact;
            hdr.esa.worker: exact;
        }
        actions = { allow_worker; @defaultonly NoAction; }
        const default_action = NoAction();
        size = 16384;
    }

    action reject() {
        verdict = VERDICT_DROP;
        mark_to_drop(sm);
    }

    apply {
        verdict = VERDICT_AGGREGATE;
        if (sm.parser_error == error.NoError && !hdr.esa.isValid()) {
            esa_global.count(GLOBAL_NOT_ESA);
            verdict = VERDICT_L2;
            return;
        }
        if (sm.parser_error != error.NoError || sm.checksum_error == 1) {
            esa_global.count(GLOBAL_MALFORMED);
            reject();
            return;
        }
        bit<32> job = (bit<32>)hdr.esa.job;
        // Job 0 is reserved: a slot key of 0 means "free".
        if (hdr.esa.job == 0 || !jobs.apply().hit) {
            esa_global.count(GLOBAL_UNKNOWN_JOB);
            reject();
            return;
        }
        if (!job_ports.apply().hit) {
            drop_bad_port.count(job);
            reject();
            return;
        }
        // A RESULT on a link between a tree's switches (a leaf's uplink, a
        // root's child ports) names whoever sent it, not a sender bound to
        // the port: it is admitted by port (docs/protocol.md 9.3).
        bool is_root = meta.job.tree_role == TREE_ROOT;
        if (is_root && sm.ingress_port != meta.job.ps_port) {
            meta.from_child = 1;
        }
        bool between_switches = meta.from_child == 1
            || (meta.job.tree_role == TREE_LEAF && sm.ingress_port == meta.job.uplink_port);
        if ((hdr.esa.packet_type == TYPE_DATA || hdr.esa.packet_type == TYPE_PROBE
                || (hdr.esa.packet_type == TYPE_RESULT && !between_switches))
                && !worker_ports.apply().hit) {
            drop_spoofed.count(job);
            reject();
            return;
        }
        bool part = hdr.esa.packet_type == TYPE_FALLBACK || hdr.esa.packet_type == TYPE_EVICTED
                || hdr.esa.packet_type == TYPE_FLUSH;
        // Parts are made by the switch; arriving from a port they are
        // forged, unless a tree's root gets them from a leaf (U1).
        if (part && meta.from_child == 0) {
            drop_bad_type.count(job);
            reject();
            return;
        }
        if (hdr.esa.slot > meta.job.slot_mask) {
            drop_bad_slot.count(job);
            reject();
            return;
        }
        // A root passes its leaves' probes to the PS (U1) unchecked: they
        // name the rack in `worker` and the worker in `bitmap`. The UPPER
        // test keeps a worker's DATA out of a root and a rack's partial out
        // of a leaf.
        bool upper = (hdr.esa.flags & FLAG_UPPER) != 0;
        if (hdr.esa.packet_type == TYPE_DATA
                || (hdr.esa.packet_type == TYPE_PROBE && meta.from_child == 0)) {
            if (hdr.esa.worker >= meta.job.fan_in
                    || hdr.esa.bitmap != (32w1 << hdr.esa.worker)
                    || (hdr.esa.packet_type == TYPE_DATA && upper != is_root)) {
                drop_bad_worker.count(job);
                reject();
                return;
            }
        }
        // The switch, not the host, has the last word on priority.
        if (hdr.esa.packet_type == TYPE_DATA && hdr.esa.priority > meta.job.max_priority) {
            hdr.esa.priority = meta.job.max_priority;
        }
        meta.index = ((bit<32>)meta.job.slot_base + (bit<32>)hdr.esa.slot)
                     & (ESA_POOL_SLOTS - 1);
    }
}

#endif  // ESA_ADMISSION_P4
