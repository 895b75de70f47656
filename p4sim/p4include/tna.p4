/*
 * tna.p4 for p4sim: the Tofino Native Architecture (Tofino 1) as p4sim
 * runs it, declared from the public TNA documentation. Type, field, extern
 * and package names, widths and field order follow Intel's tna.p4 (in p4c,
 * backends/tofino/bf-p4c/p4include) so programs written for bf-p4c compile
 * unchanged; p4sim/README.md ("TNA") says which externs run and how.
 *
 * Externs declared here but not run by p4sim (Meter, Lpf, Wred, Digest,
 * Mirror, ParserCounter, ...) are refused with a message naming them when a
 * program instantiates them.
 */

#ifndef _TOFINO1_NATIVE_ARCHITECTURE_
#define _TOFINO1_NATIVE_ARCHITECTURE_

#include "core.p4"

#define __TARGET_TOFINO__ 1

/* ---- types and constants of Tofino 1 ---------------------------------- */

#define PORT_ID_WIDTH 9
typedef bit<PORT_ID_WIDTH> PortId_t;
#define MULTICAST_GROUP_ID_WIDTH 16
typedef bit<MULTICAST_GROUP_ID_WIDTH> MulticastGroupId_t;
#define QUEUE_ID_WIDTH 5
typedef bit<QUEUE_ID_WIDTH> QueueId_t;
#define MIRROR_TYPE_WIDTH 3
typedef bit<MIRROR_TYPE_WIDTH> MirrorType_t;
#define MIRROR_ID_WIDTH 10
typedef bit<MIRROR_ID_WIDTH> MirrorId_t;
#define RESUBMIT_TYPE_WIDTH 3
typedef bit<RESUBMIT_TYPE_WIDTH> ResubmitType_t;
#define DIGEST_TYPE_WIDTH 3
typedef bit<DIGEST_TYPE_WIDTH> DigestType_t;
#define REPLICATION_ID_WIDTH 16
typedef bit<REPLICATION_ID_WIDTH> ReplicationId_t;
#define L1_EXCLUSION_ID_WIDTH 16
typedef bit<L1_EXCLUSION_ID_WIDTH> L1ExclusionId_t;
#define L2_EXCLUSION_ID_WIDTH 9
typedef bit<L2_EXCLUSION_ID_WIDTH> L2ExclusionId_t;

/* The port metadata the ingress parser skips (or unpacks) after the
 * intrinsic metadata of a packet that was not resubmitted. */
const bit<32> PORT_METADATA_SIZE = 32w64;

#define DEVPORT_PIPE_MASK 0x180
#define DEVPORT_PIPE(port) (port)[8:7]
#define DEVPORT_PORT_MASK 0x7f
#define DEVPORT_PORT(port) (port)[6:0]

/* Parser error flags (ingress/egress_intrinsic_metadata_from_parser_t's
 * parser_err). p4sim sets NO_MATCH for a select without a matching case,
 * PARTIAL_HDR for an extract past the end of the packet, and TIMEOUT_USER
 * for any other error; the packet continues into the control. */
const bit<16> PARSER_ERROR_OK           = 16w0x0000;
const bit<16> PARSER_ERROR_NO_MATCH     = 16w0x0001;
const bit<16> PARSER_ERROR_PARTIAL_HDR  = 16w0x0002;
const bit<16> PARSER_ERROR_CTR_RANGE    = 16w0x0004;
const bit<16> PARSER_ERROR_TIMEOUT_USER = 16w0x0008;
const bit<16> PARSER_ERROR_TIMEOUT_HW   = 16w0x0010;
const bit<16> PARSER_ERROR_SRC_EXT      = 16w0x0020;
const bit<16> PARSER_ERROR_DST_CONT     = 16w0x0040;
const bit<16> PARSER_ERROR_PHV_OWNER    = 16w0x0080;
const bit<16> PARSER_ERROR_MULTIWRITE   = 16w0x0100;
const bit<16> PARSER_ERROR_ARAM_MBE     = 16w0x0400;
const bit<16> PARSER_ERROR_FCS          = 16w0x0800;

enum MeterType_t { PACKETS, BYTES }
enum bit<8> MeterColor_t { GREEN = 8w0, YELLOW = 8w1, RED = 8w3 }
enum CounterType_t { PACKETS, BYTES, PACKETS_AND_BYTES }
enum SelectorMode_t { FAIR, RESILIENT }
enum HashAlgorithm_t {
    IDENTITY,
    RANDOM,
    XOR8,
    XOR16,
    XOR32,
    CRC8,
    CRC16,
    CRC32,
    CRC64,
    CUSTOM
}

match_kind {
    range,
    selector,
    atcam_partition_index
}

error {
    CounterRange,
    Timeout,
    PhvOwner,
    MultiWrite,
    IbufOverflow,
    IbufUnderflow
}

/* ---- intrinsic metadata ------------------------------------------------ */

/* Prepended to every packet the ingress parser sees (8 bytes), followed
 * by PORT_METADATA_SIZE bits of port metadata, or by the 8 bytes of
 * resubmit data when resubmit_flag is 1. p4sim fills resubmit_flag,
 * ingress_port and ingress_mac_tstamp (the switch clock in ns). */
header ingress_intrinsic_metadata_t {
    bit<1> resubmit_flag;
    @padding bit<1> _pad1;
    bit<2> packet_version;
    @padding bit<3> _pad2;
    PortId_t ingress_port;
    bit<48> ingress_mac_tstamp;
}

/* What ingress tells the traffic manager. p4sim sends a copy to
 * ucast_egress_port when ingress assigned it, one per member of
 * mcast_grp_a and of mcast_grp_b (the packet replication engine's groups)
 * when nonzero, and skips egress when bypass_egress is 1. */
struct ingress_intrinsic_metadata_for_tm_t {
    PortId_t ucast_egress_port;
    bit<1> bypass_egress;
    bit<1> deflect_on_drop;
    bit<3> ingress_cos;
    QueueId_t qid;
    bit<3> icos_for_copy_to_cpu;
    bit<1> copy_to_cpu;
    bit<2> packet_color;
    bit<1> disable_ucast_cutthru;
    bit<1> enable_mcast_cutthru;
    MulticastGroupId_t mcast_grp_a;
    MulticastGroupId_t mcast_grp_b;
    bit<13> level1_mcast_hash;
    bit<13> level2_mcast_hash;
    L1ExclusionId_t level1_exclusion_id;
    L2ExclusionId_t level2_exclusion_id;
    bit<16> rid;
}

/* global_tstamp: the switch clock in ns; parser_err: PARSER_ERROR_*. */
struct ingress_intrinsic_metadata_from_parser_t {
    bit<48> global_tstamp;
    bit<32> global_ver;
    bit<16> parser_err;
}

/* drop_ctl bit 0 drops the packet; resubmit_type selects the Resubmit
 * whose emit() runs in the ingress deparser. */
struct ingress_intrinsic_metadata_for_deparser_t {
    bit<3> drop_ctl;
    DigestType_t digest_type;
    ResubmitType_t resubmit_type;
    MirrorType_t mirror_type;
}

/* Prepended to every packet the egress parser sees (27 bytes), followed by
 * what the ingress deparser emitted and the rest of the packet. p4sim
 * fills egress_port, egress_rid, egress_rid_first and pkt_length. */
header egress_intrinsic_metadata_t {
    @padding bit<7> _pad0;
    PortId_t egress_port;
    @padding bit<5> _pad1;
    bit<19> enq_qdepth;
    @padding bit<6> _pad2;
    bit<2> enq_congest_stat;
    @padding bit<14> _pad3;
    bit<18> enq_tstamp;
    @padding bit<5> _pad4;
    bit<19> deq_qdepth;
    @padding bit<6> _pad5;
    bit<2> deq_congest_stat;
    bit<8> app_pool_congest_stat;
    @padding bit<14> _pad6;
    bit<18> deq_timedelta;
    bit<16> egress_rid;
    @padding bit<7> _pad7;
    bit<1> egress_rid_first;
    @padding bit<3> _pad8;
    QueueId_t egress_qid;
    @padding bit<5> _pad9;
    bit<3> egress_cos;
    @padding bit<7> _pad10;
    bit<1> deflection_flag;
    bit<16> pkt_length;
}

struct egress_intrinsic_metadata_from_parser_t {
    bit<48> global_tstamp;
    bit<32> global_ver;
    bit<16> parser_err;
}

struct egress_intrinsic_metadata_for_deparser_t {
    bit<3> drop_ctl;
    MirrorType_t mirror_type;
    bit<1> coalesce_flush;
    bit<7> coalesce_length;
}

struct egress_intrinsic_metadata_for_output_port_t {
    bit<1> capture_tstamp_on_tx;
    bit<1> update_delay_on_tx;
}

/* ---- externs ----------------------------------------------------------- */

/* Internet checksum: add/subtract/verify/get in a parser, update in a
 * deparser. */
extern Checksum {
    Checksum();
    void add<T>(in T data);
    void subtract<T>(in T data);
    bool verify();
    void subtract_all_and_deposit<T>(out T residual);
    bit<16> get();
    bit<16> update<T>(in T data, @optional in bool zeros_as_ones);
}

extern ParserCounter {
    ParserCounter();
    void set<T>(in T value);
    bool is_zero();
    bool is_negative();
    void increment(in bit<8> value);
    void decrement(in bit<8> value);
}

extern ParserPriority {
    ParserPriority();
    void set(in bit<3> prio);
}

extern CRCPolynomial<T> {
    CRCPolynomial(T coeff, bool reversed, bool msb, bool extended, T init, T xor);
}

/* p4sim runs CRC16 and CRC32 (CRC-16/ARC and CRC-32, as bf-p4c configures
 * them) over whole bytes, keeping the low W bits. */
extern Hash<W> {
    Hash(HashAlgorithm_t algo);
    W get<D>(in D data);
}

extern Random<W> {
    Random();
    W get();
}

extern Counter<W, I> {
    Counter(bit<32> size, CounterType_t type);
    void count(in I index, @optional in bit<32> adjust_byte_count);
}

extern DirectCounter<W> {
    DirectCounter(CounterType_t type);
    void count(@optional in bit<32> adjust_byte_count);
}

extern Meter<I> {
    Meter(bit<32> size, MeterType_t type);
    bit<8> execute(in I index, @optional in bit<32> adjust_byte_count);
}

extern DirectMeter {
    DirectMeter(MeterType_t type);
    bit<8> execute(@optional in bit<32> adjust_byte_count);
}

extern Lpf<T, I> {
    Lpf(bit<32> size);
    T execute(in T val, in I index);
}

extern Wred<T, I> {
    Wred(bit<32> size, bit<8> drop_value, bit<8> no_drop_value);
    bit<8> execute(in T val, in I index);
}

/* A register array of `size` cells of type T (bit<W>, int<W> or a struct of
 * them, 64 bits at most), indexed by I. p4sim accepts an initial value of
 * zero only. */
extern Register<T, I> {
    Register(bit<32> size);
    Register(bit<32> size, T initial_value);
    T read(in I index);
    T write(in I index, in T value);
}

extern DirectRegister<T> {
    DirectRegister();
    T read();
    T write(in T value);
}

/* A stateful ALU program on a Register: execute(index) reads the cell into
 * value, runs apply, writes value back and returns rv (0 when apply does not
 * set it). In apply, this.predicate(cmplo, cmphi) is the 4-bit one-hot
 * 1 << (cmplo + 2 * cmphi). */
extern RegisterAction<T, I, U> {
    RegisterAction(Register<T, I> reg);
    U execute(in I index);
    abstract void apply(inout T value, @optional out U rv);
    U predicate(@optional in bool cmplo, @optional in bool cmphi);
}

extern DirectRegisterAction<T, U> {
    DirectRegisterAction(DirectRegister<T> reg);
    U execute();
    abstract void apply(inout T value, @optional out U rv);
    U predicate(@optional in bool cmplo, @optional in bool cmphi);
}

extern ActionProfile {
    ActionProfile(bit<32> size);
}

extern Mirror {
    Mirror();
    Mirror(MirrorType_t mirror_type);
    void emit(in MirrorId_t session_id);
    void emit<T>(in MirrorId_t session_id, in T hdr);
}

/* In the ingress deparser: the packet as it arrived goes through ingress
 * again, with resubmit_flag set and hdr's bytes (8 at most) after the
 * intrinsic metadata in place of the port metadata. */
extern Resubmit {
    Resubmit();
    Resubmit(ResubmitType_t resubmit_type);
    void emit();
    void emit<T>(in T hdr);
}

extern Digest<T> {
    Digest();
    Digest(DigestType_t digest_type);
    void pack(in T data);
}

/* ---- the pipeline ------------------------------------------------------ */

parser IngressParserT<H, M>(
    packet_in pkt,
    out H hdr,
    out M ig_md,
    @optional out ingress_intrinsic_metadata_t ig_intr_md,
    @optional out ingress_intrinsic_metadata_for_tm_t ig_intr_md_for_tm,
    @optional out ingress_intrinsic_metadata_from_parser_t ig_intr_md_from_prsr);

parser EgressParserT<H, M>(
    packet_in pkt,
    out H hdr,
    out M eg_md,
    @optional out egress_intrinsic_metadata_t eg_intr_md,
    @optional out egress_intrinsic_metadata_from_parser_t eg_intr_md_from_prsr,
    @optional out egress_intrinsic_metadata_for_deparser_t eg_intr_md_for_dprsr);

control IngressT<H, M>(
    inout H hdr,
    inout M ig_md,
    @optional in ingress_intrinsic_metadata_t ig_intr_md,
    @optional in ingress_intrinsic_metadata_from_parser_t ig_intr_md_from_prsr,
    @optional inout ingress_intrinsic_metadata_for_deparser_t ig_intr_md_for_dprsr,
    @optional inout ingress_intrinsic_metadata_for_tm_t ig_intr_md_for_tm);

control EgressT<H, M>(
    inout H hdr,
    inout M eg_md,
    @optional in egress_intrinsic_metadata_t eg_intr_md,
    @optional in egress_intrinsic_metadata_from_parser_t eg_intr_md_from_prsr,
    @optional inout egress_intrinsic_metadata_for_deparser_t eg_intr_md_for_dprsr,
    @optional inout egress_intrinsic_metadata_for_output_port_t eg_intr_md_for_oport);

control IngressDeparserT<H, M>(
    packet_out pkt,
    inout H hdr,
    in M metadata,
    @optional in ingress_intrinsic_metadata_for_deparser_t ig_intr_md_for_dprsr,
    @optional in ingress_intrinsic_metadata_t ig_intr_md);

control EgressDeparserT<H, M>(
    packet_out pkt,
    inout H hdr,
    in M metadata,
    @optional in egress_intrinsic_metadata_for_deparser_t eg_intr_md_for_dprsr,
    @optional in egress_intrinsic_metadata_t eg_intr_md,
    @optional in egress_intrinsic_metadata_from_parser_t eg_intr_md_from_prsr);

package Pipeline<IH, IM, EH, EM>(
    IngressParserT<IH, IM> ingress_parser,
    IngressT<IH, IM> ingress,
    IngressDeparserT<IH, IM> ingress_deparser,
    EgressParserT<EH, EM> egress_parser,
    EgressT<EH, EM> egress,
    EgressDeparserT<EH, EM> egress_deparser);

/* p4sim runs one pipeline (pipe0). */
@pkginfo(arch="TNA", version="2.0.1")
package Switch<IH0, IM0, EH0, EM0, IH1, IM1, EH1, EM1,
               IH2, IM2, EH2, EM2, IH3, IM3, EH3, EM3>(
    Pipeline<IH0, IM0, EH0, EM0> pipe0,
    @optional Pipeline<IH1, IM1, EH1, EM1> pipe1,
    @optional Pipeline<IH2, IM2, EH2, EM2> pipe2,
    @optional Pipeline<IH3, IM3, EH3, EM3> pipe3);

#endif /* _TOFINO1_NATIVE_ARCHITECTURE_ */
