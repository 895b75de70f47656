// ESA: preemptive, priority-based in-network aggregation — the Tofino 1
// (TNA) top. docs/protocol.md is the specification; p4/include/aggregation.p4
// (the v1model program) and esa_core::pool implement the same rows D1..D12,
// R1, R2, Q1, A1, P1, P2, L1, L2, and a job tree's (docs/protocol.md 9.3,
// 9.6: a leaf's D0, D1', D5', D5'', R1', P1', P2', L1'; a root's U1, U2,
// UPPER on what it builds, the sum to the PS when a rack falls back; a level
// without memory). p4/tna/README.md explains the stage layout, what each
// register holds, and where this program differs from the v1model one
// (also listed in docs/protocol.md, "On Tofino").
//
// Hardware rules this program is written to (checked by reading it, since the
// compiler does not always catch a violation): every Register is accessed by
// exactly one RegisterAction execution per packet per pipeline pass — each
// register's executions sit in one table (or if/else chain) below, marked
// "ACCESS" — and
// each RegisterAction fits one stateful ALU (two conditions, two PHV inputs,
// one output).
#include <core.p4>
#include <tna.p4>

#include "../include/constants.p4"
#include "rows.p4"
#include "../include/headers.p4"

// ---------------------------------------------------------------------------
// Types of the TNA program (the packet headers are ../include/headers.p4's)
// ---------------------------------------------------------------------------

// What the ingress pipeline tells the egress pipeline.
header bridge_t {
    bit<7> _pad0;
    PortId_t ingress_port;
    bit<5> _pad1;
    bit<1> prune;     // no copy leaves by ingress_port (a flooded frame, a relayed packet)
    bit<1> esa;       // an ESA packet: egress rewrites its addresses
    bit<1> recount;   // built from a slot: egress sets count = popcount(bitmap)
}

// The 64 bits a resubmitted packet carries into its second pass.
const bit<8> INTENT_NONE = 0;
// D2, L1 and atp's D5: hand what the slot holds (D2: plus the packet's
// value if new) to the PS, free the slot and (but in atp) tombstone it.
const bit<8> INTENT_FLUSH = 1;
const bit<8> INTENT_EVICT = 2;   // D10/D11: swap the packet in, the partial out
const bit<8> INTENT_STALE = 3;   // D10 (the same as EVICT, flagged STALE)
const bit<8> INTENT_RESULT = 4;  // not resubmitted: a RESULT (fan_in_info's key)
header resubmit_t {
    bit<8>  intent;
    bit<8>  is_new;    // FLUSH: the worker's bit was new in pass 1
    bit<16> flags;     // FLUSH: the packet's flags the FLUSH keeps (0 ++ flags)
    bit<32> victim;    // the slot key seen in pass 1 (EVICT) or the own key (FLUSH)
}

// A well-formed DATA or PROBE whose bitmap is 1 << worker, and what a DATA
// does to the tombstone register (tombstone_step). A DATA's modes have
// data_mode[1:0] != 0.
const bit<3> DM_NONE = 0;    // neither
const bit<3> DM_FIRST = 1;   // pass 1, first copy: check the tombstone
const bit<3> DM_RESEND = 2;  // pass 1, resend: check the tombstone
const bit<3> DM_PASS2 = 3;   // pass 2: write the tombstone
const bit<3> DM_PROBE = 4;   // a PROBE: no tombstone

// Lane operations, chosen in stage 3 from the owner's answer and whether
// the worker is still pending (docs/protocol.md 3.2: keep, write, add; out
// old/new).
const bit<3> LOP_NONE = 0;   // keep (no access)
const bit<3> LOP_ADD = 1;    // add, out new
const bit<3> LOP_SWAP = 2;   // write, out old
const bit<3> LOP_WRITE = 3;  // write, packet keeps its own values
const bit<3> LOP_READ = 4;   // keep, out old

// The owner register's answer: the 4-bit predicate of its two conditions,
// one-hot: 1 << (cmplo + 2 * cmphi).
const bit<4> P_NEITHER = 1;
const bit<4> P_LO = 2;
const bit<4> P_HI = 4;
const bit<4> P_BOTH = 8;

// A DATA that a job tree's switch passes on without its slot (D0,
// docs/protocol.md 9.3, 9.6): a leaf's rack of one worker sends a first
// copy up as the rack's partial (a resend to the PS); a level without
// memory sends every DATA to the PS.
const bit<2> BYPASS_NONE = 0;
const bit<2> BYPASS_UP = 1;
const bit<2> BYPASS_PS = 2;

// What a leaf builds in the root's terms (docs/protocol.md 9.2): its
// rack's partial going up (D0, D1': bitmap 1 << uplink_bit), or the
// root's result re-emitted down (D5'': every rack's bit); both with UPPER.
const bit<2> TREE_OUT_NONE = 0;
const bit<2> TREE_OUT_UP = 1;
const bit<2> TREE_OUT_DOWN = 2;

// Counter rows (ROW_*, DROP_*) are generated into rows.p4, the global
// counter indices (GLOBAL_*) into constants.p4.

// An atp slot that completed is held (not free) until its RESULT passes
// back: its pending set carries this bit, so it reaches HELD, not 0. (It is
// worker 31's bit: an atp job has at most 31 workers here.)
const bit<32> HELD = 0x80000000;

// The owner register: the chunk (job ++ seq, 28 bits) and the set of
// workers still to contribute, one bit each (0: free or complete; HELD:
// atp-held). A claim sets it to full ^ the claimer's bit; each DATA of the
// chunk ANDs it with full ^ its bit, which clears the bit once and changes
// nothing for a duplicate, so the owner needs no answer about the worker
// from an earlier stage. docs/protocol.md ("On Tofino") has the proof that
// this is the model's duplicate check.
struct owner_t {
    bit<32> chunk;
    bit<32> pending;
}

struct ig_meta_t {
    // The pass's resubmit data: pass 2 parses what pass 1 resubmitted; pass 1
    // starts at INTENT_NONE. Every read of it precedes decide, the one table
    // that writes it (pass 1: what to resubmit), so it is held once, not
    // copied into fields of the pass's own (issue 40: ingress PHV).
    resubmit_t   resub;
    bridge_t     bridge;
    job_entry_t  job;
    bit<1>       checksum_ok;  // Checksum.verify(): 1 when the IPv4 checksum is right
    // An ESA packet's UDP length is the program's: decided by the parser,
    // so the UDP header needs no match-action PHV (issue 40: ingress PHV;
    // the IPv4 total length as well would take more parser match registers
    // than Tofino has).
    bit<1>       udp_length_ok;
    bit<1>       job_drop;    // count drop_reason for the job
    bit<3>       drop_reason;
    bit<2>       verdict;     // VERDICT_*: the admission table's answer
    bit<1>       count_global;
    bit<2>       global_idx;
    bit<1>       route_ok;    // job_route found the victim's job
    bit<1>       job_hit;     // job known (any slot)
    bit<1>       slot_ok;     // job known and slot <= slot_mask
    bit<1>       port_ok;
    bit<1>       sender_ok;   // DATA, PROBE, RESULT: worker_ports binds the worker id to the port
    bit<3>       data_mode;   // DM_*
    bit<12>      job_id;      // the packet's job (counters)
    bit<16>      index;       // absolute slot index
    bit<32>      chunk;       // 0000 ++ job ++ seq
    bit<32>      key;         // priority ++ job ++ seq (priority clamped)
    bit<32>      wbit;        // the worker's bit
    bit<32>      full;        // the job's full bitmap
    bit<32>      init;        // pending count after a claim
    bit<1>       t_hit;       // tombstone == chunk
    bit<1>       w_new;       // the worker's bit was pending (o_pred P_LO: not a duplicate)
    bit<32>      p_old;       // the pending set before (slot_owner_copy's answer)
    bit<4>       o_pred;      // owner predicate
    bit<32>      b_old;       // bitmap before (FLUSH, EVICT)
    bit<4>       b_pred;      // P_LO: this worker completes / the chunk is complete
    bit<1>       bit_held;    // PROBE: the worker's bit is in the aggregating slot's bitmap
    bit<32>      bcmp;        // what slot_bitmap compares with
    bit<4>       ts_pred;     // P_LO: the slot is stale
    bit<1>       higher;      // packet priority > the slot's
    bit<32>      k_old;       // slot key before
    bit<16>      m_old;       // exponent ++ flags before
    bit<16>      m_new;       // exponent ++ overflow of the packet
    bit<32>      expire;      // now + stale_after
    bit<32>      now;         // ~1.024 us units
    bit<32>      stale_after;
    bit<3>       lane_op;
    bit<16>      rel_slot;    // EVICTED: slot relative to the victim's range
    bit<16>      route_base;  // EVICTED: the victim job's slot_base
    bit<16>      route_mask;  // EVICTED: the victim job's slot_mask
    bit<1>       to_ps;       // a RESULT from the slot goes to the PS (atp)
    bit<1>       count_rx;    // count data_rx (a DATA's first pass)
    bit<8>       worker_diff; // worker - fan_in (negative: in range)
    // The flag bytes below are 8 bits: their 16-bit forms carried a zero
    // high byte through 8-bit containers (issue 40: ingress PHV).
    bit<8>       m_ovf;       // flags & OVERFLOW
    bit<8>       m_rovf;      // flags & (RESEND | OVERFLOW)
    bit<5>       row;         // ROW_* (ROW_NONE: no row counted)
    bit<14>      row_idx;     // job ++ row[1:0]: the index in row[3:2]'s job_rows_N
    bit<1>       evict_route; // EVICTED must look up the victim's job
    bit<9>       from_ps;     // ingress port ^ ps_port: 0 on the PS's port
    bit<8>       level;       // FLAG_UPPER at a tree's root, else 0 (docs/protocol.md 9.2)
    bit<8>       m_lvl;       // m_old's flags | level: a slot's flags as the level sends them
    bit<8>       racks_diff;  // fan_in - racks: negative when a rack falls back (9.6)
    bit<2>       victim_role; // EVICTED: the victim job's tree role
    bit<8>       victim_bit;  // EVICTED: the victim job's uplink bit
    bit<1>       tree_row;    // count tree_idx in tree_rows
    bit<13>      tree_idx;    // job ++ (0 parts_relayed, 1 pulls_relayed)
    bit<2>       bypass;      // BYPASS_*: a DATA that leaves the slot alone (D0)
    bit<1>       held_done;   // p_old == HELD: a complete chunk held (a leaf's sent up)
    bit<2>       tree_out;    // TREE_OUT_*: a leaf's packet for the level above
    bit<1>       to_group;    // a RESULT from the slot goes to the group
    bit<1>       rack_mark;   // a packet for the PS: a leaf names its rack in worker
}

struct eg_meta_t {
    bridge_t bridge;
    bit<8>   p0;
    bit<8>   p1;
    bit<8>   p2;
    bit<8>   p3;
    bit<8>   c01;
    bit<8>   c23;
    bit<16>  eport;
    bit<16>  iport;
    bit<16>  port_diff;
}


// ---------------------------------------------------------------------------
// Ingress parser
// ---------------------------------------------------------------------------

parser EsaIngressParser(packet_in pkt,
                        out headers_t hdr,
                        out ig_meta_t meta,
                        out ingress_intrinsic_metadata_t ig_intr_md) {
    Checksum() ipv4_checksum;

    state start {
        pkt.extract(ig_intr_md);
        // Metadata defaults, set here so no match-action stage spends an
        // action (and a dependency) on them.
        meta.checksum_ok = 0;
        meta.udp_length_ok = 0;
        meta.bridge.setValid();
        meta.bridge.ingress_port = ig_intr_md.ingress_port;
        meta.bridge.prune = 1;
        meta.bridge.esa = 0;
        meta.bridge.recount = 0;
        meta.lane_op = LOP_NONE;
        meta.row = ROW_NONE;
        meta.verdict = VERDICT_DROP;
        meta.evict_route = 0;
        meta.route_ok = 0;
        meta.job.tree_role = TREE_FLAT;  // when no job entry matched
        meta.level = 0;
        meta.racks_diff = 0;
        meta.victim_role = TREE_FLAT;
        meta.tree_row = 0;
        meta.bypass = BYPASS_NONE;
        meta.held_done = 0;
        meta.tree_out = TREE_OUT_NONE;
        meta.to_group = 0;
        meta.rack_mark = 0;
        meta.worker_diff = 0x80;
        meta.count_global = 0;
        meta.global_idx = 0;
        meta.job_drop = 0;
        meta.drop_reason = 0;
        meta.job_hit = 0;
        meta.slot_ok = 0;
        meta.port_ok = 0;
        meta.sender_ok = 1;  // types that name no sender; worker_ports decides the rest
        meta.data_mode = DM_NONE;
        // The pass's resubmit data: pass 2 extracts its own over these.
        meta.resub.setValid();
        meta.resub.intent = INTENT_NONE;
        meta.resub.is_new = 0;
        meta.resub.flags = 0;
        meta.wbit = 0;
        meta.t_hit = 0;
        meta.w_new = 0;
        meta.p_old = 0;
        meta.bit_held = 0;
        meta.b_old = 0;
        meta.o_pred = 0;
        meta.init = 0xffffffff;  // RESULT: owner_release keeps the chunk
        meta.to_ps = 0;
        meta.count_rx = 0;
        transition select(ig_intr_md.resubmit_flag) {
            1: parse_resubmit;
            default: parse_port_metadata;
        }
    }

    state parse_resubmit {
        pkt.extract(meta.resub);
        transition parse_ethernet;
    }

    state parse_port_metadata {
        pkt.advance(PORT_METADATA_SIZE);
        transition parse_ethernet;
    }

    state parse_ethernet {
        pkt.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            0x0800: parse_ipv4;
            default: accept;
        }
    }

    state parse_ipv4 {
        pkt.extract(hdr.ipv4);
        ipv4_checksum.add(hdr.ipv4);
        meta.checksum_ok = (bit<1>)ipv4_checksum.verify();
        transition select(hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.flags[0:0],
                          hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (4, 5, 0, 0, 17): parse_udp;
            default: accept;
        }
    }

    state parse_udp {
        pkt.extract(hdr.udp);
        transition select(hdr.udp.dst_port, hdr.udp.length) {
            (ESA_UDP_PORT, ESA_UDP_LEN): parse_esa_udp_length_ok;
            (ESA_UDP_PORT, _): parse_esa;
            default: accept;
        }
    }

    state parse_esa_udp_length_ok {
        meta.udp_length_ok = 1;
        transition parse_esa;
    }

    state parse_esa {
        pkt.extract(hdr.esa);
        pkt.extract(hdr.values);
        transition accept;
    }
}

// ---------------------------------------------------------------------------
// Ingress
// ---------------------------------------------------------------------------

// 0..255, 16 to a line, for the const entries of priority_clamp,
// priority_order and the popcount tables.
#define POP_BIT(n, k) (((n) >> (k)) & 1)
#define POPCOUNT8(n) (POP_BIT(n, 0) + POP_BIT(n, 1) + POP_BIT(n, 2) + POP_BIT(n, 3) + \
                      POP_BIT(n, 4) + POP_BIT(n, 5) + POP_BIT(n, 6) + POP_BIT(n, 7))
#define BYTES16(M, h) M(h * 16 + 0) M(h * 16 + 1) M(h * 16 + 2) M(h * 16 + 3)     \
    M(h * 16 + 4) M(h * 16 + 5) M(h * 16 + 6) M(h * 16 + 7) M(h * 16 + 8)          \
    M(h * 16 + 9) M(h * 16 + 10) M(h * 16 + 11) M(h * 16 + 12) M(h * 16 + 13)      \
    M(h * 16 + 14) M(h * 16 + 15)
#define CLAMP(n) (((n) >> 4) > ((n) & 15) ? (bit<4>)((n) & 15) : (bit<4>)((n) >> 4))
#define HIGHER_ENTRY(n) ((n) >> 4, (n) & 15): set_higher(((n) >> 4) > ((n) & 15) ? 1w1 : 1w0);
#define CLAMP_ENTRY(n) ((n) >> 4, (n) & 15): clamp_to(CLAMP(n));

// One value lane: a register of ESA_POOL_SLOTS int32 sums, its four
// RegisterActions, and one table that picks one by meta.lane_op (LOP_*) —
// ACCESS lane_i: that table's single apply. (Four gateway-guarded tables
// per lane did not fit beside the register in one stage.) Lane i is pinned
// to stage 4 + i / 4: four stateful ALUs per stage, from the stage after
// the one that decides the lane operation; left to itself the compiler
// put only three lanes into one of those stages and needed a 13th.
#define TNA_LANE_DECLARE(i)                                                     \
    Register<bit<32>, bit<16>>(ESA_POOL_SLOTS, 0) lane_##i;                    \
    RegisterAction<bit<32>, bit<16>, bit<32>>(lane_##i) lane_##i##_add = {     \
        void apply(inout bit<32> v, out bit<32> rv) {                           \
            v = v + hdr.values.v##i;                                            \
            rv = v;                                                             \
        }                                                                       \
    };                                                                          \
    RegisterAction<bit<32>, bit<16>, bit<32>>(lane_##i) lane_##i##_swap = {    \
        void apply(inout bit<32> v, out bit<32> rv) {                           \
            rv = v;                                                             \
            v = hdr.values.v##i;                                                \
        }                                                                       \
    };                                                                          \
    RegisterAction<bit<32>, bit<16>, bit<32>>(lane_##i) lane_##i##_write = {   \
        void apply(inout bit<32> v) {                                           \
            v = hdr.values.v##i;                                                \
        }                                                                       \
    };                                                                          \
    RegisterAction<bit<32>, bit<16>, bit<32>>(lane_##i) lane_##i##_read = {    \
        void apply(inout bit<32> v, out bit<32> rv) {                           \
            rv = v;                                                             \
        }                                                                       \
    };                                                                          \
    action lane_##i##_do_add() {                                                \
        hdr.values.v##i = lane_##i##_add.execute(meta.index);                   \
    }                                                                           \
    action lane_##i##_do_swap() {                                               \
        hdr.values.v##i = lane_##i##_swap.execute(meta.index);                  \
    }                                                                           \
    action lane_##i##_do_write() {                                              \
        lane_##i##_write.execute(meta.index);                                   \
    }                                                                           \
    action lane_##i##_do_read() {                                               \
        hdr.values.v##i = lane_##i##_read.execute(meta.index);                  \
    }                                                                           \
    @stage(4 + (i) / 4)                                                         \
    table lane_##i##_op {                                                       \
        key = { meta.lane_op: exact; }                                          \
        actions = {                                                             \
            lane_##i##_do_add; lane_##i##_do_swap; lane_##i##_do_write;         \
            lane_##i##_do_read; NoAction;                                       \
        }                                                                       \
        const default_action = NoAction();                                      \
        size = 8;                                                               \
        const entries = {                                                       \
            LOP_ADD: lane_##i##_do_add();                                       \
            LOP_SWAP: lane_##i##_do_swap();                                     \
            LOP_WRITE: lane_##i##_do_write();                                   \
            LOP_READ: lane_##i##_do_read();                                     \
        }                                                                       \
    }

#define TNA_LANE_APPLY(i) lane_##i##_op.apply();

#define CHECK_ENTRY(w, type, resend, resub, wbit, mode)                          \
    (w, 32w1 << w, ESA_VERSION, type, ESA_IPV4_TOTAL_LEN, 1, 1, 0, resend, resub): \
        set_data(wbit, mode);
// A resend's first pass has wbit 0: its bitmap access only compares
// (bitmap_or_cmp ORs nothing in).
#define WORKER_ENTRY(w)                                                         \
    CHECK_ENTRY(w, TYPE_DATA, 0, 0, 32w1 << w, DM_FIRST)                         \
    CHECK_ENTRY(w, TYPE_DATA, 1, 0, 0, DM_RESEND)                                \
    CHECK_ENTRY(w, TYPE_DATA, 0, 1, 32w1 << w, DM_PASS2)                         \
    CHECK_ENTRY(w, TYPE_DATA, 1, 1, 32w1 << w, DM_PASS2)                         \
    CHECK_ENTRY(w, TYPE_PROBE, 0, 0, 32w1 << w, DM_PROBE)                        \
    CHECK_ENTRY(w, TYPE_PROBE, 1, 0, 32w1 << w, DM_PROBE)
#define FULL_MASK(f) ((bit<32>)((33w1 << (f)) - 1))
// all: the pending set of a claim before the claimer's bit leaves it (init
// = all ^ the worker's bit: what a claim starts with, and what each DATA of
// the chunk ANDs into the pending set); or init itself: the owner's chunk
// mask for a pass-2 FLUSH (0: free the slot) and a RESULT (all ones: keep
// it).
#define FAN_IN_INTENTS(f, leaf, mode, all)                                      \
    (f, mode, INTENT_NONE, leaf): set_fan_in_claim(FULL_MASK(f), all);          \
    (f, mode, INTENT_FLUSH, leaf): set_fan_in_info(FULL_MASK(f), 0);            \
    (f, mode, INTENT_EVICT, leaf): set_fan_in_claim(FULL_MASK(f), all);         \
    (f, mode, INTENT_STALE, leaf): set_fan_in_claim(FULL_MASK(f), all);         \
    (f, mode, INTENT_RESULT, leaf): set_fan_in_info(FULL_MASK(f), 0xffffffff);
// An atp chunk, and every chunk at a tree's leaf (which holds its rack's
// partial until the result comes down, D1'), holds the slot with HELD.
// (An atp job or a leaf of 32 workers has no entry: HELD is worker 31's
// bit; a leaf's rack of one worker bypasses the slot.)
#define FAN_IN_ENTRIES(f)                                                       \
    FAN_IN_INTENTS(f, 0, MODE_ESA, FULL_MASK(f))                                \
    FAN_IN_INTENTS(f, 0, MODE_ATP, HELD | FULL_MASK(f))                         \
    FAN_IN_INTENTS(f, 0, MODE_SWITCHML, FULL_MASK(f))                           \
    FAN_IN_INTENTS(f, 1, MODE_ESA, HELD | FULL_MASK(f))                         \
    FAN_IN_INTENTS(f, 1, MODE_ATP, HELD | FULL_MASK(f))                         \
    FAN_IN_INTENTS(f, 1, MODE_SWITCHML, HELD | FULL_MASK(f))

control EsaIngress(inout headers_t hdr,
                   inout ig_meta_t meta,
                   in ingress_intrinsic_metadata_t ig_intr_md,
                   in ingress_intrinsic_metadata_from_parser_t ig_prsr_md,
                   inout ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md,
                   inout ingress_intrinsic_metadata_for_tm_t ig_tm_md) {

    // ---- counters ---------------------------------------------------------
    Counter<bit<64>, bit<2>>(4, CounterType_t.PACKETS) esa_global;
    // The per-job counters beside the lanes (stages 7-11) come in arrays
    // of at most 16,384 32-bit cells: at 32,768 slots four lanes take 36 of
    // a stage's 48 RAMs with map RAMs, and a counter of 8 blocks (9 RAMs)
    // does not fit beside them where one of 4 (5 RAMs) does. So the 16 rows
    // a job has are four arrays of 4 rows (job_rows_N holds rows 4N..4N+3
    // at job ++ row[1:0]), and of the drops, reasons 0-3 are job_drops'
    // (job ++ reason) and the spoofed sender is job_spoofed's (job).
    Counter<bit<32>, bit<14>>(ESA_MAX_JOBS * 4, CounterType_t.PACKETS) job_drops;
    Counter<bit<32>, bit<12>>(ESA_MAX_JOBS, CounterType_t.PACKETS) job_spoofed;
    Counter<bit<64>, bit<12>>(ESA_MAX_JOBS, CounterType_t.PACKETS) data_rx;
    // job_rows_0..3 are declared beside their tables (row_counters.p4).
    Counter<bit<64>, bit<12>>(ESA_MAX_JOBS, CounterType_t.PACKETS) evictions_suffered;
    // A root's U1 and U2 (docs/protocol.md 9.3): job ++ 0 parts_relayed,
    // job ++ 1 pulls_relayed. Apart from job_rows_N: two more rows there
    // would double it, and stage 10 (beside four lanes) cannot hold that.
    Counter<bit<64>, bit<13>>(ESA_MAX_JOBS * 2, CounterType_t.PACKETS) tree_rows;

    // ---- stage 0: admission lookups ---------------------------------------
    action set_job(bit<8> fan_in, bit<2> mode, bit<4> max_priority, bit<16> mcast_group,
                   PortId_t ps_port, bit<16> slot_base, bit<16> slot_mask,
                   bit<2> tree_role, bit<1> aggregate, bit<8> racks,
                   PortId_t uplink_port, bit<8> uplink_bit) {
        meta.job.tree_role = tree_role;
        meta.job.aggregate = aggregate;
        meta.job.racks = racks;
        meta.job.uplink_port = uplink_port;
        meta.job.uplink_bit = uplink_bit;
        meta.from_ps = ig_intr_md.ingress_port ^ ps_port;
        meta.job.fan_in = fan_in;
        meta.job.mode = mode;
        meta.job.max_priority = max_priority;
        meta.job.mcast_group = mcast_group;
        meta.job.ps_port = ps_port;
        meta.job.slot_base = slot_base;
        meta.job.slot_mask = slot_mask;
        meta.slot_ok = 1;
        meta.index = hdr.esa.slot + slot_base;
        meta.chunk = 4w0 ++ hdr.esa.job ++ hdr.esa.seq;
    }
    // The job table. The slot range check is part of the match (ternary
    // slot with mask ~slot_mask, value 0), so a packet outside its job's
    // slots never reaches a slot register (they are accessed from stage 1).
    table jobs {
        key = {
            hdr.esa.job: exact;
            hdr.esa.slot: ternary;
        }
        actions = { set_job; @defaultonly NoAction; }
        const default_action = NoAction();
        size = ESA_MAX_JOBS;
    }

    action known() {
        meta.job_hit = 1;
    }
    // Job ids known at all, to tell an unknown job from a bad slot.
    table job_ids {
        key = { hdr.esa.job: exact; }
        actions = { known; @defaultonly NoAction; }
        const default_action = NoAction();
        size = ESA_MAX_JOBS;
    }

    action allow() {
        meta.port_ok = 1;
    }
    table job_ports {
        key = {
            hdr.esa.job: exact;
            ig_intr_md.ingress_port: exact;
        }
        actions = { allow; @defaultonly NoAction; }
        const default_action = NoAction();
        size = 16384;
    }

    action allow_worker() { }
    action spoofed() {
        meta.sender_ok = 0;
    }
    // The sender ids each port of a job may put on DATA, PROBE and RESULT
    // (applied for those types only): a worker's port speaks only for the
    // workers behind it, the PS's port only for PS_WORKER_ID. A miss
    // clears sender_ok.
    table worker_ports {
        key = {
            hdr.esa.job: exact;
            ig_intr_md.ingress_port: exact;
            hdr.esa.worker: exact;
        }
        actions = { allow_worker; @defaultonly spoofed; }
        const default_action = spoofed();
        size = 16384;
    }

    action set_data(bit<32> b, bit<3> mode) {
        meta.data_mode = mode;
        meta.wbit = b;
    }
    // A well-formed DATA or PROBE (parsed whole, right version, lengths and
    // checksum: a truncated or corrupt copy must not count as the worker's
    // contribution) whose bitmap is 1 << worker, by lookup: Tofino shifts
    // only by constants, and one answer here keeps the stage-1 gates small.
    // The mode says what the tombstone register does.
    table data_check {
        key = {
            hdr.esa.worker: exact;
            hdr.esa.bitmap: exact;
            hdr.esa.version: exact;
            hdr.esa.packet_type: exact;
            hdr.ipv4.total_len: exact;
            meta.udp_length_ok: exact;
            meta.checksum_ok: exact;
            ig_prsr_md.parser_err: exact;
            hdr.esa.flags[0:0]: exact @name("resend");
            ig_intr_md.resubmit_flag: exact;
        }
        actions = { set_data; @defaultonly NoAction; }
        const default_action = NoAction();
        size = 256;
        const entries = {
            WORKER_ENTRY(0)
            WORKER_ENTRY(1)
            WORKER_ENTRY(2)
            WORKER_ENTRY(3)
            WORKER_ENTRY(4)
            WORKER_ENTRY(5)
            WORKER_ENTRY(6)
            WORKER_ENTRY(7)
            WORKER_ENTRY(8)
            WORKER_ENTRY(9)
            WORKER_ENTRY(10)
            WORKER_ENTRY(11)
            WORKER_ENTRY(12)
            WORKER_ENTRY(13)
            WORKER_ENTRY(14)
            WORKER_ENTRY(15)
            WORKER_ENTRY(16)
            WORKER_ENTRY(17)
            WORKER_ENTRY(18)
            WORKER_ENTRY(19)
            WORKER_ENTRY(20)
            WORKER_ENTRY(21)
            WORKER_ENTRY(22)
            WORKER_ENTRY(23)
            WORKER_ENTRY(24)
            WORKER_ENTRY(25)
            WORKER_ENTRY(26)
            WORKER_ENTRY(27)
            WORKER_ENTRY(28)
            WORKER_ENTRY(29)
            WORKER_ENTRY(30)
            WORKER_ENTRY(31)
        }
    }

    // ---- stage 1 ----------------------------------------------------------
    action set_level(bit<8> level, bit<2> bypass) {
        meta.level = level;
        meta.bypass = bypass;
    }
    // The flag of what the switch builds from a slot: UPPER at a tree's
    // root (by lookup: an action's shift of tree_role would take two); and
    // whether a DATA bypasses the slot (D0): a level without memory, or a
    // leaf's rack of one worker, whose slot would never complete.
    table level_info {
        key = {
            meta.job.tree_role: exact;
            meta.job.aggregate: exact;
            meta.job.fan_in: ternary;
        }
        actions = { set_level; @defaultonly NoAction; }
        const default_action = NoAction();
        size = 8;
        const entries = {
            (TREE_ROOT, 1, _): set_level(FLAG_UPPER, BYPASS_NONE);
            (TREE_ROOT, 0, _): set_level(FLAG_UPPER, BYPASS_PS);
            (TREE_LEAF, 0, _): set_level(0, BYPASS_PS);
            (TREE_LEAF, 1, 1): set_level(0, BYPASS_UP);
        }
    }

    action set_rack_bit(bit<32> b) {
        meta.wbit = b;
    }
    // A leaf's probe at its root names the rack in worker (U1): bitmap_probe
    // tests the rack's bit, as P1 tests a worker's (data_check gives a
    // worker's probe its bit only when its bitmap is 1 << worker).
#define RACK_BIT_ENTRY(r) (r): set_rack_bit(32w1 << (r));
    table rack_bit {
        key = { hdr.esa.worker: exact; }
        actions = { set_rack_bit; @defaultonly NoAction; }
        const default_action = NoAction();
        size = 32;
        const entries = {
            RACK_BIT_ENTRY(0) RACK_BIT_ENTRY(1) RACK_BIT_ENTRY(2) RACK_BIT_ENTRY(3)
            RACK_BIT_ENTRY(4) RACK_BIT_ENTRY(5) RACK_BIT_ENTRY(6) RACK_BIT_ENTRY(7)
            RACK_BIT_ENTRY(8) RACK_BIT_ENTRY(9) RACK_BIT_ENTRY(10) RACK_BIT_ENTRY(11)
            RACK_BIT_ENTRY(12) RACK_BIT_ENTRY(13) RACK_BIT_ENTRY(14) RACK_BIT_ENTRY(15)
            RACK_BIT_ENTRY(16) RACK_BIT_ENTRY(17) RACK_BIT_ENTRY(18) RACK_BIT_ENTRY(19)
            RACK_BIT_ENTRY(20) RACK_BIT_ENTRY(21) RACK_BIT_ENTRY(22) RACK_BIT_ENTRY(23)
            RACK_BIT_ENTRY(24) RACK_BIT_ENTRY(25) RACK_BIT_ENTRY(26) RACK_BIT_ENTRY(27)
            RACK_BIT_ENTRY(28) RACK_BIT_ENTRY(29) RACK_BIT_ENTRY(30) RACK_BIT_ENTRY(31)
        }
    }

    action set_uplink_bitmap(bit<32> bitmap) {
        hdr.esa.bitmap = bitmap;
    }
    // A leaf's partial goes up with its rack's bit: 1 << uplink_bit, by
    // lookup (Tofino shifts only by constants). Applied after decide,
    // like racks_info: the bitmap goes straight into the header (a field
    // of its own beside 32 lanes did not fit the ingress PHV).
#define UPLINK_ENTRY(b) (b): set_uplink_bitmap(32w1 << (b));
    table uplink_info {
        key = { meta.job.uplink_bit: exact; }
        actions = { set_uplink_bitmap; @defaultonly NoAction; }
        const default_action = NoAction();
        size = 32;
        const entries = {
            UPLINK_ENTRY(0) UPLINK_ENTRY(1) UPLINK_ENTRY(2) UPLINK_ENTRY(3)
            UPLINK_ENTRY(4) UPLINK_ENTRY(5) UPLINK_ENTRY(6) UPLINK_ENTRY(7)
            UPLINK_ENTRY(8) UPLINK_ENTRY(9) UPLINK_ENTRY(10) UPLINK_ENTRY(11)
            UPLINK_ENTRY(12) UPLINK_ENTRY(13) UPLINK_ENTRY(14) UPLINK_ENTRY(15)
            UPLINK_ENTRY(16) UPLINK_ENTRY(17) UPLINK_ENTRY(18) UPLINK_ENTRY(19)
            UPLINK_ENTRY(20) UPLINK_ENTRY(21) UPLINK_ENTRY(22) UPLINK_ENTRY(23)
            UPLINK_ENTRY(24) UPLINK_ENTRY(25) UPLINK_ENTRY(26) UPLINK_ENTRY(27)
            UPLINK_ENTRY(28) UPLINK_ENTRY(29) UPLINK_ENTRY(30) UPLINK_ENTRY(31)
        }
    }

    action set_racks_full(bit<32> full) {
        hdr.esa.bitmap = full;
    }
    // A leaf's re-emitted result (D5'') carries the root's header: every
    // rack's bit.
#define RACKS_ENTRY(r) (r): set_racks_full(FULL_MASK(r));
    table racks_info {
        key = { meta.job.racks: exact; }
        actions = { set_racks_full; @defaultonly NoAction; }
        const default_action = NoAction();
        size = 64;
        const entries = {
            RACKS_ENTRY(1) RACKS_ENTRY(2) RACKS_ENTRY(3) RACKS_ENTRY(4)
            RACKS_ENTRY(5) RACKS_ENTRY(6) RACKS_ENTRY(7) RACKS_ENTRY(8)
            RACKS_ENTRY(9) RACKS_ENTRY(10) RACKS_ENTRY(11) RACKS_ENTRY(12)
            RACKS_ENTRY(13) RACKS_ENTRY(14) RACKS_ENTRY(15) RACKS_ENTRY(16)
            RACKS_ENTRY(17) RACKS_ENTRY(18) RACKS_ENTRY(19) RACKS_ENTRY(20)
            RACKS_ENTRY(21) RACKS_ENTRY(22) RACKS_ENTRY(23) RACKS_ENTRY(24)
            RACKS_ENTRY(25) RACKS_ENTRY(26) RACKS_ENTRY(27) RACKS_ENTRY(28)
            RACKS_ENTRY(29) RACKS_ENTRY(30) RACKS_ENTRY(31) RACKS_ENTRY(32)
        }
    }

    action set_fan_in_info(bit<32> full, bit<32> init) {
        meta.full = full;
        meta.init = init;
    }
    action set_fan_in_claim(bit<32> full, bit<32> all) {
        meta.full = full;
        meta.init = all ^ meta.wbit;
    }
    table fan_in_info {
        key = {
            meta.job.fan_in: exact;
            meta.job.mode: exact;
            meta.resub.intent: exact;
            meta.job.tree_role[0:0]: exact @name("leaf");  // TREE_LEAF: the one role with bit 0
        }
        actions = { set_fan_in_info; set_fan_in_claim; @defaultonly NoAction; }
        const default_action = NoAction();
        size = 1024;
        const entries = {
            FAN_IN_ENTRIES(2)
            FAN_IN_ENTRIES(3)
            FAN_IN_ENTRIES(4)
            FAN_IN_ENTRIES(5)
            FAN_IN_ENTRIES(6)
            FAN_IN_ENTRIES(7)
            FAN_IN_ENTRIES(8)
            FAN_IN_ENTRIES(9)
            FAN_IN_ENTRIES(10)
            FAN_IN_ENTRIES(11)
            FAN_IN_ENTRIES(12)
            FAN_IN_ENTRIES(13)
            FAN_IN_ENTRIES(14)
            FAN_IN_ENTRIES(15)
            FAN_IN_ENTRIES(16)
            FAN_IN_ENTRIES(17)
            FAN_IN_ENTRIES(18)
            FAN_IN_ENTRIES(19)
            FAN_IN_ENTRIES(20)
            FAN_IN_ENTRIES(21)
            FAN_IN_ENTRIES(22)
            FAN_IN_ENTRIES(23)
            FAN_IN_ENTRIES(24)
            FAN_IN_ENTRIES(25)
            FAN_IN_ENTRIES(26)
            FAN_IN_ENTRIES(27)
            FAN_IN_ENTRIES(28)
            FAN_IN_ENTRIES(29)
            FAN_IN_ENTRIES(30)
            FAN_IN_ENTRIES(31)
            FAN_IN_INTENTS(32, 0, MODE_ESA, FULL_MASK(32))
            FAN_IN_INTENTS(32, 0, MODE_SWITCHML, FULL_MASK(32))
        }
    }

    action clamp_to(bit<4> priority) {
        hdr.esa.priority = priority;
    }
    // priority = min(priority, max_priority), by lookup.
    table priority_clamp {
        key = {
            hdr.esa.priority: exact;
            meta.job.max_priority: exact;
        }
        actions = { clamp_to; }
        const default_action = clamp_to(0);
        size = 256;
        const entries = {
            BYTES16(CLAMP_ENTRY, 0)
            BYTES16(CLAMP_ENTRY, 1)
            BYTES16(CLAMP_ENTRY, 2)
            BYTES16(CLAMP_ENTRY, 3)
            BYTES16(CLAMP_ENTRY, 4)
            BYTES16(CLAMP_ENTRY, 5)
            BYTES16(CLAMP_ENTRY, 6)
            BYTES16(CLAMP_ENTRY, 7)
            BYTES16(CLAMP_ENTRY, 8)
            BYTES16(CLAMP_ENTRY, 9)
            BYTES16(CLAMP_ENTRY, 10)
            BYTES16(CLAMP_ENTRY, 11)
            BYTES16(CLAMP_ENTRY, 12)
            BYTES16(CLAMP_ENTRY, 13)
            BYTES16(CLAMP_ENTRY, 14)
            BYTES16(CLAMP_ENTRY, 15)
        }
    }

    action set_stale_after(bit<32> units) {
        meta.stale_after = units;
    }
    // Pool-wide settings. Units of 1.024 us (global timestamp >> 10).
    table pool_config {
        actions = { set_stale_after; }
        size = 1;
        default_action = set_stale_after((bit<32>)DEFAULT_STALE_AFTER_US);
    }

    // Tombstone: the chunk last evicted or flushed from the slot.
    Register<bit<32>, bit<16>>(ESA_POOL_SLOTS, 0) slot_tombstone;
    RegisterAction<bit<32>, bit<16>, bit<1>>(slot_tombstone) tombstone_check = {
        void apply(inout bit<32> v, out bit<1> rv) {
            if (v == meta.chunk) {
                rv = 1;
            } else {
                rv = 0;
            }
        }
    };
    RegisterAction<bit<32>, bit<16>, bit<8>>(slot_tombstone) tombstone_write = {
        void apply(inout bit<32> v) {
            v = meta.resub.victim;
        }
    };
    action t_check() {
        meta.t_hit = tombstone_check.execute(meta.index);
    }
    action t_write() {
        tombstone_write.execute(meta.index);
    }
    // ACCESS slot_tombstone: this table's single apply. A DATA's first pass
    // checks; the second pass of D2, D10, D11 and L1 writes. atp jobs keep
    // no tombstones (docs/protocol.md 5): their packets neither check nor
    // write.
#define TOMBSTONE_ENTRIES(mode)                                                 \
            (TYPE_DATA, DM_FIRST, INTENT_NONE, mode): t_check();                 \
            (TYPE_DATA, DM_RESEND, INTENT_NONE, mode): t_check();                \
            (TYPE_DATA, DM_PASS2, INTENT_FLUSH, mode): t_write();                \
            (TYPE_DATA, DM_PASS2, INTENT_EVICT, mode): t_write();                \
            (TYPE_DATA, DM_PASS2, INTENT_STALE, mode): t_write();                \
            (TYPE_PULL, DM_NONE, INTENT_FLUSH, mode): t_write();
    table tombstone_step {
        key = {
            hdr.esa.packet_type: exact;
            meta.data_mode: exact;
            meta.resub.intent: exact;
            meta.job.mode: exact;
        }
        actions = { t_check; t_write; NoAction; }
        const default_action = NoAction();
        size = 16;
        const entries = {
            TOMBSTONE_ENTRIES(MODE_ESA)
            TOMBSTONE_ENTRIES(MODE_SWITCHML)
        }
    }

    action set_w_new(bit<1> w) {
        meta.w_new = w;
    }
    // w_new: the worker's bit was in the pending set slot_owner_copy
    // answered (p_old & (1 << worker) != 0, by lookup), for decide. Pinned
    // beside the first lanes: in stage 3 it pushed bitmap_step out.
#define PENDING_WORKER(w) (32w1 << (w)) &&& (32w1 << (w)), (w)
#define W_NEW_ENTRY(w) (PENDING_WORKER(w)): set_w_new(1);
    @stage(4)
    table w_new_calc {
        key = {
            meta.p_old: ternary;
            hdr.esa.worker: ternary;
        }
        actions = { set_w_new; }
        const default_action = set_w_new(0);
        size = 32;
        const entries = {
            W_NEW_ENTRY(0) W_NEW_ENTRY(1) W_NEW_ENTRY(2) W_NEW_ENTRY(3)
            W_NEW_ENTRY(4) W_NEW_ENTRY(5) W_NEW_ENTRY(6) W_NEW_ENTRY(7)
            W_NEW_ENTRY(8) W_NEW_ENTRY(9) W_NEW_ENTRY(10) W_NEW_ENTRY(11)
            W_NEW_ENTRY(12) W_NEW_ENTRY(13) W_NEW_ENTRY(14) W_NEW_ENTRY(15)
            W_NEW_ENTRY(16) W_NEW_ENTRY(17) W_NEW_ENTRY(18) W_NEW_ENTRY(19)
            W_NEW_ENTRY(20) W_NEW_ENTRY(21) W_NEW_ENTRY(22) W_NEW_ENTRY(23)
            W_NEW_ENTRY(24) W_NEW_ENTRY(25) W_NEW_ENTRY(26) W_NEW_ENTRY(27)
            W_NEW_ENTRY(28) W_NEW_ENTRY(29) W_NEW_ENTRY(30) W_NEW_ENTRY(31)
        }
    }

    // ---- stage 2: the owner and its copy -----------------------------------
    // slot_owner answers the 4-bit predicate (cmplo: same chunk; cmphi:
    // pending == 0, free or complete), slot_owner_copy, which takes the
    // same updates from the same packets and so always holds the same
    // words, the pending set before: a stateful ALU has one output.
    //   _data: a first-copy DATA: clear the worker's bit if the chunk is in
    //     the slot (init = full ^ bit; a duplicate's bit is already clear),
    //     claim the slot if it is free.
    //   _peek: resends, tombstoned chunks, PROBEs, a PULL's first pass: look.
    //   _release: RESULT (init all ones: R1 completes and releases, the
    //     chunk stays) and pass-2 FLUSH (D2, L1, atp's D5; init 0: the slot
    //     becomes free), only if the chunk holds it. (init doubles as the
    //     mask: a stateful ALU takes at most two PHV inputs, chunk and init,
    //     over all its actions.)
    //   _take: pass-2 EVICT: the packet's chunk takes the slot.
    Register<owner_t, bit<16>>(ESA_POOL_SLOTS, {0, 0}) slot_owner;
    RegisterAction<owner_t, bit<16>, bit<4>>(slot_owner) slot_owner_data = {
        void apply(inout owner_t v, out bit<4> rv) {
            rv = this.predicate(v.chunk == meta.chunk, v.pending == 0);
            if (v.chunk == meta.chunk) {
                v.pending = v.pending & meta.init;
            } else if (v.pending == 0) {
                v.chunk = meta.chunk;
                v.pending = meta.init;
            }
        }
    };
    RegisterAction<owner_t, bit<16>, bit<4>>(slot_owner) slot_owner_peek = {
        void apply(inout owner_t v, out bit<4> rv) {
            rv = this.predicate(v.chunk == meta.chunk);
        }
    };
    RegisterAction<owner_t, bit<16>, bit<4>>(slot_owner) slot_owner_release = {
        void apply(inout owner_t v, out bit<4> rv) {
            rv = this.predicate(v.chunk == meta.chunk);
            if (v.chunk == meta.chunk) {
                v.chunk = v.chunk & meta.init;
                v.pending = 0;
            }
        }
    };
    RegisterAction<owner_t, bit<16>, bit<4>>(slot_owner) slot_owner_take = {
        void apply(inout owner_t v, out bit<4> rv) {
            rv = this.predicate(v.chunk == meta.chunk);
            v.chunk = meta.chunk;
            v.pending = meta.init;
        }
    };
    // The copy: the same four updates, answering the pending set before.
    Register<owner_t, bit<16>>(ESA_POOL_SLOTS, {0, 0}) slot_owner_copy;
    RegisterAction<owner_t, bit<16>, bit<32>>(slot_owner_copy) slot_owner_copy_data = {
        void apply(inout owner_t v, out bit<32> rv) {
            rv = v.pending;
            if (v.chunk == meta.chunk) {
                v.pending = v.pending & meta.init;
            } else if (v.pending == 0) {
                v.chunk = meta.chunk;
                v.pending = meta.init;
            }
        }
    };
    RegisterAction<owner_t, bit<16>, bit<32>>(slot_owner_copy) slot_owner_copy_peek = {
        void apply(inout owner_t v, out bit<32> rv) {
            rv = v.pending;
        }
    };
    RegisterAction<owner_t, bit<16>, bit<32>>(slot_owner_copy) slot_owner_copy_release = {
        void apply(inout owner_t v) {
            if (v.chunk == meta.chunk) {
                v.chunk = v.chunk & meta.init;
                v.pending = 0;
            }
        }
    };
    RegisterAction<owner_t, bit<16>, bit<32>>(slot_owner_copy) slot_owner_copy_take = {
        void apply(inout owner_t v) {
            v.chunk = meta.chunk;
            v.pending = meta.init;
        }
    };

    // ---- stage 3: the rest of the slot ------------------------------------
    Register<bit<32>, bit<16>>(ESA_POOL_SLOTS, 0) slot_bitmap;
    // D1/D3: add the worker; the answer (P_LO) says it completes the chunk.
    // A resend's first pass and a PULL's (wbit 0, bcmp full) only compare:
    // is the chunk complete?
    RegisterAction<bit<32>, bit<16>, bit<4>>(slot_bitmap) bitmap_or_cmp = {
        void apply(inout bit<32> v, out bit<4> rv) {
            rv = this.predicate(v == meta.bcmp);
            v = v | meta.wbit;
        }
    };
    // D2 (pass 2): add the worker, return the bitmap before.
    RegisterAction<bit<32>, bit<16>, bit<32>>(slot_bitmap) bitmap_or = {
        void apply(inout bit<32> v, out bit<32> rv) {
            rv = v;
            v = v | meta.wbit;
        }
    };
    // D9, D10/D11 (bitmap = the worker's bit), R1 (wbit = full).
    RegisterAction<bit<32>, bit<16>, bit<32>>(slot_bitmap) bitmap_set = {
        void apply(inout bit<32> v, out bit<32> rv) {
            rv = v;
            v = meta.wbit;
        }
    };
    // A PROBE of the chunk in the slot (bcmp full): the worker's bit if the
    // chunk is still aggregating, 0 if it is complete or lacks the bit. (A
    // stateful ALU cannot test a bit the packet chooses in a condition, but
    // it can output the AND.)
    RegisterAction<bit<32>, bit<16>, bit<32>>(slot_bitmap) bitmap_probe = {
        void apply(inout bit<32> v, out bit<32> rv) {
            if (v == meta.bcmp) {
                rv = 0;
            } else {
                rv = v & meta.wbit;
            }
        }
    };

    Register<bit<32>, bit<16>>(ESA_POOL_SLOTS, 0) slot_key;
    RegisterAction<bit<32>, bit<16>, bit<32>>(slot_key) key_swap = {
        void apply(inout bit<32> v, out bit<32> rv) {
            rv = v;
            v = meta.key;
        }
    };
    RegisterAction<bit<32>, bit<16>, bit<32>>(slot_key) key_read = {
        void apply(inout bit<32> v, out bit<32> rv) {
            rv = v;
        }
    };

    // When the slot goes stale: now + stale_after at the last absorbing
    // packet, so the stale test is one comparison in the stateful ALU.
    Register<bit<32>, bit<16>>(ESA_POOL_SLOTS, 0) slot_timestamp;
    RegisterAction<bit<32>, bit<16>, bit<32>>(slot_timestamp) timestamp_touch = {
        void apply(inout bit<32> v) {
            v = meta.expire;
        }
    };
    // P_LO: stale (the expiry has passed).
    RegisterAction<bit<32>, bit<16>, bit<4>>(slot_timestamp) timestamp_stale = {
        void apply(inout bit<32> v, out bit<4> rv) {
            rv = this.predicate(v < meta.now);
        }
    };

    // exponent (high byte) ++ slot flags (low byte: SLOT_OVERFLOW).
    Register<bit<16>, bit<16>>(ESA_POOL_SLOTS, 0) slot_meta;
    // D1/D3: the slot keeps the claim's exponent; only the packet's
    // OVERFLOW flag joins (ORing the whole of m_new mixed exponents).
    RegisterAction<bit<16>, bit<16>, bit<16>>(slot_meta) meta_or = {
        void apply(inout bit<16> v, out bit<16> rv) {
            rv = v;
            v = v | (bit<16>)meta.m_ovf;
        }
    };
    RegisterAction<bit<16>, bit<16>, bit<16>>(slot_meta) meta_swap = {
        void apply(inout bit<16> v, out bit<16> rv) {
            rv = v;
            v = meta.m_new;
        }
    };
    RegisterAction<bit<16>, bit<16>, bit<16>>(slot_meta) meta_read = {
        void apply(inout bit<16> v, out bit<16> rv) {
            rv = v;
        }
    };


    // ACCESS slot_owner, slot_owner_copy: one table each, keyed alike, one
    // RegisterAction per packet, chosen by lookup (nested gateways over
    // these fields exceeded a gateway's input).
    action o_data() {
        meta.o_pred = slot_owner_data.execute(meta.index);
    }
    action o_peek() {
        meta.o_pred = slot_owner_peek.execute(meta.index);
    }
    action o_release() {
        meta.o_pred = slot_owner_release.execute(meta.index);
    }
    action o_take() {
        meta.o_pred = slot_owner_take.execute(meta.index);
    }
    action c_data() {
        meta.p_old = slot_owner_copy_data.execute(meta.index);
    }
    action c_peek() {
        meta.p_old = slot_owner_copy_peek.execute(meta.index);
    }
    action c_release() {
        slot_owner_copy_release.execute(meta.index);
    }
    action c_take() {
        slot_owner_copy_take.execute(meta.index);
    }
#define OWNER_STEP(data, peek, release, take)                                   \
        key = {                                                                 \
            meta.verdict: exact;                                                \
            meta.worker_diff[7:7]: exact @name("worker_in_range");              \
            hdr.esa.packet_type: ternary;                                       \
            meta.resub.intent: ternary;                                         \
            meta.data_mode: ternary;                                            \
            meta.t_hit: ternary;                                                \
            meta.bypass: ternary;                                               \
        }                                                                       \
        actions = { data; peek; release; take; NoAction; }                      \
        const default_action = NoAction();                                      \
        size = 16;                                                              \
        const entries = {                                                       \
            (VERDICT_AGGREGATE, 1, TYPE_DATA, _, _, _, BYPASS_UP): NoAction();  \
            (VERDICT_AGGREGATE, 1, TYPE_DATA, _, _, _, BYPASS_PS): NoAction();  \
            (VERDICT_AGGREGATE, 1, TYPE_RESULT, _, _, _, _): release();         \
            (VERDICT_AGGREGATE, 1, TYPE_DATA, INTENT_FLUSH, _, _, _): release(); \
            (VERDICT_AGGREGATE, 1, TYPE_DATA, _, DM_PASS2, _, _): take();       \
            (VERDICT_AGGREGATE, 1, TYPE_DATA, _, DM_RESEND, _, _): peek();      \
            (VERDICT_AGGREGATE, 1, TYPE_DATA, _, DM_FIRST, 1, _): peek();       \
            (VERDICT_AGGREGATE, 1, TYPE_DATA, _, DM_FIRST, _, _): data();       \
            (VERDICT_AGGREGATE, 1, TYPE_PROBE, _, _, _, _): peek();             \
            (VERDICT_AGGREGATE, 1, TYPE_PULL, INTENT_FLUSH, _, _, _): release(); \
            (VERDICT_AGGREGATE, 1, TYPE_PULL, _, _, _, _): peek();              \
        }
    // verdict, in range, type, intent, data_mode, t_hit, bypass (D0: no
    // access)
    table owner_step {
        OWNER_STEP(o_data, o_peek, o_release, o_take)
    }
    table owner_copy_step {
        OWNER_STEP(c_data, c_peek, c_release, c_take)
    }

    // ---- stage 3: four tables, one per register, keyed alike -----------
    // Each register's table picks its RegisterAction from the same key
    // (ACCESS slot_bitmap, slot_key, slot_timestamp, slot_meta: one table
    // apply each, one action, one RegisterAction). A single table cannot
    // drive several stateful ALUs with one address, and gateway-guarded
    // tables per row did not fit beside the register in one stage.
    //
    // Row groups (the key's const entries below):
    //   RESULT  R1: the slot takes the RESULT (full bitmap, its exponent)
    //   FLUSH+  D2 pass 2, the worker's bit new: partial + packet's value
    //   FLUSH   D2 pass 2, the worker already counted (also atp's D5), and
    //           L1 pass 2: what the slot holds
    //   EVICT   D10 / D11 pass 2: swap the packet in, the victim out
    //   PEEK    a resend of the chunk in the slot: D5 or D2 by the bitmap;
    //           a PULL of it: L1 or L2
    //   PROBE   a PROBE of the chunk in the slot: P1 or P2 by the bitmap
    //   ADD     D1 / D3: a new worker of the chunk in progress (its bit
    //           pending: one entry per worker id)
    //   CLAIM   D9: the owner claimed the free slot
    //   HELD    another chunk holds the slot: D10, D11 or D12
    //   (none)  D4, D6, D7, D8, R2, Q1, A1, P2, L2: no access
#define STEP_KEY                                                                \
        key = {                                                                 \
            hdr.esa.packet_type: ternary;                                       \
            meta.resub.intent[3:0]: ternary @name("intent");                    \
            meta.data_mode: ternary;                                            \
            meta.t_hit[0:0]: ternary @name("t_hit");                            \
            meta.p_old: ternary;                                                \
            hdr.esa.worker[4:0]: ternary @name("worker");                       \
            meta.o_pred[3:0]: ternary @name("o_pred");                          \
            meta.resub.is_new[0:0]: ternary @name("flush_new");                 \
        }
// ADD: a first copy whose worker's bit is in the pending set the owner's
// copy answered (PENDING_WORKER: p_old, worker), one entry per worker id:
// a duplicate matches none and touches no register of the slot (D4).
// (The key takes only the bits its fields use: 58 bits, two TCAM blocks
// wide; whole fields took three, and one of the four tables went to stage 4.)
#define STEP_ADD(w, add) (TYPE_DATA, (bit<4>)INTENT_NONE, DM_FIRST, 0, PENDING_WORKER(w), (bit<4>)P_LO, _): add;
#define STEP_ENTRIES(result, flush_new, flush_old, evict, peek, pull_peek, probe, add, claim, \
                     held)                                                      \
        const entries = {                                                       \
            (TYPE_RESULT, _, _, _, _, _, (bit<4>)P_LO, _): result;              \
            (TYPE_DATA, (bit<4>)INTENT_FLUSH, _, _, _, _, (bit<4>)P_LO, 1): flush_new; \
            (TYPE_DATA, (bit<4>)INTENT_FLUSH, _, _, _, _, (bit<4>)P_LO, _): flush_old; \
            (TYPE_PULL, (bit<4>)INTENT_FLUSH, _, _, _, _, (bit<4>)P_LO, _): flush_old; \
            (TYPE_DATA, (bit<4>)INTENT_EVICT, _, _, _, _, _, _): evict;         \
            (TYPE_DATA, (bit<4>)INTENT_STALE, _, _, _, _, _, _): evict;         \
            (TYPE_DATA, (bit<4>)INTENT_NONE, DM_RESEND, _, _, _, (bit<4>)P_LO, _): peek; \
            (TYPE_PULL, (bit<4>)INTENT_NONE, _, _, _, _, (bit<4>)P_LO, _): pull_peek; \
            (TYPE_PROBE, (bit<4>)INTENT_NONE, _, _, _, _, (bit<4>)P_LO, _): probe; \
            STEP_ADD(0, add) STEP_ADD(1, add) STEP_ADD(2, add) STEP_ADD(3, add) \
            STEP_ADD(4, add) STEP_ADD(5, add) STEP_ADD(6, add) STEP_ADD(7, add) \
            STEP_ADD(8, add) STEP_ADD(9, add) STEP_ADD(10, add) STEP_ADD(11, add) \
            STEP_ADD(12, add) STEP_ADD(13, add) STEP_ADD(14, add) STEP_ADD(15, add) \
            STEP_ADD(16, add) STEP_ADD(17, add) STEP_ADD(18, add) STEP_ADD(19, add) \
            STEP_ADD(20, add) STEP_ADD(21, add) STEP_ADD(22, add) STEP_ADD(23, add) \
            STEP_ADD(24, add) STEP_ADD(25, add) STEP_ADD(26, add) STEP_ADD(27, add) \
            STEP_ADD(28, add) STEP_ADD(29, add) STEP_ADD(30, add) STEP_ADD(31, add) \
            (TYPE_DATA, (bit<4>)INTENT_NONE, DM_FIRST, 0, _, _, (bit<4>)P_HI, _): claim; \
            (TYPE_DATA, (bit<4>)INTENT_NONE, DM_FIRST, 0, _, _, (bit<4>)P_NEITHER, _): held; \
        }

    action b_full() {
        bitmap_set.execute(meta.index);
        meta.lane_op = LOP_WRITE;
    }
    action b_or_add() {
        meta.b_pred = bitmap_or_cmp.execute(meta.index);
        meta.lane_op = LOP_ADD;
    }
    action b_flush_add() {
        meta.b_old = bitmap_or.execute(meta.index);
        meta.lane_op = LOP_ADD;
    }
    action b_flush_read() {
        meta.b_old = bitmap_or.execute(meta.index);
        meta.lane_op = LOP_READ;
    }
    action b_peek() {
        meta.b_pred = bitmap_or_cmp.execute(meta.index);
        meta.lane_op = LOP_READ;
    }
    // A PULL's first pass: whether the chunk is complete; the lanes stay
    // out of the packet, which a root relays as it came (U2).
    action b_pull_peek() {
        meta.b_pred = bitmap_or_cmp.execute(meta.index);
    }
    action b_probe() {
        meta.b_old = bitmap_probe.execute(meta.index);
    }
    action b_swap() {
        meta.b_old = bitmap_set.execute(meta.index);
        meta.lane_op = LOP_SWAP;
    }
    action b_claim() {
        bitmap_set.execute(meta.index);
        meta.lane_op = LOP_WRITE;
    }
    table bitmap_step {
        STEP_KEY
        actions = { b_full; b_or_add; b_flush_add; b_flush_read; b_peek; b_pull_peek; b_probe;
                    b_swap; b_claim; NoAction; }
        const default_action = NoAction();
        size = 48;
        STEP_ENTRIES(b_full(), b_flush_add(), b_flush_read(), b_swap(), b_peek(), b_pull_peek(),
                     b_probe(), b_or_add(), b_claim(), NoAction())
    }

    action k_read() {
        meta.k_old = key_read.execute(meta.index);
    }
    action k_swap() {
        meta.k_old = key_swap.execute(meta.index);
    }
    table key_step {
        STEP_KEY
        actions = { k_read; k_swap; NoAction; }
        const default_action = NoAction();
        size = 48;
        STEP_ENTRIES(NoAction(), k_read(), k_read(), k_swap(), k_read(), k_read(), NoAction(),
                     k_read(), k_swap(), k_read())
    }

    action ts_touch() {
        timestamp_touch.execute(meta.index);
    }
    action ts_stale() {
        meta.ts_pred = timestamp_stale.execute(meta.index);
    }
    table timestamp_step {
        STEP_KEY
        actions = { ts_touch; ts_stale; NoAction; }
        const default_action = NoAction();
        size = 48;
        STEP_ENTRIES(NoAction(), NoAction(), NoAction(), ts_touch(), NoAction(), NoAction(),
                     NoAction(), ts_touch(), ts_touch(), ts_stale())
    }

    action m_swap() {
        meta.m_old = meta_swap.execute(meta.index);
    }
    action m_or() {
        meta.m_old = meta_or.execute(meta.index);
    }
    action m_read() {
        meta.m_old = meta_read.execute(meta.index);
    }
    table meta_step {
        STEP_KEY
        actions = { m_swap; m_or; m_read; NoAction; }
        const default_action = NoAction();
        size = 48;
        STEP_ENTRIES(m_swap(), m_read(), m_read(), m_swap(), m_read(), m_read(), NoAction(),
                     m_or(), m_swap(), NoAction())
    }

    // ---- stages 4..11: the lanes ------------------------------------------
#define ESA_TNA_LANE(i) TNA_LANE_DECLARE(i)
#include "lane_list.p4"
#undef ESA_TNA_LANE

    // Where an evicted partial goes: its own job's PS (looked up by the
    // victim's job, read from slot_key in stage 3).
    action set_route(PortId_t ps_port, bit<8> fan_in, bit<16> slot_base, bit<16> slot_mask,
                     bit<2> tree_role, bit<8> uplink_bit) {
        meta.victim_role = tree_role;
        meta.victim_bit = uplink_bit;
        ig_tm_md.ucast_egress_port = ps_port;
        hdr.esa.fan_in = fan_in;
        meta.route_ok = 1;
        meta.route_base = slot_base;
        meta.route_mask = slot_mask;
    }
    action route_gone() {
        // The evicted job was removed meanwhile.
        ig_dprsr_md.drop_ctl = 1;
    }
    table job_route {
        key = { meta.k_old[27:16]: exact @name("victim_job"); }
        actions = { set_route; route_gone; }
        const default_action = route_gone();
        size = ESA_MAX_JOBS;
    }

    // ---- L2 ---------------------------------------------------------------
    action forward(PortId_t port) {
        ig_tm_md.ucast_egress_port = port;
    }
    action flood(MulticastGroupId_t group) {
        ig_tm_md.mcast_grp_a = group;
    }
    action drop() {
        ig_dprsr_md.drop_ctl = 1;
    }
    table l2 {
        key = { hdr.ethernet.dst: exact; }
        actions = { forward; flood; drop; }
        default_action = drop();
        size = 4096;
    }


    // ---- stage 1: admission (docs/protocol.md 4.1), one lookup ----------
    // Every check in its order as the const entries' priority: not ESA,
    // malformed (parser error, checksum, lengths, version, type), unknown
    // job, bad port, a sender the port may not speak for (sender_ok: DATA,
    // PROBE, RESULT), switch-only type, bad slot, bad worker (the bitmap of
    // a DATA or PROBE; the range check is decide's). (A chain of if/else
    // gateways cost a stage per link.)
    action a_not_esa() {
        meta.verdict = VERDICT_L2;
        meta.count_global = 1;
        meta.global_idx = (bit<2>)GLOBAL_NOT_ESA;
    }
    action a_malformed() {
        meta.verdict = VERDICT_DROP;
        meta.count_global = 1;
        meta.global_idx = (bit<2>)GLOBAL_MALFORMED;
        ig_dprsr_md.drop_ctl = 1;
    }
    action a_unknown_job() {
        meta.verdict = VERDICT_DROP;
        meta.count_global = 1;
        meta.global_idx = (bit<2>)GLOBAL_UNKNOWN_JOB;
        ig_dprsr_md.drop_ctl = 1;
    }
    action a_job_drop(bit<3> reason) {
        meta.verdict = VERDICT_DROP;
        meta.job_drop = 1;
        meta.drop_reason = reason;
        ig_dprsr_md.drop_ctl = 1;
    }
    action a_admit(bit<1> count_rx) {
        meta.verdict = VERDICT_AGGREGATE;
        meta.count_rx = count_rx;
    }
#define WELL_FORMED true, 0, 1, ESA_IPV4_TOTAL_LEN, 1, ESA_VERSION
#define ADMIT_TYPE(t)                                                           \
            (WELL_FORMED, t, 0, _, _, _, _, _, _, _, _): a_unknown_job();           \
            (WELL_FORMED, t, _, 0, _, _, _, _, _, _, _): a_unknown_job();           \
            (WELL_FORMED, t, _, _, 0, _, _, _, _, _, _): a_job_drop(DROP_BAD_PORT);
#define ADMIT_SLOT(t)                                                           \
            (WELL_FORMED, t, _, _, _, _, 0, _, _, _, _): a_job_drop(DROP_BAD_SLOT);
    table admission {
        key = {
            hdr.esa.isValid(): exact @name("esa_valid");
            ig_prsr_md.parser_err: ternary;
            meta.checksum_ok: ternary;
            hdr.ipv4.total_len: ternary;
            meta.udp_length_ok: ternary;
            hdr.esa.version: ternary;
            hdr.esa.packet_type: ternary;
            hdr.esa.job: ternary;
            meta.job_hit: ternary;
            meta.port_ok: ternary;
            meta.sender_ok: ternary;
            meta.slot_ok: ternary;
            meta.data_mode: ternary;
            meta.job.tree_role: ternary;
            meta.from_ps: ternary;
            hdr.esa.flags: ternary @name("flags");
        }
        actions = { a_not_esa; a_malformed; a_unknown_job; a_job_drop; a_admit; }
        const default_action = a_malformed();
        size = 64;
        const entries = {
            (false, 0, _, _, _, _, _, _, _, _, _, _, _, _, _, _): a_not_esa();
            (false, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): a_malformed();
            ADMIT_TYPE(TYPE_DATA)
            ADMIT_TYPE(TYPE_RESULT)
            ADMIT_TYPE(TYPE_FALLBACK)
            ADMIT_TYPE(TYPE_EVICTED)
            ADMIT_TYPE(TYPE_FLUSH)
            ADMIT_TYPE(TYPE_QUERY)
            ADMIT_TYPE(TYPE_PROBE)
            ADMIT_TYPE(TYPE_PENDING)
            ADMIT_TYPE(TYPE_MISSING)
            ADMIT_TYPE(TYPE_PULL)
            // A root's RESULT from a child port is admitted by port; so are
            // its leaves' parts (U1). A root's job entry matched, so the
            // slot is in range. (docs/protocol.md 9.3)
            (WELL_FORMED, TYPE_RESULT, _, _, _, 0, _, _, TREE_ROOT, 0, _): a_job_drop(DROP_SPOOFED);
            (WELL_FORMED, TYPE_RESULT, _, _, _, _, _, _, TREE_ROOT, _, _): a_admit(0);
            (WELL_FORMED, TYPE_FALLBACK, _, _, _, _, _, _, TREE_ROOT, 0, _): a_job_drop(DROP_BAD_TYPE);
            (WELL_FORMED, TYPE_FALLBACK, _, _, _, _, _, _, TREE_ROOT, _, _): a_admit(0);
            (WELL_FORMED, TYPE_EVICTED, _, _, _, _, _, _, TREE_ROOT, 0, _): a_job_drop(DROP_BAD_TYPE);
            (WELL_FORMED, TYPE_EVICTED, _, _, _, _, _, _, TREE_ROOT, _, _): a_admit(0);
            (WELL_FORMED, TYPE_FLUSH, _, _, _, _, _, _, TREE_ROOT, 0, _): a_job_drop(DROP_BAD_TYPE);
            (WELL_FORMED, TYPE_FLUSH, _, _, _, _, _, _, TREE_ROOT, _, _): a_admit(0);
            // A leaf's RESULT from its uplink (its ps_port, docs/protocol.md
            // 9.1) is admitted by port too (R1').
            (WELL_FORMED, TYPE_RESULT, _, _, _, _, _, _, TREE_LEAF, 0, _): a_admit(0);
            (WELL_FORMED, TYPE_DATA, _, _, _, 0, _, _, _, _, _): a_job_drop(DROP_SPOOFED);
            (WELL_FORMED, TYPE_PROBE, _, _, _, 0, _, _, _, _, _): a_job_drop(DROP_SPOOFED);
            (WELL_FORMED, TYPE_RESULT, _, _, _, 0, _, _, _, _, _): a_job_drop(DROP_SPOOFED);
            (WELL_FORMED, TYPE_FALLBACK, _, _, _, _, _, _, _, _, _): a_job_drop(DROP_BAD_TYPE);
            (WELL_FORMED, TYPE_EVICTED, _, _, _, _, _, _, _, _, _): a_job_drop(DROP_BAD_TYPE);
            (WELL_FORMED, TYPE_FLUSH, _, _, _, _, _, _, _, _, _): a_job_drop(DROP_BAD_TYPE);
            ADMIT_SLOT(TYPE_DATA)
            ADMIT_SLOT(TYPE_RESULT)
            ADMIT_SLOT(TYPE_QUERY)
            ADMIT_SLOT(TYPE_PROBE)
            ADMIT_SLOT(TYPE_PENDING)
            ADMIT_SLOT(TYPE_MISSING)
            ADMIT_SLOT(TYPE_PULL)
            (WELL_FORMED, TYPE_DATA, _, _, _, _, _, DM_NONE, _, _, _): a_job_drop(DROP_BAD_WORKER);
            // A root's leaves forward probes that name the rack in worker
            // and the worker in bitmap (U1): not checked against fan_in.
            (WELL_FORMED, TYPE_PROBE, _, _, _, _, _, DM_NONE, TREE_ROOT, 0, _):
                a_job_drop(DROP_BAD_WORKER);
            (WELL_FORMED, TYPE_PROBE, _, _, _, _, _, _, TREE_ROOT, _, _): a_admit(0);
            (WELL_FORMED, TYPE_PROBE, _, _, _, _, _, DM_NONE, _, _, _): a_job_drop(DROP_BAD_WORKER);
            // A worker's DATA at a root, a rack's partial (UPPER) elsewhere.
            (WELL_FORMED, TYPE_DATA, _, _, _, _, _, _, TREE_ROOT, _, 0 &&& FLAG_UPPER):
                a_job_drop(DROP_BAD_WORKER);
            (WELL_FORMED, TYPE_DATA, _, _, _, _, _, _, 0 &&& TREE_ROOT, _, FLAG_UPPER &&& FLAG_UPPER):
                a_job_drop(DROP_BAD_WORKER);
            // data_rx counts a DATA in its first pass only.
            (WELL_FORMED, TYPE_DATA, _, _, _, _, _, DM_PASS2, _, _, _): a_admit(0);
            (WELL_FORMED, TYPE_DATA, _, _, _, _, _, _, _, _, _): a_admit(1);
            (WELL_FORMED, TYPE_RESULT, _, _, _, _, _, _, _, _, _): a_admit(0);
            (WELL_FORMED, TYPE_QUERY, _, _, _, _, _, _, _, _, _): a_admit(0);
            (WELL_FORMED, TYPE_PROBE, _, _, _, _, _, _, _, _, _): a_admit(0);
            (WELL_FORMED, TYPE_PENDING, _, _, _, _, _, _, _, _, _): a_admit(0);
            (WELL_FORMED, TYPE_MISSING, _, _, _, _, _, _, _, _, _): a_admit(0);
            (WELL_FORMED, TYPE_PULL, _, _, _, _, _, _, _, _, _): a_admit(0);
        }
    }

    action set_higher(bit<1> higher) {
        meta.higher = higher;
    }
    // higher = packet priority > the slot's, by lookup.
    table priority_order {
        key = {
            hdr.esa.priority: exact;
            meta.k_old[31:28]: exact @name("slot_priority");
        }
        actions = { set_higher; }
        const default_action = set_higher(0);
        size = 256;
        const entries = {
            BYTES16(HIGHER_ENTRY, 0)
            BYTES16(HIGHER_ENTRY, 1)
            BYTES16(HIGHER_ENTRY, 2)
            BYTES16(HIGHER_ENTRY, 3)
            BYTES16(HIGHER_ENTRY, 4)
            BYTES16(HIGHER_ENTRY, 5)
            BYTES16(HIGHER_ENTRY, 6)
            BYTES16(HIGHER_ENTRY, 7)
            BYTES16(HIGHER_ENTRY, 8)
            BYTES16(HIGHER_ENTRY, 9)
            BYTES16(HIGHER_ENTRY, 10)
            BYTES16(HIGHER_ENTRY, 11)
            BYTES16(HIGHER_ENTRY, 12)
            BYTES16(HIGHER_ENTRY, 13)
            BYTES16(HIGHER_ENTRY, 14)
            BYTES16(HIGHER_ENTRY, 15)
        }
    }

    // ---- after stage 3: the row, and the packet that leaves -------------
    // The row counted (job_rows_N's index is job ++ row[1:0], N = row[3:2];
    // ROW_NONE is 16).
#define SET_ROW(r)                                                              \
        meta.row = r;                                                           \
        meta.row_idx[1:0] = (r)[1:0];
    action d_relay(bit<5> row) {
        // R1, R2, Q1, A1: to the group, but egress drops the copy for the
        // port the packet came in on.
        ig_tm_md.mcast_grp_a = meta.job.mcast_group;
        meta.bridge.prune = 1;
        SET_ROW(row)
    }
    action d_pending() {
        // P1: the contribution waits in the slot; the prober is told so.
        hdr.esa.packet_type = TYPE_PENDING;
        ig_tm_md.ucast_egress_port = ig_intr_md.ingress_port;
        meta.rack_mark = 1;
        SET_ROW(ROW_PROBES_ANSWERED)
    }
    action d_probe_to_ps(bit<8> held) {
        // P2: only the PS can tell; the PROBE goes on with `held` added to
        // its flags (FLAG_HELD for a repeated probe of a contribution the
        // slot holds, else 0).
        hdr.esa.flags = hdr.esa.flags | held;
        ig_tm_md.ucast_egress_port = meta.job.ps_port;
        meta.rack_mark = 1;
        SET_ROW(ROW_PROBES_FORWARDED)
    }
    action d_bad_worker() {
        // worker >= fan_in: dropped; the tombstone was only read.
        meta.verdict = VERDICT_DROP;
        meta.job_drop = 1;
        meta.drop_reason = DROP_BAD_WORKER;
        ig_dprsr_md.drop_ctl = 1;
    }
    action d_fallback() {
        // D7, D8, D0 to the PS (and a pass-2 FLUSH whose chunk left the
        // slot meanwhile).
        hdr.esa.packet_type = TYPE_FALLBACK;
        hdr.esa.fan_in = meta.job.fan_in;
        ig_tm_md.ucast_egress_port = meta.job.ps_port;
        meta.rack_mark = 1;
        SET_ROW(ROW_FALLBACKS)
    }
    action d_collision() {
        // D12
        hdr.esa.packet_type = TYPE_FALLBACK;
        hdr.esa.flags = hdr.esa.flags | FLAG_COLLISION;
        hdr.esa.fan_in = meta.job.fan_in;
        ig_tm_md.ucast_egress_port = meta.job.ps_port;
        meta.rack_mark = 1;
        SET_ROW(ROW_FALLBACKS)
    }
    action d_absorb(bit<5> row) {
        // D3, D4, D6, D9, L2
        ig_dprsr_md.drop_ctl = 1;
        SET_ROW(row)
    }
    action d_flush(bit<5> row) {
        // Pass 2 of D2 (the partial, plus the packet's value if new), of
        // atp's D5 (the complete sum) and of L1 (the partial).
        hdr.esa.packet_type = TYPE_FLUSH;
        hdr.esa.flags = meta.m_lvl | meta.resub.flags[7:0];
        hdr.esa.priority = meta.k_old[31:28];
        hdr.esa.bitmap = meta.b_old | meta.wbit;
        hdr.esa.fan_in = meta.job.fan_in;
        hdr.esa.exponent = meta.m_old[15:8];
        meta.bridge.recount = 1;
        ig_tm_md.ucast_egress_port = meta.job.ps_port;
        meta.rack_mark = 1;
        SET_ROW(row)
    }
    // D1 (complete: the slot's or the packet's OVERFLOW) and D5 (re-emit:
    // the slot's): a RESULT built from the slot, to the group or (D1 in
    // atp) the PS.
#define RESULT_FROM_SLOT(flags_value)                                           \
        hdr.esa.packet_type = TYPE_RESULT;                                      \
        hdr.esa.flags = flags_value;                                            \
        hdr.esa.priority = meta.k_old[31:28];                                   \
        hdr.esa.bitmap = meta.full;                                             \
        hdr.esa.fan_in = meta.job.fan_in;                                       \
        hdr.esa.exponent = meta.m_old[15:8];                                    \
        meta.bridge.recount = 1;
    action d_complete(bit<1> to_ps, bit<1> to_group) {
        RESULT_FROM_SLOT(meta.m_lvl | meta.m_ovf)
        SET_ROW(ROW_COMPLETED)
        meta.to_ps = to_ps;
        meta.to_group = to_group;
    }
    action d_reemit() {
        RESULT_FROM_SLOT(meta.m_lvl)
        SET_ROW(ROW_REEMITTED)
        meta.to_group = 1;
    }
    // A leaf's (docs/protocol.md 9.3). D5'': a resend finds the result
    // that came down (R1 released the slot): re-emitted with the root's
    // header, to the rack's group but the uplink.
    action d_reemit_down() {
        RESULT_FROM_SLOT(meta.m_old[7:0])
        meta.tree_out = TREE_OUT_DOWN;
        hdr.esa.fan_in = meta.job.racks;
        meta.bridge.prune = 1;
        meta.bridge.ingress_port = meta.job.uplink_port;
        SET_ROW(ROW_REEMITTED)
        meta.to_group = 1;
    }
    // A rack's partial on its way up: DATA from the rack's bit at the root
    // (uplink_info sets the bitmap; UPPER joins the flags after decide).
#define PARTIAL_UP(flags_value)                                                 \
        hdr.esa.flags = flags_value;                                            \
        meta.tree_out = TREE_OUT_UP;                                            \
        hdr.esa.count = 1;                                                      \
        hdr.esa.fan_in = meta.job.racks;                                        \
        hdr.esa.worker = meta.job.uplink_bit;                                   \
        ig_tm_md.ucast_egress_port = meta.job.uplink_port;                      \
        SET_ROW(ROW_COMPLETED)
    // D1': the last contribution completes the rack's sum, which goes up;
    // the slot holds it (HELD, from fan_in_info) until the result comes
    // down (R1).
    action d_send_up_partial() {
        PARTIAL_UP(meta.m_lvl | meta.m_ovf)
        hdr.esa.priority = meta.k_old[31:28];
        hdr.esa.exponent = meta.m_old[15:8];
    }
    // D0: a rack of one worker: its first copy is the rack's partial.
    action d_send_up_packet() {
        PARTIAL_UP(meta.m_ovf)
    }
    // D10 / D11 (pass 2): the packet carries the victim's partial.
#define EVICTED_FROM_SLOT(flags_value)                                          \
        hdr.esa.packet_type = TYPE_EVICTED;                                     \
        hdr.esa.flags = flags_value;                                            \
        hdr.esa.priority = meta.k_old[31:28];                                   \
        hdr.esa.job = meta.k_old[27:16];                                        \
        hdr.esa.seq = meta.k_old[15:0];                                         \
        hdr.esa.bitmap = meta.b_old;                                            \
        hdr.esa.exponent = meta.m_old[15:8];                                    \
        meta.bridge.recount = 1;                                                \
        meta.evict_route = 1;                                                   \
        evictions_suffered.count(meta.k_old[27:16]);
    action d_preempt() {
        EVICTED_FROM_SLOT(meta.m_old[7:0])
        SET_ROW(ROW_PREEMPTIONS)
    }
    action d_stale_reclaim() {
        EVICTED_FROM_SLOT(meta.m_old[7:0] | FLAG_STALE)
        SET_ROW(ROW_STALE_RECLAIMS)
    }
    action d_resubmit(bit<8> intent) {
        // D10, D11: finish in a second pass; the victim's chunk is what
        // the second pass tombstones.
        meta.resub.setValid();
        meta.resub.intent = intent;
        meta.resub.is_new = 7w0 ++ meta.w_new;
        meta.resub.flags = 0;
        meta.resub.victim = meta.k_old & 0x0fffffff;
        ig_dprsr_md.resubmit_type = 1;
    }
    action d_resubmit_flush() {
        // D2: the flush happens in a second pass; the own chunk is
        // tombstoned (but in atp); the FLUSH keeps the packet's RESEND and
        // OVERFLOW.
        meta.resub.setValid();
        meta.resub.intent = INTENT_FLUSH;
        meta.resub.is_new = 7w0 ++ meta.w_new;
        meta.resub.flags = 8w0 ++ meta.m_rovf;
        meta.resub.victim = meta.chunk;
        ig_dprsr_md.resubmit_type = 1;
    }
    action d_resubmit_slot_flush(bit<16> flags) {
        // L1, and D5 in atp (ATP's switch frees the slot on a resend of its
        // chunk): what the slot holds, without the packet's values, goes to
        // the PS in a second pass, with the slot's OVERFLOW and these flags.
        meta.resub.setValid();
        meta.resub.intent = INTENT_FLUSH;
        meta.resub.is_new = 0;
        meta.resub.flags = flags;
        meta.resub.victim = meta.chunk;
        ig_dprsr_md.resubmit_type = 1;
    }
    // U1 (docs/protocol.md 9.3): a root relays its leaves' parts and probes
    // to the PS; they name the rack, which the PS reads. A probe whose
    // rack's partial waits in the slot gains `held` (FLAG_HELD).
    action d_parts_relay(bit<8> held) {
        hdr.esa.flags = hdr.esa.flags | held;
        ig_tm_md.ucast_egress_port = meta.job.ps_port;
        meta.tree_row = 1;
        meta.tree_idx = meta.job_id ++ 1w0;
    }
    // U2: the PS's pull for the leaves' slots, relayed down.
    action d_relay_pull() {
        ig_tm_md.mcast_grp_a = meta.job.mcast_group;
        meta.bridge.prune = 1;
        meta.tree_row = 1;
        meta.tree_idx = meta.job_id ++ 1w1;
    }
    // D1 at a root that lacks a falling-back rack (9.6): the sum goes to the
    // PS as a part over the job's racks.
    action d_complete_short() {
        RESULT_FROM_SLOT(meta.m_lvl | meta.m_ovf)
        hdr.esa.packet_type = TYPE_FALLBACK;
        hdr.esa.fan_in = meta.job.racks;
        SET_ROW(ROW_COMPLETED)
        meta.to_ps = 1;
    }
// from_ps != 0 as ternary entries: one per bit that can be set. A probe
// whose chunk aggregates in the slot (o_pred) with its rack's bit
// (bit_held: rack_bit gave bitmap_probe the rack's bit) is marked HELD.
#define U1_ENTRY(t, b, o_pred, bit_held, held)                                  \
            (t, _, _, _, _, _, o_pred, _, _, _, _, bit_held, _, TREE_ROOT, (9w1 << b) &&& (9w1 << b), _, _, _, _): \
                d_parts_relay(held);
#define U1_ENTRIES(t, o_pred, bit_held, held)                                   \
            U1_ENTRY(t, 0, o_pred, bit_held, held)                              \
            U1_ENTRY(t, 1, o_pred, bit_held, held)                              \
            U1_ENTRY(t, 2, o_pred, bit_held, held)                              \
            U1_ENTRY(t, 3, o_pred, bit_held, held)                              \
            U1_ENTRY(t, 4, o_pred, bit_held, held)                              \
            U1_ENTRY(t, 5, o_pred, bit_held, held)                              \
            U1_ENTRY(t, 6, o_pred, bit_held, held)                              \
            U1_ENTRY(t, 7, o_pred, bit_held, held)                              \
            U1_ENTRY(t, 8, o_pred, bit_held, held)
    table decide {
        key = {
            hdr.esa.packet_type: ternary;
            meta.resub.intent: ternary;
            meta.data_mode: ternary;
            meta.worker_diff[7:7]: ternary @name("worker_in_range");
            meta.t_hit: ternary;
            meta.w_new: ternary;
            meta.o_pred: ternary;
            meta.b_pred: ternary;
            meta.ts_pred: ternary;
            meta.higher: ternary;
            meta.job.mode: ternary;
            meta.bit_held: ternary;
            hdr.esa.flags[0:0]: ternary @name("resend");
            meta.job.tree_role: ternary;
            meta.from_ps: ternary;
            hdr.esa.flags: ternary @name("flags");
            meta.racks_diff[7:7]: ternary @name("racks_short");
            meta.bypass: ternary;
            meta.held_done: ternary;
        }
        actions = {
            d_send_up_packet; d_send_up_partial; d_reemit_down;
            d_parts_relay; d_relay_pull; d_complete_short;
            d_relay; d_pending; d_probe_to_ps; d_bad_worker; d_fallback; d_collision; d_absorb;
            d_flush; d_complete; d_reemit; d_preempt; d_stale_reclaim; d_resubmit;
            d_resubmit_flush; d_resubmit_slot_flush; NoAction;
        }
        const default_action = NoAction();
        size = 128;
        const entries = {
            // type, intent, data_mode, in range, t_hit, w_new, o_pred, b_pred,
            // ts_pred, higher, mode, bit_held, resend, tree_role, from_ps,
            // flags, racks_short, bypass, held_done
            // U1: a part or probe from a root's child port (from_ps != 0).
            U1_ENTRIES(TYPE_FALLBACK, _, _, 0)
            U1_ENTRIES(TYPE_EVICTED, _, _, 0)
            U1_ENTRIES(TYPE_FLUSH, _, _, 0)
            U1_ENTRIES(TYPE_PROBE, P_LO, 1, FLAG_HELD)
            U1_ENTRIES(TYPE_PROBE, _, _, 0)
            // U2: the PS's pull for the leaves' slots; a pull for a root's
            // slot (UPPER) elsewhere is not for this level (L2)
            (TYPE_PULL, _, _, _, _, _, _, _, _, _, _, _, _, TREE_ROOT, _, 0 &&& FLAG_UPPER, _, _, _):
                d_relay_pull();
            (TYPE_PULL, _, _, _, _, _, _, _, _, _, _, _, _, 0 &&& TREE_ROOT, _, FLAG_UPPER &&& FLAG_UPPER, _, _, _):
                d_absorb(ROW_PULLS_IGNORED);
            (TYPE_QUERY, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): d_relay(ROW_QUERIES_RELAYED);
            (TYPE_RESULT, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): d_relay(ROW_RESULTS_RELAYED);
            (TYPE_PENDING, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): d_relay(ROW_ANSWERS_RELAYED);
            (TYPE_MISSING, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): d_relay(ROW_ANSWERS_RELAYED);
            // a PROBE: P1 if the chunk in the slot holds the worker's bit and
            // the probe is not repeated (RESEND); else P2, HELD if only the
            // RESEND kept it from P1
            (TYPE_PROBE, _, _, 0, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): d_bad_worker();
            (TYPE_PROBE, _, _, _, _, _, P_LO, _, _, _, _, 1, 0, _, _, _, _, _, _): d_pending();
            (TYPE_PROBE, _, _, _, _, _, P_LO, _, _, _, _, 1, _, _, _, _, _, _, _): d_probe_to_ps(FLAG_HELD);
            // P2': a leaf's complete chunk held since its partial went up
            (TYPE_PROBE, _, _, _, _, _, P_LO, _, _, _, _, _, _, TREE_LEAF, _, _, _, _, 1):
                d_probe_to_ps(FLAG_HELD);
            (TYPE_PROBE, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): d_probe_to_ps(0);
            // a PULL: L1 in two passes if the chunk in the slot is not complete
            (TYPE_PULL, INTENT_FLUSH, _, _, _, _, P_LO, _, _, _, _, _, _, _, _, _, _, _, _): d_flush(ROW_PULLED);
            (TYPE_PULL, INTENT_FLUSH, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): d_absorb(ROW_PULLS_IGNORED);
            // L1': a leaf also gives up the partial it sent up and holds
            (TYPE_PULL, _, _, _, _, _, P_LO, P_LO, _, _, _, _, _, TREE_LEAF, _, _, _, _, 1):
                d_resubmit_slot_flush(0);
            (TYPE_PULL, _, _, _, _, _, P_LO, P_LO, _, _, _, _, _, _, _, _, _, _, _): d_absorb(ROW_PULLS_IGNORED);
            (TYPE_PULL, _, _, _, _, _, P_LO, _, _, _, _, _, _, _, _, _, _, _, _): d_resubmit_slot_flush(0);
            (TYPE_PULL, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): d_absorb(ROW_PULLS_IGNORED);
            (TYPE_DATA, _, _, 0, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): d_bad_worker();
            // D0 (docs/protocol.md 9.3, 9.6): the slot is not touched; a
            // rack of one worker sends its first copy up, its resends (D8)
            // and a level without memory every DATA to the PS
            (TYPE_DATA, _, DM_FIRST, _, _, _, _, _, _, _, _, _, _, _, _, _, _, BYPASS_UP, _):
                d_send_up_packet();
            (TYPE_DATA, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, BYPASS_UP, _): d_fallback();
            (TYPE_DATA, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, BYPASS_PS, _): d_fallback();
            // pass 2
            (TYPE_DATA, INTENT_FLUSH, _, _, _, _, P_LO, _, _, _, _, _, _, _, _, _, _, _, _): d_flush(ROW_FLUSHED);
            (TYPE_DATA, INTENT_FLUSH, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): d_fallback();
            (TYPE_DATA, INTENT_STALE, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): d_stale_reclaim();
            (TYPE_DATA, INTENT_EVICT, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): d_preempt();
            // pass 1, resends: at a leaf D5' (the held partial to the PS, in
            // two passes) and D5'' (the result that came down, re-emitted);
            // D5 (atp: a FLUSH of the complete sum), D2, D8
            (TYPE_DATA, _, DM_RESEND, _, _, _, P_LO, P_LO, _, _, _, _, _, TREE_LEAF, _, _, _, _, 1):
                d_resubmit_slot_flush(8w0 ++ FLAG_RESEND);
            (TYPE_DATA, _, DM_RESEND, _, _, _, P_LO, P_LO, _, _, _, _, _, TREE_LEAF, _, _, _, _, _):
                d_reemit_down();
            (TYPE_DATA, _, DM_RESEND, _, _, _, P_LO, P_LO, _, _, MODE_ATP, _, _, _, _, _, _, _, _):
                d_resubmit_slot_flush(8w0 ++ FLAG_RESEND);
            (TYPE_DATA, _, DM_RESEND, _, _, _, P_LO, P_LO, _, _, _, _, _, _, _, _, _, _, _): d_reemit();
            (TYPE_DATA, _, DM_RESEND, _, _, _, P_LO, _, _, _, _, _, _, _, _, _, _, _, _): d_resubmit_flush();
            (TYPE_DATA, _, DM_RESEND, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _, _): d_fallback();
            // pass 1, first copies
            (TYPE_DATA, _, DM_FIRST, _, 1, _, _, _, _, _, _, _, _, _, _, _, _, _, _): d_fallback();
            (TYPE_DATA, _, DM_FIRST, _, _, _, P_BOTH, _, _, _, _, _, _, _, _, _, _, _, _): d_absorb(ROW_DUPLICATES);
            (TYPE_DATA, _, DM_FIRST, _, _, 0, P_LO, _, _, _, _, _, _, _, _, _, _, _, _): d_absorb(ROW_DUPLICATES);
            // D1': a leaf's rack complete: its partial goes up, held
            (TYPE_DATA, _, DM_FIRST, _, _, _, P_LO, P_LO, _, _, _, _, _, TREE_LEAF, _, _, _, _, _):
                d_send_up_partial();
            // a root whose racks are not all in its fan-in: the sum to the
            // PS, which adds the racks that fall back (docs/protocol.md 9.6)
            (TYPE_DATA, _, DM_FIRST, _, _, _, P_LO, P_LO, _, _, _, _, _, TREE_ROOT, _, _, 1, _, _):
                d_complete_short();
            (TYPE_DATA, _, DM_FIRST, _, _, _, P_LO, P_LO, _, _, MODE_ATP, _, _, _, _, _, _, _, _):
                d_complete(1, 0);
            (TYPE_DATA, _, DM_FIRST, _, _, _, P_LO, P_LO, _, _, _, _, _, _, _, _, _, _, _):
                d_complete(0, 1);
            (TYPE_DATA, _, DM_FIRST, _, _, _, P_LO, _, _, _, _, _, _, _, _, _, _, _, _): d_absorb(ROW_AGGREGATED);
            (TYPE_DATA, _, DM_FIRST, _, _, _, P_HI, _, _, _, _, _, _, _, _, _, _, _, _): d_absorb(ROW_CLAIMED);
            // stale reclaim (D10) is not atp's
            (TYPE_DATA, _, DM_FIRST, _, _, _, P_NEITHER, _, P_LO, _, MODE_ESA, _, _, _, _, _, _, _, _):
                d_resubmit(INTENT_STALE);
            (TYPE_DATA, _, DM_FIRST, _, _, _, P_NEITHER, _, P_LO, _, MODE_SWITCHML, _, _, _, _, _, _, _, _):
                d_resubmit(INTENT_STALE);
            (TYPE_DATA, _, DM_FIRST, _, _, _, P_NEITHER, _, _, 1, MODE_ESA, _, _, _, _, _, _, _, _):
                d_resubmit(INTENT_EVICT);
            (TYPE_DATA, _, DM_FIRST, _, _, _, P_NEITHER, _, _, _, _, _, _, _, _, _, _, _, _): d_collision();
        }
    }

    // A root's two tree rows (stage 7, beside the lanes).
    action count_tree_row() {
        tree_rows.count(meta.tree_idx);
    }
    table tree_row_counter {
        key = { meta.tree_row: exact; }
        actions = { count_tree_row; @defaultonly NoAction; }
        const default_action = NoAction();
        size = 2;
        const entries = {
            1: count_tree_row();
        }
    }

    // The drop counters: reasons 0-3 in job_drops, DROP_SPOOFED (4) in
    // job_spoofed. Two tables: bf-p4c wants every action of a table that
    // counts in an indirect counter to count in it ("all indirect externs
    // ... addressed with the same expression across all actions").
    action count_drop() {
        job_drops.count(meta.job_id ++ meta.drop_reason[1:0]);
    }
    table drop_counter {
        key = { meta.job_drop: exact; meta.drop_reason: exact; }
        actions = { count_drop; @defaultonly NoAction; }
        const default_action = NoAction();
        size = 4;
        const entries = {
            (1, DROP_BAD_PORT): count_drop();
            (1, DROP_BAD_TYPE): count_drop();
            (1, DROP_BAD_SLOT): count_drop();
            (1, DROP_BAD_WORKER): count_drop();
        }
    }
    action count_spoofed() {
        job_spoofed.count(meta.job_id);
    }
    table spoof_counter {
        key = { meta.job_drop: exact; meta.drop_reason: exact; }
        actions = { count_spoofed; @defaultonly NoAction; }
        const default_action = NoAction();
        size = 1;
        const entries = {
            (1, DROP_SPOOFED): count_spoofed();
        }
    }

    // The row counters, one per array, each pinned beside the lanes of a
    // stage of its own (8-11): left to itself the compiler put two in one
    // stage and pushed a lane to a 13th. Generated, as rows.p4 is, from
    // esa_p4::counters (TNA_ROWS by TNA_ROW_ARRAYS).
#include "row_counters.p4"

    apply {
        // ---- stage 0: the lookups -------------------------------------
        if (hdr.esa.isValid()) {
            meta.bridge.esa = 1;
            meta.bridge.prune = 0;  // but for relayed packets (d_relay)
            meta.job_id = hdr.esa.job;  // EVICTED rewrites hdr.esa.job
            meta.row_idx = hdr.esa.job ++ 2w0;  // the row fills the low bits
            meta.now = ig_prsr_md.global_tstamp[47:16];
            // The low byte of slot_meta holds only FLAG_OVERFLOW (==
            // SLOT_OVERFLOW), so it ORs straight into outgoing flags.
            meta.m_ovf = hdr.esa.flags & FLAG_OVERFLOW;
            meta.m_rovf = hdr.esa.flags & (FLAG_RESEND | FLAG_OVERFLOW);
            meta.m_new = hdr.esa.exponent ++ (hdr.esa.flags & FLAG_OVERFLOW);
            if (hdr.esa.packet_type == TYPE_RESULT) {
                meta.resub.intent = INTENT_RESULT;
            }
            job_ids.apply();
            jobs.apply();
            job_ports.apply();
            if (hdr.esa.packet_type == TYPE_DATA || hdr.esa.packet_type == TYPE_PROBE
                    || hdr.esa.packet_type == TYPE_RESULT) {
                worker_ports.apply();
            }
            data_check.apply();
            pool_config.apply();
        }

        // ---- stage 1: admission; the tombstone for a DATA
        // (or a PULL's second pass) that passed every check stage 0 can
        // decide ----------------------------------------------------------
        admission.apply();
        if (meta.slot_ok == 1) {
            // DATA and RESULT need the full bitmap (R1 writes it).
            fan_in_info.apply();
            level_info.apply();
            meta.racks_diff = meta.job.fan_in - meta.job.racks;
        }
        if (meta.slot_ok == 1 && meta.port_ok == 1 && meta.data_mode != DM_NONE) {
            // worker - fan_in: negative (bit 7) when the worker is in
            // range (data_check only matched workers 0..31).
            meta.worker_diff = hdr.esa.worker - meta.job.fan_in;
        }
        if (meta.slot_ok == 1 && meta.port_ok == 1 && meta.data_mode[1:0] != 0) {
            // A DATA's; a PROBE leaves with the priority it came with.
            priority_clamp.apply();
        }
        if (meta.slot_ok == 1 && meta.port_ok == 1 && meta.sender_ok == 1) {
            // ACCESS slot_tombstone: this table's single apply.
            tombstone_step.apply();
        }
        meta.expire = meta.now + meta.stale_after;
        if (meta.resub.intent == INTENT_FLUSH && meta.resub.is_new == 0) {
            // D2's second pass for a worker whose bit was no longer
            // pending in pass 1: its contribution is not added, nor its bit.
            meta.wbit = 0;
        } else if (meta.job.tree_role == TREE_ROOT && hdr.esa.packet_type == TYPE_PROBE
                && meta.from_ps != 0) {
            // (one chain with the above: each write of wbit a stage apart
            // pushed the bitmap's step, and the lanes, a stage down)
            rack_bit.apply();
        }

        // ---- stage 2: the owner -----------------------------------------
        // The key: the priority (clamped in stage 1) ++ job ++ seq, the
        // header's own 32 bits.
        meta.key = hdr.esa.priority ++ hdr.esa.job ++ hdr.esa.seq;
        if (hdr.esa.packet_type == TYPE_RESULT) {
            meta.wbit = meta.full;   // R1 sets the bitmap to full
        } else if (hdr.esa.packet_type == TYPE_PROBE) {
            meta.bcmp = meta.full;   // complete?
        } else {
            // Does this worker complete it? (A resend's first pass and a
            // PULL's have wbit 0: is it complete?)
            meta.bcmp = meta.full ^ meta.wbit;
        }
        if (meta.verdict == VERDICT_L2) {
            l2.apply();
        }
        // ACCESS slot_owner, slot_owner_copy: these tables' single applies.
        owner_step.apply();
        owner_copy_step.apply();

        // ---- stage 3: bitmap, key, timestamp, meta; the lane op ---------
        w_new_calc.apply();
        if (meta.verdict == VERDICT_AGGREGATE && meta.worker_diff[7:7] == 1) {
            bitmap_step.apply();
            key_step.apply();
            timestamp_step.apply();
            meta_step.apply();
        }

        // ---- stages 4..11: the lanes ------------------------------------
#define ESA_TNA_LANE(i) TNA_LANE_APPLY(i)
#include "lane_list.p4"
#undef ESA_TNA_LANE

        // ---- beside the lanes: what the row needs, one operation per
        // field per step (Tofino actions are single-stage) ----------------
        if (meta.verdict == VERDICT_AGGREGATE) {
            // What a root builds from a slot carries UPPER (9.2).
            meta.m_lvl = meta.m_old[7:0] | meta.level;
        }
        if (meta.verdict == VERDICT_AGGREGATE) {
            priority_order.apply();
        }
        if (meta.b_old != 0) {
            // (only a PROBE's decide entries read it: bitmap_probe's answer)
            meta.bit_held = 1;
        }
        if (meta.p_old == HELD) {
            // A complete chunk still held: at a leaf, its partial went up
            // and the result has not come down (P2', D5', L1').
            meta.held_done = 1;
        }
        if (meta.verdict == VERDICT_AGGREGATE) {
            decide.apply();
        }
        // Where a RESULT built from the slot goes.
        if (meta.to_ps == 1) {
            ig_tm_md.ucast_egress_port = meta.job.ps_port;
        } else if (meta.to_group == 1) {
            ig_tm_md.mcast_grp_a = meta.job.mcast_group;
        }
        // What a leaf sends the PS, and its PENDING, name its rack
        // (docs/protocol.md 9.2; the worker is the packet's bitmap).
        if (meta.rack_mark == 1 && meta.job.tree_role == TREE_LEAF) {
            hdr.esa.worker = meta.job.uplink_bit;
        }
        if (meta.tree_out == TREE_OUT_UP) {
            uplink_info.apply();
        } else if (meta.tree_out == TREE_OUT_DOWN) {
            racks_info.apply();
        }
        if (meta.evict_route == 1) {
            job_route.apply();
        }
        if (meta.route_ok == 1) {
            meta.rel_slot = meta.index - meta.route_base;
        }
        if (meta.route_ok == 1) {
            hdr.esa.slot = meta.rel_slot & meta.route_mask;
        }
        // The evicted partial is marked for its own PS (9.2): UPPER from a
        // root's slot, the rack from a leaf's; and what a leaf builds for
        // the level above is in the root's terms.
        if (meta.victim_role == TREE_ROOT || meta.tree_out != TREE_OUT_NONE) {
            hdr.esa.flags = hdr.esa.flags | FLAG_UPPER;
        }
        if (meta.victim_role == TREE_LEAF) {
            hdr.esa.worker = meta.victim_bit;
        }

        // ---- counters: one access each ----------------------------------
        if (meta.count_global == 1) {
            esa_global.count(meta.global_idx);
        }
        drop_counter.apply();
        spoof_counter.apply();
        ESA_TNA_APPLY_ROW_COUNTERS
        tree_row_counter.apply();
        if (meta.count_rx == 1 && meta.worker_diff[7:7] == 1) {
            data_rx.count(meta.job_id);
        }
    }
}

control EsaIngressDeparser(packet_out pkt,
                           inout headers_t hdr,
                           in ig_meta_t meta,
                           in ingress_intrinsic_metadata_for_deparser_t ig_dprsr_md) {
    Resubmit() resubmit;

    apply {
        if (ig_dprsr_md.resubmit_type == 1) {
            resubmit.emit(meta.resub);
        }
        pkt.emit(meta.bridge);
        pkt.emit(hdr);
    }
}

// ---------------------------------------------------------------------------
// Egress
// ---------------------------------------------------------------------------

parser EsaEgressParser(packet_in pkt,
                       out headers_t hdr,
                       out eg_meta_t meta,
                       out egress_intrinsic_metadata_t eg_intr_md) {
    state start {
        pkt.extract(eg_intr_md);
        pkt.extract(meta.bridge);
        pkt.extract(hdr.ethernet);
        transition select(meta.bridge.esa) {
            1: parse_esa;
            default: accept;
        }
    }

    state parse_esa {
        pkt.extract(hdr.ipv4);
        pkt.extract(hdr.udp);
        pkt.extract(hdr.esa);
        transition accept;
    }
}

// popcount of a byte, by lookup. (16 entries to a line: bf-p4c -g keeps
// each IR node's whole source line, and 256 entries on one macro line made
// its debug IR dump gigabytes.)
#define POP_ENTRY(n) (n): set((bit<8>)(POPCOUNT8(n)));
control PopCount8(in bit<8> b, out bit<8> c) {
    action set(bit<8> n) {
        c = n;
    }
    table pop {
        key = { b: exact @name("byte"); }
        actions = { set; }
        const default_action = set(0);
        size = 256;
        const entries = {
            BYTES16(POP_ENTRY, 0)
            BYTES16(POP_ENTRY, 1)
            BYTES16(POP_ENTRY, 2)
            BYTES16(POP_ENTRY, 3)
            BYTES16(POP_ENTRY, 4)
            BYTES16(POP_ENTRY, 5)
            BYTES16(POP_ENTRY, 6)
            BYTES16(POP_ENTRY, 7)
            BYTES16(POP_ENTRY, 8)
            BYTES16(POP_ENTRY, 9)
            BYTES16(POP_ENTRY, 10)
            BYTES16(POP_ENTRY, 11)
            BYTES16(POP_ENTRY, 12)
            BYTES16(POP_ENTRY, 13)
            BYTES16(POP_ENTRY, 14)
            BYTES16(POP_ENTRY, 15)
        }
    }
    apply {
        pop.apply();
    }
}

control EsaEgress(inout headers_t hdr,
                  inout eg_meta_t meta,
                  in egress_intrinsic_metadata_t eg_intr_md,
                  in egress_intrinsic_metadata_from_parser_t eg_prsr_md,
                  inout egress_intrinsic_metadata_for_deparser_t eg_dprsr_md,
                  inout egress_intrinsic_metadata_for_output_port_t eg_oport_md) {
    // docs/protocol.md 3.1: destination from the host behind the port,
    // source = the address the packet was sent to (the switch's).
    action set_host(mac_addr_t mac, ipv4_addr_t ip) {
        hdr.ethernet.src = hdr.ethernet.dst;
        hdr.ethernet.dst = mac;
        hdr.ipv4.src = hdr.ipv4.dst;
        hdr.ipv4.dst = ip;
    }
    table egress_host {
        key = { eg_intr_md.egress_port: exact; }
        actions = { set_host; NoAction; }
        default_action = NoAction();
        size = 512;
    }

    PopCount8() pop0;
    PopCount8() pop1;
    PopCount8() pop2;
    PopCount8() pop3;

    apply {
        meta.eport = 7w0 ++ eg_intr_md.egress_port;
        meta.iport = 7w0 ++ meta.bridge.ingress_port;
        meta.port_diff = 1;
        if (meta.bridge.prune == 1) {
            meta.port_diff = meta.eport ^ meta.iport;
        }
        if (meta.port_diff == 0) {
            // A flooded frame, or a packet the switch relays (R1, R2, Q1,
            // A1), does not go back where it came from.
            eg_dprsr_md.drop_ctl = 1;
        }
        if (hdr.esa.isValid()) {
            // (here, not in ingress: the UDP header needs no match-action
            // PHV there)
            hdr.udp.checksum = 0;
            egress_host.apply();
            if (meta.bridge.recount == 1) {
                // count = popcount(bitmap): a lookup per byte, then two adds.
                pop0.apply(hdr.esa.bitmap[7:0], meta.p0);
                pop1.apply(hdr.esa.bitmap[15:8], meta.p1);
                pop2.apply(hdr.esa.bitmap[23:16], meta.p2);
                pop3.apply(hdr.esa.bitmap[31:24], meta.p3);
                meta.c01 = meta.p0 + meta.p1;
                meta.c23 = meta.p2 + meta.p3;
            }
            if (meta.bridge.recount == 1) {
                hdr.esa.count = meta.c01 + meta.c23;
            }
        }
    }
}

control EsaEgressDeparser(packet_out pkt,
                          inout headers_t hdr,
                          in eg_meta_t meta,
                          in egress_intrinsic_metadata_for_deparser_t eg_dprsr_md) {
    Checksum() ipv4_checksum;

    apply {
        if (hdr.ipv4.isValid()) {
            hdr.ipv4.checksum = ipv4_checksum.update({
                hdr.ipv4.version, hdr.ipv4.ihl, hdr.ipv4.dscp_ecn, hdr.ipv4.total_len,
                hdr.ipv4.ident, hdr.ipv4.flags, hdr.ipv4.frag_offset, hdr.ipv4.ttl,
                hdr.ipv4.protocol, hdr.ipv4.src, hdr.ipv4.dst });
        }
        pkt.emit(hdr);
    }
}

Pipeline(EsaIngressParser(),
         EsaIngress(),
         EsaIngressDeparser(),
         EsaEgressParser(),
         EsaEgress(),
         EsaEgressDeparser()) pipe;

Switch(pipe) main;
