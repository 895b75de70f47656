//! The XDP program that hands a host's ESA datagrams to its `AF_XDP`
//! socket, as eBPF instructions assembled here: no compiler, no ELF
//! object, nothing to build before loading it.
//!
//! For every frame on the interface: an untagged IPv4 frame without IP
//! options, not a fragment, carrying UDP to `port`, is redirected to the
//! socket in the socket map at the frame's receive queue
//! (`bpf_redirect_map`, falling back to `XDP_PASS` where that queue has no
//! socket); everything else (ARP, other ports, ICMP errors) passes to the
//! kernel's stack as if no program were there.

use esa_core::constants::{ETHERNET_LEN, ETHERTYPE_IPV4, IP_PROTO_UDP, IPV4_LEN, UDP_LEN};

/// `XDP_PASS`: the frame goes on to the kernel's stack.
const XDP_PASS: i32 = 2;
/// The helper `bpf_redirect_map(map, key, flags)`.
const BPF_FUNC_REDIRECT_MAP: i32 = 51;

// Opcodes used (`linux/bpf_common.h`, `linux/bpf.h`).
const LDX_W: u8 = 0x61;
const LDX_H: u8 = 0x69;
const LDX_B: u8 = 0x71;
const MOV64_REG: u8 = 0xbf;
const MOV64_IMM: u8 = 0xb7;
const ADD64_IMM: u8 = 0x07;
const JGT_REG: u8 = 0x2d;
const JNE_IMM: u8 = 0x55;
const JSET_IMM: u8 = 0x45;
const LD_IMM64: u8 = 0x18;
const CALL: u8 = 0x85;
const EXIT: u8 = 0x95;
/// `src_reg` of a 64-bit load whose immediate is a map's descriptor.
const PSEUDO_MAP_FD: u8 = 1;

// Offsets in `struct xdp_md`.
const MD_DATA: i16 = 0;
const MD_DATA_END: i16 = 4;
const MD_RX_QUEUE_INDEX: i16 = 16;

// Offsets in the frame.
const ETHERTYPE: i16 = 12;
const IP_VERSION_IHL: i16 = ETHERNET_LEN as i16;
const IP_FLAGS_FRAGMENT: i16 = ETHERNET_LEN as i16 + 6;
const IP_PROTOCOL: i16 = ETHERNET_LEN as i16 + 9;
const UDP_DESTINATION: i16 = (ETHERNET_LEN + IPV4_LEN) as i16 + 2;
/// Bytes the program reads: up to the end of the UDP header.
const HEADERS: i32 = (ETHERNET_LEN + IPV4_LEN + UDP_LEN) as i32;

/// One 8-byte instruction (`struct bpf_insn`) in the host's byte order.
fn insn(code: u8, dst: u8, src: u8, off: i16, imm: i32) -> [u8; 8] {
    let registers = if cfg!(target_endian = "big") {
        (dst << 4) | src
    } else {
        (src << 4) | dst
    };
    let [o0, o1] = off.to_ne_bytes();
    let [i0, i1, i2, i3] = imm.to_ne_bytes();
    [code, registers, o0, o1, i0, i1, i2, i3]
}

/// A big-endian 16-bit field as a 16-bit load of it reads it.
fn wire_u16(value: u16) -> i32 {
    i32::from(u16::from_ne_bytes(value.to_be_bytes()))
}

/// The program for the socket map `map` (a descriptor) and UDP port
/// `port`.
pub(super) fn redirect_udp_port(map: i32, port: u16) -> Vec<[u8; 8]> {
    // Registers: r1 the context, then the map; r2 the frame's start;
    // r3 its end; r4 the receive queue; r5 scratch.
    let mut program = vec![
        insn(LDX_W, 2, 1, MD_DATA, 0),
        insn(LDX_W, 3, 1, MD_DATA_END, 0),
        insn(LDX_W, 4, 1, MD_RX_QUEUE_INDEX, 0),
        insn(MOV64_REG, 5, 2, 0, 0),
        insn(ADD64_IMM, 5, 0, 0, HEADERS),
    ];
    // (opcode, load width, offset, comparison immediate) per check; each
    // jumps to `pass` when the frame is not ours.
    let checks = [
        (LDX_H, ETHERTYPE, JNE_IMM, wire_u16(ETHERTYPE_IPV4)),
        (LDX_B, IP_VERSION_IHL, JNE_IMM, 0x45),
        (LDX_B, IP_PROTOCOL, JNE_IMM, i32::from(IP_PROTO_UDP)),
        // More fragments, or a fragment offset: not a whole datagram.
        (LDX_H, IP_FLAGS_FRAGMENT, JSET_IMM, wire_u16(0x3fff)),
        (LDX_H, UDP_DESTINATION, JNE_IMM, wire_u16(port)),
    ];
    let redirect_len = 6;
    // The bounds check, then two instructions per check.
    let mut to_pass = 1 + 2 * checks.len() as i16 + redirect_len - 1;
    program.push(insn(JGT_REG, 5, 3, to_pass, 0));
    for (load, offset, jump, value) in checks {
        to_pass -= 2;
        program.push(insn(load, 5, 2, offset, 0));
        program.push(insn(jump, 5, 0, to_pass, value));
    }
    program.extend([
        insn(LD_IMM64, 1, PSEUDO_MAP_FD, 0, map),
        insn(0, 0, 0, 0, 0),
        insn(MOV64_REG, 2, 4, 0, 0),
        insn(MOV64_IMM, 3, 0, 0, XDP_PASS),
        insn(CALL, 0, 0, 0, BPF_FUNC_REDIRECT_MAP),
        insn(EXIT, 0, 0, 0, 0),
        // pass:
        insn(MOV64_IMM, 0, 0, 0, XDP_PASS),
        insn(EXIT, 0, 0, 0, 0),
    ]);
    program
}

#[cfg(all(test, target_endian = "little"))]
mod tests {
    use super::*;

    /// The program for map 7 and port 4791, byte for byte, written out
    /// from the kernel's opcode tables (`Documentation/bpf/standardization/
    /// instruction-set.rst`), so any change to the assembler is seen.
    #[test]
    fn redirect_program_bytes() {
        let expected: [[u8; 8]; 24] = [
            [0x61, 0x12, 0, 0, 0, 0, 0, 0],
            [0x61, 0x13, 4, 0, 0, 0, 0, 0],
            [0x61, 0x14, 16, 0, 0, 0, 0, 0],
            [0xbf, 0x25, 0, 0, 0, 0, 0, 0],
            [0x07, 0x05, 0, 0, 42, 0, 0, 0],
            [0x2d, 0x35, 16, 0, 0, 0, 0, 0],
            [0x69, 0x25, 12, 0, 0, 0, 0, 0],
            [0x55, 0x05, 14, 0, 0x08, 0x00, 0, 0],
            [0x71, 0x25, 14, 0, 0, 0, 0, 0],
            [0x55, 0x05, 12, 0, 0x45, 0, 0, 0],
            [0x71, 0x25, 23, 0, 0, 0, 0, 0],
            [0x55, 0x05, 10, 0, 17, 0, 0, 0],
            [0x69, 0x25, 20, 0, 0, 0, 0, 0],
            // 0x3fff on the wire is 3f ff.
            [0x45, 0x05, 8, 0, 0x3f, 0xff, 0, 0],
            [0x69, 0x25, 36, 0, 0, 0, 0, 0],
            // 4791 = 0x12b7, on the wire b7 after 12.
            [0x55, 0x05, 6, 0, 0x12, 0xb7, 0, 0],
            [0x18, 0x11, 0, 0, 7, 0, 0, 0],
            [0, 0, 0, 0, 0, 0, 0, 0],
            [0xbf, 0x42, 0, 0, 0, 0, 0, 0],
            [0xb7, 0x03, 0, 0, 2, 0, 0, 0],
            [0x85, 0x00, 0, 0, 51, 0, 0, 0],
            [0x95, 0x00, 0, 0, 0, 0, 0, 0],
            [0xb7, 0x00, 0, 0, 2, 0, 0, 0],
            [0x95, 0x00, 0, 0, 0, 0, 0, 0],
        ];
        assert_eq!(redirect_udp_port(7, 4791), expected);
    }

    /// Every jump lands on the `pass` instructions, the last two.
    #[test]
    fn every_check_jumps_to_pass() {
        let program = redirect_udp_port(3, 1);
        let pass = program.len() - 2;
        for (pc, i) in program.iter().enumerate() {
            if matches!(i[0], JGT_REG | JNE_IMM | JSET_IMM) {
                let off = i16::from_ne_bytes([i[2], i[3]]);
                assert_eq!(pc as isize + 1 + off as isize, pass as isize, "at {pc}");
            }
        }
    }
}
