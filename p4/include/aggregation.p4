// The aggregator pool and its decision table (docs/protocol.md 3.2, 4.2,
// 4.3, 4.4). esa_core::pool is the reference model of this control: the
// same rows, named D1..D12, R1, R2, Q1, A1, P1, P2, L1, L2 in both.
//
// Every slot register array is read once at the top and written once at the
// bottom, whatever the row; the rows only compute the values written back.
#ifndef ESA_AGGREGATION_P4
#define ESA_AGGREGATION_P4

#include "headers.p4"
#include "lanes.p4"

control Aggregation(inout headers_t hdr,
                    inout metadata_t meta,
                    inout standard_metadata_t sm) {
    register<bit<32>>(ESA_POOL_SLOTS) slot_key;
    register<bit<32>>(ESA_POOL_SLOTS) slot_bitmap;
    register<bit<8>>(ESA_POOL_SLOTS)  slot_count;
    register<bit<8>>(ESA_POOL_SLOTS)  slot_flags;
    register<bit<48>>(ESA_POOL_SLOTS) slot_timestamp;
    register<bit<32>>(ESA_POOL_SLOTS) slot_tombstone;
    register<bit<8>>(ESA_POOL_SLOTS)  slot_exponent;

    ESA_FOR_EACH_LANE(ESA_LANE_DECLARE)

    // Per-job counters, named as the fields of esa_core::pool::JobCounters.
    counter(ESA_MAX_JOBS, CounterType.packets) data_rx;
    counter(ESA_MAX_JOBS, CounterType.packets) claimed;
    counter(ESA_MAX_JOBS, CounterType.packets) aggregated;
    counter(ESA_MAX_JOBS, CounterType.packets) completed;
    counter(ESA_MAX_JOBS, CounterType.packets) duplicates;
    counter(ESA_MAX_JOBS, CounterType.packets) flushed;
    counter(ESA_MAX_JOBS, CounterType.packets) reemitted;
    counter(ESA_MAX_JOBS, CounterType.packets) fallbacks;
    counter(ESA_MAX_JOBS, CounterType.packets) preemptions;
    counter(ESA_MAX_JOBS, CounterType.packets) stale_reclaims;
    counter(ESA_MAX_JOBS, CounterType.packets) evictions_suffered;
    counter(ESA_MAX_JOBS, CounterType.packets) results_relayed;
    counter(ESA_MAX_JOBS, CounterType.packets) queries_relayed;
    counter(ESA_MAX_JOBS, CounterType.packets) released;
    counter(ESA_MAX_JOBS, CounterType.packets) probes_answered;
    counter(ESA_MAX_JOBS, CounterType.packets) probes_forwarded;
    counter(ESA_MAX_JOBS, CounterType.packets) pulled;
    counter(ESA_MAX_JOBS, CounterType.packets) pulls_ignored;
    counter(ESA_MAX_JOBS, CounterType.packets) answers_relayed;
    counter(ESA_MAX_JOBS, CounterType.packets) parts_relayed;
    counter(ESA_MAX_JOBS, CounterType.packets) pulls_relayed;

    bit<48> stale_after_us = DEFAULT_STALE_AFTER_US;
    action set_stale_after(bit<48> us) {
        stale_after_us = us;
    }
    // Pool-wide settings; the controller changes the default action.
    table pool_config {
        actions = { set_stale_after; }
        default_action = set_stale_after(DEFAULT_STALE_AFTER_US);
    }

    // Where an evicted partial goes: its own job's PS, not the packet's.
    // Read only when job_route hits; zero so p4c can see they are never
    // read unset.
    job_id_t route_job = 0;
    port_t   route_ps_port = 0;
    bit<8>   route_fan_in = 0;
    bit<16>  route_slot_base = 0;
    bit<16>  route_slot_mask = 0;
    bit<2>   route_tree_role = 0;
    bit<8>   route_uplink_bit = 0;
    action set_route(port_t ps_port, bit<8> fan_in, bit<16> slot_base, bit<16> slot_mask,
                     bit<2> tree_role, bit<8> uplink_bit) {
        route_ps_port = ps_port;
        route_fan_in = fan_in;
        route_slot_base = slot_base;
        route_slot_mask = slot_mask;
        route_tree_role = tree_role;
        route_uplink_bit = uplink_bit;
    }
    table job_route {
        key = { route_job: exact; }
        actions = { set_route; @defaultonly NoAction; }
        const default_action = NoAction();
        size = ESA_MAX_JOBS;
    }

    action to_port(port_t port) {
        sm.egress_spec = port;
    }
    action to_group(bit<16> group) {
        sm.mcast_grp = group;
    }
    action absorb() {
        mark_to_drop(sm);
    }
    // R1, R2, Q1, A1: to the group, but not back to the sender (egress
    // drops the replica for the ingress port).
    action relay() {
        sm.mcast_grp = meta.job.mcast_group;
        meta.relay = 1;
        meta.relay_except = sm.ingress_port;
    }
    // What the PS needs to read a tree job's part or forwarded probe
    // (docs/protocol.md 9.2): a leaf's rack in `worker`, a root's UPPER.
    action mark_for_ps(bit<2> tree_role, bit<8> uplink_bit) {
        if (tree_role == TREE_LEAF) {
            hdr.esa.worker = uplink_bit;
        } else if (tree_role == TREE_ROOT) {
            hdr.esa.flags = hdr.esa.flags | FLAG_UPPER;
        }
    }
    // A rack's partial on its way up (D1', D0): DATA from the rack's bit
    // at the root, OVERFLOW kept.
    action send_up() {
        hdr.esa.packet_type = TYPE_DATA;
        hdr.esa.flags = FLAG_UPPER | (hdr.esa.flags & FLAG_OVERFLOW);
        hdr.esa.bitmap = 32w1 << meta.job.uplink_bit;
        hdr.esa.count = 1;
        hdr.esa.fan_in = meta.job.racks;
        hdr.esa.worker = meta.job.uplink_bit;
        to_port(meta.job.uplink_port);
    }

    apply {
        pool_config.apply();
        bit<32> index = meta.index;
        bit<32> job = (bit<32>)hdr.esa.job;
        bit<48> now = sm.ingress_global_timestamp;

        bit<32> s_key;
        bit<32> s_bitmap;
        bit<8>  s_count;
        bit<8>  s_flags;
        bit<48> s_timestamp;
        bit<32> s_tombstone;
        bit<8>  s_exponent;
        slot_key.read(s_key, index);
        slot_bitmap.read(s_bitmap, index);
        slot_count.read(s_count, index);
        slot_flags.read(s_flags, index);
        slot_timestamp.read(s_timestamp, index);
        slot_tombstone.read(s_tombstone, index);
        slot_exponent.read(s_exponent, index);

        // What is written back; unchanged unless a row says otherwise.
        bit<32> n_key = s_key;
        bit<32> n_bitmap = s_bitmap;
        bit<8>  n_count = s_count;
        bit<8>  n_flags = s_flags;
        bit<48> n_timestamp = s_timestamp;
        bit<32> n_tombstone = s_tombstone;
        bit<8>  n_exponent = s_exponent;
        meta.lane_op = LANE_KEEP;
        meta.lane_out = OUT_PACKET;

        bit<32> key = hdr.esa.priority ++ hdr.esa.job ++ hdr.esa.seq;
        bool same = s_key != 0 && s_key[27:0] == key[27:0];
        bool complete = (s_flags & SLOT_COMPLETE) != 0;
        bit<8> packet_overflow = 0;
        if ((hdr.esa.flags & FLAG_OVERFLOW) != 0) {
            packet_overflow = SLOT_OVERFLOW;
        }
        // The whole-job bitmap, for RESULT rows.
        bit<32> full_bitmap = 0xffffffff;
        if (meta.job.fan_in < 32) {
            full_bitmap = (32w1 << meta.job.fan_in) - 1;
        }
        // ATP's switch keeps no tombstones and never reclaims a slot by
        // age (docs/protocol.md 5); the packet's own job decides.
        bool atp = meta.job.mode == MODE_ATP;
        bool leaf = meta.job.tree_role == TREE_LEAF;
        bool root = meta.job.tree_role == TREE_ROOT;
        bool held = (s_flags & SLOT_HELD) != 0;
        // The flag of what a root builds from a slot.
        bit<8> level = 0;
        if (root) {
            level = FLAG_UPPER;
        }
        bool part = hdr.esa.packet_type == TYPE_FALLBACK || hdr.esa.packet_type == TYPE_EVICTED
                || hdr.esa.packet_type == TYPE_FLUSH;

        if (meta.from_child == 1 && (part || hdr.esa.packet_type == TYPE_PROBE)) {
            // U1: a leaf's part or probe, for the PS, which reads the rack
            // from it. A probe whose rack's partial waits here says so.
            if (hdr.esa.packet_type == TYPE_PROBE && same && !complete
                    && (s_bitmap & (32w1 << hdr.esa.worker)) != 0) {
                hdr.esa.flags = hdr.esa.flags | FLAG_HELD;
            }
            to_port(meta.job.ps_port);
            parts_relayed.count(job);
        } else if (hdr.esa.packet_type == TYPE_PULL && root
                && (hdr.esa.flags & FLAG_UPPER) == 0) {
            // U2: the PS's pull for the leaves' slots.
            relay();
            pulls_relayed.count(job);
        } else if (hdr.esa.packet_type == TYPE_DATA
                && (meta.job.aggregate == 0 || (leaf && meta.job.fan_in == 1))) {
            // D0: no memory here for the job, or a rack of one worker with
            // nothing to add: the slot is not touched.
            data_rx.count(job);
            if (meta.job.aggregate == 1 && (hdr.esa.flags & FLAG_RESEND) == 0) {
                send_up();
                completed.count(job);
            } else {
                hdr.esa.packet_type = TYPE_FALLBACK;
                hdr.esa.fan_in = meta.job.fan_in;
                mark_for_ps(meta.job.tree_role, meta.job.uplink_bit);
                to_port(meta.job.ps_port);
                fallbacks.count(job);
            }
        } else if (hdr.esa.packet_type == TYPE_DATA) {
            data_rx.count(job);
            bool resend = (hdr.esa.flags & FLAG_RESEND) != 0;
            bool is_new = (s_bitmap & hdr.esa.bitmap) == 0;
            bool free = s_key == 0 || (s_flags & (SLOT_COMPLETE | SLOT_HELD)) == SLOT_COMPLETE;
            bool stale = !atp && !free && (now - s_timestamp) > stale_after_us;
            bool tombstoned = !atp && s_tombstone[27:0] == key[27:0];
            // Completion RESULTs go to the group, or in atp mode to the PS,
            // which sends them back through the switch (releasing the slot).
            bool result_to_ps = atp;

            if (same && !complete && is_new && s_count + 1 == meta.job.fan_in) {
                // D1: the last contribution completes the chunk.
                meta.lane_op = LANE_ADD;
                meta.lane_out = OUT_NEW;
                n_bitmap = s_bitmap | hdr.esa.bitmap;
                n_count = s_count + 1;
                n_flags = s_flags | SLOT_COMPLETE | packet_overflow;
                if (result_to_ps) {
                    n_flags = n_flags | SLOT_HELD;
                }
                n_timestamp = now;
                hdr.esa.packet_type = TYPE_RESULT;
                hdr.esa.flags = level;
                if ((n_flags & SLOT_OVERFLOW) != 0) {
                    hdr.esa.flags = level | FLAG_OVERFLOW;
                }
                hdr.esa.priority = s_key[31:28];
                hdr.esa.bitmap = n_bitmap;
                hdr.esa.count = n_count;
                hdr.esa.fan_in = meta.job.fan_in;
                hdr.esa.exponent = s_exponent;
                if (leaf) {
                    // D1': the rack's partial goes up; the leaf holds it
                    // until the result comes down (R1).
                    n_flags = n_flags | SLOT_HELD;
                    send_up();
                } else if (root && meta.job.fan_in < meta.job.racks) {
                    // A rack falls back below: the sum lacks it and goes to
                    // the PS as a part (docs/protocol.md 9.6).
                    hdr.esa.packet_type = TYPE_FALLBACK;
                    hdr.esa.fan_in = meta.job.racks;
                    to_port(meta.job.ps_port);
                } else if (result_to_ps) {
                    to_port(meta.job.ps_port);
                } else {
                    to_group(meta.job.mcast_group);
                }
                completed.count(job);
            } else if (same && !complete && resend) {
                // D2: a worker resent into a partial: hand it to the PS and
                // (but in atp) tombstone the chunk so the rest of it follows.
                meta.lane_out = OUT_NEW;
                bit<8> out_count = s_count;
                bit<32> out_bitmap = s_bitmap;
                if (is_new) {
                    meta.lane_op = LANE_ADD;
                    out_bitmap = s_bitmap | hdr.esa.bitmap;
                    out_count = s_count + 1;
                }
                hdr.esa.flags = FLAG_RESEND;
                if (((s_flags | packet_overflow) & SLOT_OVERFLOW) != 0) {
                    hdr.esa.flags = FLAG_RESEND | FLAG_OVERFLOW;
                }
                n_key = 0;
                if (!atp) {
                    n_tombstone = s_key;
                }
                n_flags = 0;
                hdr.esa.packet_type = TYPE_FLUSH;
                hdr.esa.priority = s_key[31:28];
                hdr.esa.bitmap = out_bitmap;
                hdr.esa.count = out_count;
                hdr.esa.fan_in = meta.job.fan_in;
                hdr.esa.exponent = s_exponent;
                mark_for_ps(meta.job.tree_role, meta.job.uplink_bit);
                to_port(meta.job.ps_port);
                flushed.count(job);
            } else if (same && !complete && is_new) {
                // D3: one more contribution.
                meta.lane_op = LANE_ADD;
                n_bitmap = s_bitmap | hdr.esa.bitmap;
                n_count = s_count + 1;
                n_flags = s_flags | packet_overflow;
                n_timestamp = now;
                absorb();
                aggregated.count(job);
            } else if (same && !complete) {
                // D4: already counted.
                absorb();
                duplicates.count(job);
            } else if (same && resend && leaf) {
                // D5' and D5'' (docs/protocol.md 9.3): the rack's partial,
                // held since it went up, goes to the PS; a result that came
                // down is answered with the root's header, not sent up.
                meta.lane_out = OUT_OLD;
                hdr.esa.flags = 0;
                if ((s_flags & SLOT_OVERFLOW) != 0) {
                    hdr.esa.flags = FLAG_OVERFLOW;
                }
                hdr.esa.priority = s_key[31:28];
                hdr.esa.exponent = s_exponent;
                if (held) {
                    if (!atp) {
                        n_tombstone = s_key;
                    }
                    n_key = 0;
                    n_flags = 0;
                    hdr.esa.packet_type = TYPE_FLUSH;
                    hdr.esa.flags = hdr.esa.flags | FLAG_RESEND;
                    hdr.esa.bitmap = s_bitmap;
                    hdr.esa.count = s_count;
                    hdr.esa.fan_in = meta.job.fan_in;
                    hdr.esa.worker = meta.job.uplink_bit;
                    to_port(meta.job.ps_port);
                    flushed.count(job);
                } else {
                    hdr.esa.packet_type = TYPE_RESULT;
                    hdr.esa.flags = hdr.esa.flags | FLAG_UPPER;
                    hdr.esa.bitmap = 0xffffffff;
                    if (meta.job.racks < 32) {
                        hdr.esa.bitmap = (32w1 << meta.job.racks) - 1;
                    }
                    hdr.esa.count = meta.job.racks;
                    hdr.esa.fan_in = meta.job.racks;
                    to_group(meta.job.mcast_group);
                    meta.relay = 1;
                    meta.relay_except = meta.job.uplink_port;
                    reemitted.count(job);
                }
            } else if (same && resend) {
                // D5: the worker lost the RESULT; the slot still holds it.
                // In atp, as ATP's switch does with any resend of its chunk,
                // the slot is freed and the complete sum goes to the PS as
                // a FLUSH (the PS answers the workers).
                meta.lane_out = OUT_OLD;
                hdr.esa.packet_type = TYPE_RESULT;
                hdr.esa.flags = level;
                if (atp) {
                    hdr.esa.packet_type = TYPE_FLUSH;
                    hdr.esa.flags = level | FLAG_RESEND;
                    n_key = 0;
                    n_flags = 0;
                }
                if ((s_flags & SLOT_OVERFLOW) != 0) {
                    hdr.esa.flags = hdr.esa.flags | FLAG_OVERFLOW;
                }
                hdr.esa.priority = s_key[31:28];
                hdr.esa.bitmap = s_bitmap;
                hdr.esa.count = s_count;
                hdr.esa.fan_in = meta.job.fan_in;
                hdr.esa.exponent = s_exponent;
                if (atp) {
                    to_port(meta.job.ps_port);
                    flushed.count(job);
                } else {
                    to_group(meta.job.mcast_group);
                    reemitted.count(job);
                }
            } else if (same) {
                // D6: a late copy of a completed chunk.
                absorb();
                duplicates.count(job);
            } else if (tombstoned || resend) {
                // D7 (not atp): the chunk's partial went to the PS; D8: a
                // resend never claims a slot (its first copy may be at the PS
                // already).
                hdr.esa.packet_type = TYPE_FALLBACK;
                hdr.esa.fan_in = meta.job.fan_in;
                mark_for_ps(meta.job.tree_role, meta.job.uplink_bit);
                to_port(meta.job.ps_port);
                fallbacks.count(job);
            } else if (free) {
                // D9: claim a free slot.
                meta.lane_op = LANE_WRITE;
                n_key = key;
                n_bitmap = hdr.esa.bitmap;
                n_count = 1;
                n_flags = packet_overflow;
                n_timestamp = now;
                n_exponent = hdr.esa.exponent;
                absorb();
                claimed.count(job);
            } else if (stale || (meta.job.mode == MODE_ESA && hdr.esa.priority > s_key[31:28])) {
                // D10 (stale, not atp) and D11 (preemption): swap-evict.
                // The packet's values go into the slot and the packet
                // carries the old partial to its own job's PS.
                meta.lane_op = LANE_WRITE;
                meta.lane_out = OUT_OLD;
                n_key = key;
                n_bitmap = hdr.esa.bitmap;
                n_count = 1;
                n_flags = packet_overflow;
                n_timestamp = now;
                n_exponent = hdr.esa.exponent;
                n_tombstone = s_key;
                if (stale) {
                    stale_reclaims.count(job);
                } else {
                    preemptions.count(job);
                }
                evictions_suffered.count((bit<32>)s_key[27:16]);
                hdr.esa.packet_type = TYPE_EVICTED;
                hdr.esa.flags = 0;
                if ((s_flags & SLOT_OVERFLOW) != 0) {
                    hdr.esa.flags = FLAG_OVERFLOW;
                }
                if (stale) {
                    hdr.esa.flags = hdr.esa.flags | FLAG_STALE;
                }
                hdr.esa.priority = s_key[31:28];
                hdr.esa.job = s_key[27:16];
                hdr.esa.seq = s_key[15:0];
                hdr.esa.bitmap = s_bitmap;
                hdr.esa.count = s_count;
                hdr.esa.exponent = s_exponent;
                route_job = s_key[27:16];
                if (job_route.apply().hit) {
                    hdr.esa.fan_in = route_fan_in;
                    hdr.esa.slot = (index[15:0] - route_slot_base) & route_slot_mask;
                    mark_for_ps(route_tree_role, route_uplink_bit);
                    to_port(route_ps_port);
                } else {
                    // The evicted job was removed meanwhile.
                    absorb();
                }
            } else {
                // D12: held by an equal or higher priority: to the own PS.
                hdr.esa.packet_type = TYPE_FALLBACK;
                hdr.esa.flags = hdr.esa.flags | FLAG_COLLISION;
                hdr.esa.fan_in = meta.job.fan_in;
                mark_for_ps(meta.job.tree_role, meta.job.uplink_bit);
                to_port(meta.job.ps_port);
                fallbacks.count(job);
            }
        } else if (hdr.esa.packet_type == TYPE_PROBE) {
            bool holds_bit = same && (s_bitmap & hdr.esa.bitmap) != 0;
            bool waits = holds_bit && !complete;
            // P2': a leaf whose rack's partial went up holds it too.
            bool sent_up = holds_bit && leaf && held;
            if (waits && (hdr.esa.flags & FLAG_RESEND) == 0) {
                // P1: the contribution waits in the slot for others; a
                // tree's answers are addressed by rack and bit (P1').
                hdr.esa.packet_type = TYPE_PENDING;
                if (leaf) {
                    hdr.esa.worker = meta.job.uplink_bit;
                }
                to_port(sm.ingress_port);
                probes_answered.count(job);
            } else {
                // P2: only the PS can tell (held there, lost, or complete).
                // A repeated probe goes there even when the slot holds the
                // contribution, marked HELD: the partial may be an orphan
                // of a chunk that completed, which only the PS can tell.
                if (waits || sent_up) {
                    hdr.esa.flags = hdr.esa.flags | FLAG_HELD;
                }
                mark_for_ps(meta.job.tree_role, meta.job.uplink_bit);
                to_port(meta.job.ps_port);
                probes_forwarded.count(job);
            }
        } else if (hdr.esa.packet_type == TYPE_PULL) {
            // L1' also gives up a leaf's partial that went up; a PULL is
            // for the slots of its level only (UPPER: the root's).
            bool pullable = !complete || (leaf && held);
            bool this_level = ((hdr.esa.flags & FLAG_UPPER) != 0) == root;
            if (same && pullable && this_level) {
                // L1: D2 without a contribution: the partial to the PS, the
                // slot freed and (but in atp) the chunk tombstoned.
                meta.lane_out = OUT_OLD;
                hdr.esa.packet_type = TYPE_FLUSH;
                hdr.esa.flags = 0;
                if ((s_flags & SLOT_OVERFLOW) != 0) {
                    hdr.esa.flags = FLAG_OVERFLOW;
                }
                hdr.esa.priority = s_key[31:28];
                hdr.esa.bitmap = s_bitmap;
                hdr.esa.count = s_count;
                hdr.esa.fan_in = meta.job.fan_in;
                hdr.esa.exponent = s_exponent;
                n_key = 0;
                if (!atp) {
                    n_tombstone = s_key;
                }
                n_flags = 0;
                mark_for_ps(meta.job.tree_role, meta.job.uplink_bit);
                to_port(meta.job.ps_port);
                pulled.count(job);
            } else {
                // L2: the chunk is not aggregating here (any more).
                absorb();
                pulls_ignored.count(job);
            }
        } else if (hdr.esa.packet_type == TYPE_RESULT) {
            if (same) {
                // R1: the slot takes the true sum and is released (ATP).
                if ((s_flags & SLOT_HELD) != 0) {
                    released.count(job);
                }
                meta.lane_op = LANE_WRITE;
                n_bitmap = full_bitmap;
                n_count = meta.job.fan_in;
                n_flags = SLOT_COMPLETE | packet_overflow;
                n_exponent = hdr.esa.exponent;
            }
            // R1 and R2: relayed.
            relay();
            results_relayed.count(job);
        } else if (hdr.esa.packet_type == TYPE_QUERY) {
            // Q1: a PS asks the group for a result.
            relay();
            queries_relayed.count(job);
        } else if (hdr.esa.packet_type == TYPE_PENDING || hdr.esa.packet_type == TYPE_MISSING) {
            // A1: a PS's answer to a probe, for the probing worker.
            relay();
            answers_relayed.count(job);
        }

        slot_key.write(index, n_key);
        slot_bitmap.write(index, n_bitmap);
        slot_count.write(index, n_count);
        slot_flags.write(index, n_flags);
        slot_timestamp.write(index, n_timestamp);
        slot_tombstone.write(index, n_tombstone);
        slot_exponent.write(index, n_exponent);
        ESA_FOR_EACH_LANE(ESA_LANE_APPLY)
        // The payload changed; IPv4 allows a zero UDP checksum.
        hdr.udp.checksum = 0;
    }
}

#endif  // ESA_AGGREGATION_P4
