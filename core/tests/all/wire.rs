//! Wire formats against real bytes, and round trips.

use esa_core::constants::{ESA_UDP_PORT, HEADER_LEN};
use esa_core::wire::frame::rewrite_destination;
use esa_core::wire::{
    EsaPacket, EsaRepr, Flags, FrameRepr, Ipv4Addr, Key, Layer, MacAddr, PacketType, ParsedFrame,
    WireError, internet_checksum,
};
use proptest::prelude::*;

/// A DATA frame with two lanes, written out by hand from docs/protocol.md §2
/// (IPv4 checksum computed independently).
const FRAME: [u8; 66] = [
    // Ethernet: dst, src, IPv4
    0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x02, 0x08, 0x00,
    // IPv4: 45 00, total 52, ident 0, DF, ttl 64, UDP, checksum, 10.0.0.1 -> 10.0.0.254
    0x45, 0x00, 0x00, 0x34, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0x25, 0xbb, 0x0a, 0x00, 0x00, 0x01,
    0x0a, 0x00, 0x00, 0xfe, // UDP: 17747 -> 17747, length 32, checksum 0
    0x45, 0x53, 0x45, 0x53, 0x00, 0x20, 0x00, 0x00,
    // ESA: v1 DATA, RESEND, slot 3, key p3 j1 s7, bitmap 0b100, fan-in 4, count 1, e 16, worker 2
    0x11, 0x01, 0x00, 0x03, 0x30, 0x01, 0x00, 0x07, 0x00, 0x00, 0x00, 0x04, 0x04, 0x01, 0x10, 0x02,
    // lanes: 1, -2
    0x00, 0x00, 0x00, 0x01, 0xff, 0xff, 0xff, 0xfe,
];

fn repr() -> FrameRepr {
    FrameRepr {
        src_mac: MacAddr([2, 0, 0, 0, 0, 2]),
        dst_mac: MacAddr([2, 0, 0, 0, 0, 1]),
        src_ip: Ipv4Addr::new(10, 0, 0, 1),
        dst_ip: Ipv4Addr::new(10, 0, 0, 254),
        esa: EsaRepr {
            packet_type: PacketType::Data,
            flags: Flags::RESEND,
            slot: 3,
            key: Key::new(3, 1, 7),
            bitmap: 0b100,
            fan_in: 4,
            count: 1,
            exponent: 16,
            worker: 2,
        },
    }
}

#[test]
fn test_parse() {
    let p = ParsedFrame::parse(&FRAME, 2).unwrap();
    assert_eq!(p.eth.dst, MacAddr([2, 0, 0, 0, 0, 1]));
    assert_eq!(p.ip.src, Ipv4Addr::new(10, 0, 0, 1));
    assert_eq!(p.ip.payload_len, 32);
    assert_eq!(
        (p.udp.src_port, p.udp.dst_port),
        (ESA_UDP_PORT, ESA_UDP_PORT)
    );
    assert_eq!(p.esa, repr().esa);
    assert_eq!(p.esa.key.priority(), 3);
    assert_eq!(p.esa.key.job(), 1);
    assert_eq!(p.esa.key.seq(), 7);
    assert_eq!(p.payload.values().collect::<Vec<_>>(), vec![1, -2]);
}

#[test]
fn test_emit() {
    assert_eq!(repr().emit(&[1, -2], 2), FRAME.to_vec());
}

#[test]
fn test_truncated() {
    for len in 0..FRAME.len() {
        let err = ParsedFrame::parse(&FRAME[..len], 2).unwrap_err();
        assert!(
            !err.is_not_esa(),
            "truncation at {len} must be an error, got {err}"
        );
    }
    assert_eq!(
        ParsedFrame::parse(&FRAME[..10], 2).unwrap_err(),
        WireError::Truncated {
            layer: Layer::Ethernet,
            need: 14,
            have: 10
        }
    );
    // A frame with fewer lanes than the switch expects is truncated.
    assert_eq!(
        ParsedFrame::parse(&FRAME, 3).unwrap_err(),
        WireError::Truncated {
            layer: Layer::Esa,
            need: 42 + HEADER_LEN + 12,
            have: 66
        }
    );
    // One with more is checked by its length fields.
    assert_eq!(
        ParsedFrame::parse(&FRAME, 1).unwrap_err(),
        WireError::BadLength {
            layer: Layer::Ipv4,
            field: 52,
            available: 48
        }
    );
}

#[test]
fn ethernet_padding_is_ignored() {
    let mut padded = FRAME.to_vec();
    padded.extend_from_slice(&[0; 6]);
    assert_eq!(ParsedFrame::parse(&padded, 2).unwrap().esa, repr().esa);
}

#[test]
fn invalid_fields_are_typed_errors() {
    let cases: [(usize, u8, WireError); 7] = [
        (12, 0x86, WireError::NotIpv4(0x8600)),
        (14, 0x46, WireError::IpOptions(6)),
        (14, 0x65, WireError::BadIpVersion(6)),
        (23, 6, WireError::NotUdp(6)),
        (
            24,
            0x00,
            WireError::BadChecksum {
                found: 0x00bb,
                expected: 0x25bb,
            },
        ),
        (42, 0x21, WireError::BadVersion(2)),
        (42, 0x10, WireError::UnknownType(0)),
    ];
    for (at, byte, want) in cases {
        let mut f = FRAME.to_vec();
        f[at] = byte;
        if at == 23 {
            // Keep the checksum right so the protocol check is reached.
            f[24] = 0;
            f[25] = 0;
            let c = internet_checksum(&f[14..34]);
            f[24..26].copy_from_slice(&c.to_be_bytes());
        }
        assert_eq!(
            ParsedFrame::parse(&f, 2).unwrap_err(),
            want,
            "byte {at} = {byte:#x}"
        );
    }
    let mut f = FRAME.to_vec();
    f[37] ^= 1;
    assert_eq!(
        ParsedFrame::parse(&f, 2).unwrap_err(),
        WireError::NotEsaPort(0x4552)
    );
}

#[test]
fn not_esa_takes_precedence_over_length_errors_as_in_the_p4_parser() {
    // A TCP packet whose IPv4 total length is wrong is still just not ESA.
    let mut f = FRAME.to_vec();
    f[23] = 6;
    f[16] = 0xff;
    assert_eq!(ParsedFrame::parse(&f, 2).unwrap_err(), WireError::NotUdp(6));
    // IPv6 in an IPv4 EtherType is not ESA either.
    let mut f = FRAME.to_vec();
    f[14] = 0x65;
    assert!(ParsedFrame::parse(&f, 2).unwrap_err().is_not_esa());
    // An ESA packet whose UDP length is wrong is malformed.
    let mut f = FRAME.to_vec();
    f[39] = 0x21;
    let err = ParsedFrame::parse(&f, 2).unwrap_err();
    assert_eq!(
        err,
        WireError::BadLength {
            layer: Layer::Udp,
            field: 33,
            available: 32
        }
    );
    assert!(!err.is_not_esa());
}

#[test]
fn rewrite_keeps_the_frame_valid() {
    let mut f = FRAME.to_vec();
    f[40] = 0x12; // a UDP checksum that must be cleared
    let before = ParsedFrame::parse(&f, 2).unwrap();
    let (sent_to_mac, sent_to_ip) = (before.eth.dst, before.ip.dst);
    assert_ne!(before.ip.src, sent_to_ip);
    rewrite_destination(&mut f, MacAddr::local(9), Ipv4Addr::new(10, 1, 2, 3)).unwrap();
    let p = ParsedFrame::parse(&f, 2).unwrap();
    assert_eq!(
        (p.eth.dst, p.ip.dst),
        (MacAddr::local(9), Ipv4Addr::new(10, 1, 2, 3))
    );
    // The source becomes the address the frame was sent to (the switch's).
    assert_eq!((p.eth.src, p.ip.src), (sent_to_mac, sent_to_ip));
    assert_eq!(&f[40..42], &[0, 0]);
    assert_eq!(p.esa, repr().esa);
}

#[test]
fn key_fields_and_flags() {
    let k = Key::new(15, 4095, 65535);
    assert_eq!((k.priority(), k.job(), k.seq()), (15, 4095, 65535));
    assert_eq!(k.0, u32::MAX);
    assert!(Key::new(1, 5, 9).same_chunk(Key::new(9, 5, 9)));
    assert!(!Key::new(1, 5, 9).same_chunk(Key::new(1, 5, 10)));
    assert_eq!(Key::new(1, 5, 9).with_priority(200), Key::new(15, 5, 9));
    assert_eq!(
        format!("{:?}", Flags::RESEND | Flags::OVERFLOW),
        "Flags(RESEND|OVERFLOW)"
    );
    assert_eq!(format!("{:?}", Flags(0x81)), "Flags(RESEND|0x80)");
}

fn any_repr() -> impl Strategy<Value = EsaRepr> {
    (
        prop::sample::select(PacketType::ALL.to_vec()),
        any::<u8>(),
        any::<u16>(),
        any::<u32>(),
        any::<u32>(),
        any::<u8>(),
        any::<u8>(),
        any::<i8>(),
        any::<u8>(),
    )
        .prop_map(
            |(packet_type, flags, slot, key, bitmap, fan_in, count, exponent, worker)| EsaRepr {
                packet_type,
                flags: Flags(flags),
                slot,
                key: Key(key),
                bitmap,
                fan_in,
                count,
                exponent,
                worker,
            },
        )
}

proptest! {
    #[test]
    fn esa_round_trip(esa in any_repr(), values in prop::collection::vec(any::<i32>(), 1..=64)) {
        let lanes = values.len();
        let payload = esa.to_payload(&values, lanes);
        let (back, back_values) = EsaRepr::from_payload(&payload, lanes).unwrap();
        prop_assert_eq!(back, esa);
        prop_assert_eq!(back_values, values);
    }

    #[test]
    fn frame_round_trip(esa in any_repr(), values in prop::collection::vec(any::<i32>(), 1..=8),
                        src in any::<[u8; 4]>(), dst in any::<[u8; 4]>()) {
        let lanes = values.len();
        let repr = FrameRepr { src_ip: Ipv4Addr(src), dst_ip: Ipv4Addr(dst), esa, ..repr() };
        let frame = repr.emit(&values, lanes);
        let p = ParsedFrame::parse(&frame, lanes).unwrap();
        prop_assert_eq!(p.esa, esa);
        prop_assert_eq!((p.ip.src, p.ip.dst), (Ipv4Addr(src), Ipv4Addr(dst)));
        prop_assert_eq!(p.payload.values().collect::<Vec<_>>(), values);
    }

    /// Any single-byte corruption of the fixed part is either still a valid
    /// frame or a typed error: never a panic.
    #[test]
    fn corruption_never_panics(at in 0usize..66, byte in any::<u8>(), lanes in 0usize..4) {
        let mut f = FRAME.to_vec();
        f[at] = byte;
        let _ = ParsedFrame::parse(&f, lanes);
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..200), lanes in 0usize..65) {
        let _ = ParsedFrame::parse(&bytes, lanes);
        let _ = EsaRepr::from_payload(&bytes, lanes);
        if let Ok(p) = EsaPacket::new_checked(&bytes[..], lanes) {
            prop_assert_eq!(p.values().count(), lanes);
        }
    }
}
