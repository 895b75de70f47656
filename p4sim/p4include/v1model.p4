/*
 * v1model.p4 for p4sim: the v1model architecture of BMv2's simple_switch,
 * declared for p4sim from the public v1model documentation. Names, field
 * order and signatures follow p4c's v1model.p4 so programs written for p4c
 * compile unchanged.
 *
 * Define V1MODEL_VERSION >= 20200408 before including this file to get the
 * counter, meter and register externs with a type parameter for the index.
 */

#ifndef _V1_MODEL_P4_
#define _V1_MODEL_P4_

#ifndef V1MODEL_VERSION
#define V1MODEL_VERSION 20180101
#endif

#include "core.p4"

/* Match kinds simple_switch adds to exact/ternary/lpm. */
match_kind {
    range,
    optional,
    selector
}

const bit<32> __v1model_version = V1MODEL_VERSION;

/* Per-packet metadata simple_switch keeps for every packet. */
@metadata @name("standard_metadata")
struct standard_metadata_t {
    bit<9>  ingress_port;
    bit<9>  egress_spec;     /* set in ingress: output port; 511 drops */
    bit<9>  egress_port;     /* read in egress: the port actually used */
    bit<32> instance_type;   /* normal, clone, resubmit, recirculate, replica */
    bit<32> packet_length;   /* bytes, as received */
    @alias("queueing_metadata.enq_timestamp")
    bit<32> enq_timestamp;
    @alias("queueing_metadata.enq_qdepth")
    bit<19> enq_qdepth;
    @alias("queueing_metadata.deq_timedelta")
    bit<32> deq_timedelta;
    @alias("queueing_metadata.deq_qdepth")
    bit<19> deq_qdepth;
    @alias("intrinsic_metadata.ingress_global_timestamp")
    bit<48> ingress_global_timestamp;  /* microseconds */
    @alias("intrinsic_metadata.egress_global_timestamp")
    bit<48> egress_global_timestamp;
    @alias("intrinsic_metadata.mcast_grp")
    bit<16> mcast_grp;       /* non-zero: replicate to this multicast group */
    @alias("intrinsic_metadata.egress_rid")
    bit<16> egress_rid;      /* replication id of this copy */
    bit<1>  checksum_error;  /* set by a failing verify_checksum */
    error   parser_error;    /* what the parser reported */
    @alias("intrinsic_metadata.priority")
    bit<3>  priority;
}

enum CounterType {
    packets,
    bytes,
    packets_and_bytes
}

enum MeterType {
    packets,
    bytes
}

/* An array of counters indexed by the program. */
#if V1MODEL_VERSION >= 20200408
extern counter<I> {
    counter(bit<32> size, CounterType type);
    void count(in I index);
}
#else
extern counter {
    counter(bit<32> size, CounterType type);
    void count(in bit<32> index);
}
#endif

/* One counter per entry of the table it is attached to (`counters = c;`). */
extern direct_counter {
    direct_counter(CounterType type);
    void count();
}

#define V1MODEL_METER_COLOR_GREEN  0
#define V1MODEL_METER_COLOR_YELLOW 1
#define V1MODEL_METER_COLOR_RED    2

/* An array of two-rate three-color meters (RFC 2698). */
#if V1MODEL_VERSION >= 20200408
extern meter<I> {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in I index, out T result);
}
#else
extern meter {
    meter(bit<32> size, MeterType type);
    void execute_meter<T>(in bit<32> index, out T result);
}
#endif

/* One meter per entry of the table it is attached to (`meters = m;`). */
extern direct_meter<T> {
    direct_meter(MeterType type);
    void read(out T result);
}

/* An array of values kept across packets. */
#if V1MODEL_VERSION >= 20200408
extern register<T, I> {
    register(bit<32> size);
    @noSideEffects
    void read(out T result, in I index);
    void write(in I index, in T value);
}
#else
extern register<T> {
    register(bit<32> size);
    @noSideEffects
    void read(out T result, in bit<32> index);
    void write(in bit<32> index, in T value);
}
#endif

/* Table implementation: entries refer to a shared set of actions. */
extern action_profile {
    action_profile(bit<32> size);
}

/* A uniformly random value in [lo, hi]. */
extern void random<T>(out T result, in T lo, in T hi);

/* Sends data to the control plane, tagged with receiver. */
extern void digest<T>(in bit<32> receiver, in T data);

enum HashAlgorithm {
    crc32,
    crc32_custom,
    crc16,
    crc16_custom,
    random,
    identity,
    csum16,
    xor16
}

/* Sets egress_spec to the drop port (511) and mcast_grp to 0. */
@deprecated("Please use mark_to_drop(standard_metadata) instead.")
extern void mark_to_drop();
@pure
extern void mark_to_drop(inout standard_metadata_t standard_metadata);

/* result = base + (hash of data) % max; base when max is 0. */
@pure
extern void hash<O, T, D, M>(out O result, in HashAlgorithm algo, in T base, in D data, in M max);

/* Table implementation choosing a member of a group by a hash. */
extern action_selector {
    action_selector(HashAlgorithm algorithm, bit<32> size, bit<32> outputWidth);
}

enum CloneType {
    I2E,
    E2E
}

@deprecated("Please use verify_checksum/update_checksum instead.")
extern Checksum16 {
    Checksum16();
    bit<16> get<D>(in D data);
}

/* Sets standard_metadata.checksum_error when condition holds and the
   checksum of data differs from checksum. */
extern void verify_checksum<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);
/* When condition holds, writes the checksum of data into checksum. */
@pure
extern void update_checksum<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);
/* As above, with the unparsed payload appended to data. */
extern void verify_checksum_with_payload<T, O>(in bool condition, in T data, in O checksum, HashAlgorithm algo);
@noSideEffects
extern void update_checksum_with_payload<T, O>(in bool condition, in T data, inout O checksum, HashAlgorithm algo);

/* Copies the packet to the clone session at the end of this pipeline. */
extern void clone(in CloneType type, in bit<32> session);

@deprecated("Please use 'resubmit_preserving_field_list' instead")
extern void resubmit<T>(in T data);
/* Sends the packet back to ingress, keeping fields tagged @field_list(index). */
extern void resubmit_preserving_field_list(bit<8> index);

@deprecated("Please use 'recirculate_preserving_field_list' instead")
extern void recirculate<T>(in T data);
/* Sends the deparsed packet back to ingress, keeping @field_list(index) fields. */
extern void recirculate_preserving_field_list(bit<8> index);

@deprecated("Please use 'clone_preserving_field_list' instead")
extern void clone3<T>(in CloneType type, in bit<32> session, in T data);
/* As clone, keeping the fields tagged @field_list(index) in the copy. */
extern void clone_preserving_field_list(in CloneType type, in bit<32> session, bit<8> index);

/* Keeps only the first length bytes of the packet on output. */
extern void truncate(in bit<32> length);

/* Stops the program (simple_switch aborts) when check is false. */
extern void assert(in bool check);
/* Same as assert at run time; tools may take it as a given. */
extern void assume(in bool check);

/* Writes a message to the log; "{}" in msg takes the next field of data. */
extern void log_msg(string msg);
extern void log_msg<T>(string msg, in T data);

/* The six programmable blocks of the v1model pipeline. */
parser Parser<H, M>(packet_in b,
                    out H parsedHdr,
                    inout M meta,
                    inout standard_metadata_t standard_metadata);

control VerifyChecksum<H, M>(inout H hdr,
                             inout M meta);

@pipeline
control Ingress<H, M>(inout H hdr,
                      inout M meta,
                      inout standard_metadata_t standard_metadata);

@pipeline
control Egress<H, M>(inout H hdr,
                     inout M meta,
                     inout standard_metadata_t standard_metadata);

control ComputeChecksum<H, M>(inout H hdr,
                              inout M meta);

@deparser
control Deparser<H>(packet_out b, in H hdr);

package V1Switch<H, M>(Parser<H, M> p,
                       VerifyChecksum<H, M> vr,
                       Ingress<H, M> ig,
                       Egress<H, M> eg,
                       ComputeChecksum<H, M> ck,
                       Deparser<H> dep);

#endif /* _V1_MODEL_P4_ */
