//! Whole ESA frames: Ethernet / IPv4 / UDP / ESA header / lanes.

use super::{
    EsaPacket, EsaRepr, EthernetFrame, EthernetRepr, Ipv4Addr, Ipv4Packet, Ipv4Repr, Layer,
    MacAddr, UdpPacket, UdpRepr, WireError, check_len,
};
use crate::constants::{
    ESA_UDP_PORT, ETHERNET_LEN, ETHERTYPE_IPV4, IP_PROTO_UDP, IPV4_LEN, UDP_LEN, esa_frame_len,
    esa_payload_len,
};

/// Byte offset of the ESA header in a frame.
pub const ESA_OFFSET: usize = ETHERNET_LEN + IPV4_LEN + UDP_LEN;

impl WireError {
    /// Whether the error only says the frame is not an ESA packet (another
    /// EtherType, protocol or port), as opposed to a broken ESA packet.
    pub fn is_not_esa(&self) -> bool {
        matches!(
            self,
            WireError::NotIpv4(_)
                | WireError::BadIpVersion(_)
                | WireError::NotUdp(_)
                | WireError::NotEsaPort(_)
                | WireError::IpOptions(_)
                | WireError::Fragment(_)
        )
    }
}

/// A parsed ESA frame borrowing its lanes from the buffer.
#[derive(Debug, Clone)]
pub struct ParsedFrame<'a> {
    /// Ethernet header.
    pub eth: EthernetRepr,
    /// IPv4 header.
    pub ip: Ipv4Repr,
    /// UDP header.
    pub udp: UdpRepr,
    /// ESA header.
    pub esa: EsaRepr,
    /// The ESA payload (header and lanes).
    pub payload: EsaPacket<&'a [u8]>,
}

impl<'a> ParsedFrame<'a> {
    /// Parses a frame that must be an ESA packet with `lanes` lanes, checking
    /// in the order the P4 parser and ingress do (`docs/protocol.md` §2.1),
    /// so that both agree on which frames are *not ESA* (left to L2) and
    /// which are *malformed* (dropped):
    ///
    /// 1. Ethernet header present (else truncated); EtherType IPv4 (else not ESA);
    /// 2. IPv4 header present (else truncated); version 4, IHL 5, not a
    ///    fragment, protocol UDP (else not ESA);
    /// 3. UDP header present (else truncated); destination port
    ///    [`ESA_UDP_PORT`] (else not ESA);
    /// 4. ESA header and lanes present (else truncated); IPv4 total length
    ///    and UDP length exactly those of `lanes` lanes; ESA version and type
    ///    known; IPv4 checksum right.
    ///
    /// Bytes after the ESA lanes (Ethernet padding) are ignored.
    pub fn parse(bytes: &'a [u8], lanes: usize) -> Result<ParsedFrame<'a>, WireError> {
        let eth = EthernetRepr::parse(&EthernetFrame::new_checked(bytes)?);
        if eth.ethertype != ETHERTYPE_IPV4 {
            return Err(WireError::NotIpv4(eth.ethertype));
        }
        check_len(Layer::Ipv4, ETHERNET_LEN + IPV4_LEN, bytes.len())?;
        let ip_header = &bytes[ETHERNET_LEN..ETHERNET_LEN + IPV4_LEN];
        let version = ip_header[0] >> 4;
        if version != 4 {
            return Err(WireError::BadIpVersion(version));
        }
        let ihl = ip_header[0] & 0x0f;
        if ihl != 5 {
            return Err(WireError::IpOptions(ihl));
        }
        let flags_frag = u16::from_be_bytes([ip_header[6], ip_header[7]]);
        if flags_frag & 0x3fff != 0 {
            return Err(WireError::Fragment(flags_frag));
        }
        if ip_header[9] != IP_PROTO_UDP {
            return Err(WireError::NotUdp(ip_header[9]));
        }
        check_len(Layer::Udp, ESA_OFFSET, bytes.len())?;
        let udp_header = &bytes[ETHERNET_LEN + IPV4_LEN..ESA_OFFSET];
        let dst_port = u16::from_be_bytes([udp_header[2], udp_header[3]]);
        if dst_port != ESA_UDP_PORT {
            return Err(WireError::NotEsaPort(dst_port));
        }
        let payload_len = esa_payload_len(lanes);
        check_len(Layer::Esa, ESA_OFFSET + payload_len, bytes.len())?;
        let frame = &bytes[..ESA_OFFSET + payload_len];
        let ip_packet = Ipv4Packet::new_checked(&frame[ETHERNET_LEN..])?;
        let total = usize::from(ip_packet.total_len());
        if total != IPV4_LEN + UDP_LEN + payload_len {
            return Err(WireError::BadLength {
                layer: Layer::Ipv4,
                field: total,
                available: IPV4_LEN + UDP_LEN + payload_len,
            });
        }
        let udp_packet = UdpPacket::new_checked(&frame[ETHERNET_LEN + IPV4_LEN..])?;
        if usize::from(udp_packet.len()) != UDP_LEN + payload_len {
            return Err(WireError::BadLength {
                layer: Layer::Udp,
                field: usize::from(udp_packet.len()),
                available: UDP_LEN + payload_len,
            });
        }
        let payload = EsaPacket::new_checked(&frame[ESA_OFFSET..], lanes)?;
        let esa = EsaRepr::parse(&payload)?;
        let ip = Ipv4Repr::parse(&ip_packet)?;
        let udp = UdpRepr::parse(&udp_packet);
        Ok(ParsedFrame {
            eth,
            ip,
            udp,
            esa,
            payload,
        })
    }
}

/// Everything needed to build an ESA frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrameRepr {
    /// Source MAC.
    pub src_mac: MacAddr,
    /// Destination MAC.
    pub dst_mac: MacAddr,
    /// Source IPv4 address.
    pub src_ip: Ipv4Addr,
    /// Destination IPv4 address.
    pub dst_ip: Ipv4Addr,
    /// The ESA header.
    pub esa: EsaRepr,
}

impl FrameRepr {
    /// Builds the frame bytes with `values` in `lanes` lanes (missing values
    /// are 0). TTL is 64, identification 0, DF set, UDP ports both
    /// [`ESA_UDP_PORT`], UDP checksum 0.
    pub fn emit(&self, values: &[i32], lanes: usize) -> Vec<u8> {
        let mut buf = vec![0u8; esa_frame_len(lanes)];
        let payload_len = esa_payload_len(lanes);
        let mut eth = EthernetFrame {
            buffer: &mut buf[..],
        };
        EthernetRepr {
            dst: self.dst_mac,
            src: self.src_mac,
            ethertype: ETHERTYPE_IPV4,
        }
        .emit(&mut eth);
        Ipv4Repr {
            src: self.src_ip,
            dst: self.dst_ip,
            protocol: IP_PROTO_UDP,
            payload_len: UDP_LEN + payload_len,
            ttl: 64,
            dscp_ecn: 0,
            ident: 0,
            flags_frag: 0x4000,
        }
        .emit(&mut buf[ETHERNET_LEN..]);
        UdpRepr {
            src_port: ESA_UDP_PORT,
            dst_port: ESA_UDP_PORT,
            payload_len,
        }
        .emit(&mut buf[ETHERNET_LEN + IPV4_LEN..]);
        let mut esa = EsaPacket {
            buffer: &mut buf[ESA_OFFSET..],
        };
        self.esa.emit(&mut esa);
        esa.write_values(values);
        buf
    }
}

/// Readdresses an ESA frame for the host behind an egress port
/// (`docs/protocol.md` §3.1): the destination MAC and IPv4 address become
/// the host's, the source MAC and IPv4 address become the destination the
/// frame arrived with (the switch's address, which hosts send to), the IPv4
/// checksum is recomputed and the UDP checksum set to 0.
///
/// Taking the source from the arriving destination matters on real
/// networks: a RESULT built from a worker's DATA would otherwise reach that
/// worker with its own address as the source, which Linux drops as a
/// martian.
///
/// The frame must already have parsed as an ESA frame; shorter buffers are
/// left untouched and reported.
pub fn rewrite_destination(frame: &mut [u8], mac: MacAddr, ip: Ipv4Addr) -> Result<(), WireError> {
    super::check_len(Layer::Esa, ESA_OFFSET, frame.len())?;
    let mut eth = EthernetFrame {
        buffer: &mut frame[..],
    };
    let arrived_to = eth.dst();
    eth.set_src(arrived_to);
    eth.set_dst(mac);
    let mut ip_packet = Ipv4Packet::new_checked(&mut frame[ETHERNET_LEN..])?;
    let arrived_to = ip_packet.dst();
    ip_packet.set_src(arrived_to);
    ip_packet.set_dst(ip);
    ip_packet.fill_checksum();
    clear_udp_checksum(frame);
    Ok(())
}

/// Sets the UDP checksum of a frame to 0 (the switch does this to every ESA
/// packet it emits, since it changes the payload).
pub fn clear_udp_checksum(frame: &mut [u8]) {
    let at = ETHERNET_LEN + IPV4_LEN + 6;
    if frame.len() >= at + 2 {
        frame[at..at + 2].fill(0);
    }
}

/// The ESA payload (header and lanes) of a frame, writable. The frame must
/// be at least [`ESA_OFFSET`] bytes long.
pub fn esa_payload_mut(frame: &mut [u8]) -> &mut [u8] {
    &mut frame[ESA_OFFSET..]
}
