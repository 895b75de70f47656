/*
 * core.p4 for p4sim: the P4_16 core library (P4_16 specification,
 * "P4 core library"). Written for p4sim from the specification.
 */

#ifndef _CORE_P4_
#define _CORE_P4_

/* Errors every P4 target knows. Architectures and programs may add more. */
error {
    NoError,               /* no error */
    PacketTooShort,        /* extract ran past the end of the packet */
    NoMatch,               /* no select case matched */
    StackOutOfBounds,      /* header stack index out of range */
    HeaderTooShort,        /* varbit extract longer than the field allows */
    ParserTimeout,         /* the parser took too long */
    ParserInvalidArgument  /* bad argument to a parser operation */
}

/* The packet a parser reads. */
extern packet_in {
    /* Extracts a fixed-size header and makes it valid. */
    void extract<T>(out T hdr);
    /* Extracts a header whose one varbit field is sizeInBits long. */
    void extract<T>(out T variableSizeHeader, in bit<32> variableFieldSizeInBits);
    /* Reads the next bits without consuming them. */
    T lookahead<T>();
    /* Skips bits. */
    void advance(in bit<32> sizeInBits);
    /* Length of the whole packet in bytes. */
    bit<32> length();
}

/* The packet a deparser writes. */
extern packet_out {
    /* Appends a header if it is valid (every member for stacks and structs). */
    void emit<T>(in T hdr);
}

/* In a parser: if check is false, stop and report toSignal. */
extern void verify(in bool check, in error toSignal);

/* The action that does nothing. */
@noWarn("unused")
action NoAction() {}

/* Match kinds every target supports. */
match_kind {
    exact,
    ternary,
    lpm
}

/* Compile-time checks. */
extern bool static_assert(bool check, string message);
extern bool static_assert(bool check);

#endif /* _CORE_P4_ */
