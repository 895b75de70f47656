//! The ESA header and its value lanes (`docs/protocol.md` §2.2).

use super::{Layer, WireError, check_len, read_u16, read_u32, write_u16, write_u32};
use crate::constants::{ESA_VERSION, HEADER_LEN, MAX_PRIORITY};
use std::fmt;

/// `priority (4) | job (12) | seq (16)` as one 32-bit word.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Key(pub u32);

impl Key {
    /// Mask of the chunk part (job and seq) of a key.
    pub const CHUNK_MASK: u32 = 0x0fff_ffff;

    /// Builds a key; `priority` above 15 and `job` above 4095 are truncated
    /// to their field widths.
    pub const fn new(priority: u8, job: u16, seq: u16) -> Key {
        Key(((priority as u32 & 0xf) << 28) | ((job as u32 & 0xfff) << 16) | seq as u32)
    }
    /// Priority (larger wins).
    pub const fn priority(self) -> u8 {
        (self.0 >> 28) as u8
    }
    /// Job id.
    pub const fn job(self) -> u16 {
        ((self.0 >> 16) & 0xfff) as u16
    }
    /// Chunk sequence number within the job.
    pub const fn seq(self) -> u16 {
        self.0 as u16
    }
    /// The chunk identity (job and seq) without the priority.
    pub const fn chunk(self) -> u32 {
        self.0 & Self::CHUNK_MASK
    }
    /// Whether two keys name the same chunk, whatever their priorities.
    pub const fn same_chunk(self, other: Key) -> bool {
        self.chunk() == other.chunk()
    }
    /// The same chunk with another priority (clamped to 15).
    pub const fn with_priority(self, priority: u8) -> Key {
        let p = if priority > MAX_PRIORITY {
            MAX_PRIORITY
        } else {
            priority
        };
        Key((self.0 & Self::CHUNK_MASK) | ((p as u32) << 28))
    }
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Key(p{} j{} s{})",
            self.priority(),
            self.job(),
            self.seq()
        )
    }
}

/// ESA packet types (`docs/protocol.md` §2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum PacketType {
    /// A worker's contribution, worker to switch.
    Data = 1,
    /// A complete sum, to the job's group.
    Result = 2,
    /// A DATA packet the switch did not aggregate, to the job's PS.
    Fallback = 3,
    /// A partial sum preempted or reclaimed from its slot, to its job's PS.
    Evicted = 4,
    /// A partial sum handed to the PS on a resend.
    Flush = 5,
    /// A PS asking the group for a result it lacks.
    Query = 6,
    /// A worker asking, at a timeout, whether its contribution to a chunk
    /// is held (in a slot or at the PS); not a retransmission.
    Probe = 7,
    /// The answer to a `PROBE`: the contribution is held, the chunk is
    /// still aggregating; keep waiting.
    Pending = 8,
    /// The PS's answer to a `PROBE`: neither the slot nor the PS holds the
    /// contribution; resend it.
    Missing = 9,
    /// A PS asking the switch for a chunk's partial sum held in a slot
    /// while other parts of the chunk are at the PS.
    Pull = 10,
}

impl PacketType {
    /// Every type, in code order.
    pub const ALL: [PacketType; 10] = [
        PacketType::Data,
        PacketType::Result,
        PacketType::Fallback,
        PacketType::Evicted,
        PacketType::Flush,
        PacketType::Query,
        PacketType::Probe,
        PacketType::Pending,
        PacketType::Missing,
        PacketType::Pull,
    ];

    /// The type with this code.
    pub fn from_code(code: u8) -> Result<PacketType, WireError> {
        PacketType::ALL
            .into_iter()
            .find(|t| *t as u8 == code)
            .ok_or(WireError::UnknownType(code))
    }

    /// Whether a PS receives this type as a part of a chunk to merge.
    pub const fn is_part(self) -> bool {
        matches!(
            self,
            PacketType::Fallback | PacketType::Evicted | PacketType::Flush
        )
    }
}

/// The flags byte (`docs/protocol.md` §2.4).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Flags(pub u8);

impl Flags {
    /// No flag.
    pub const NONE: Flags = Flags(0);
    /// A retransmission.
    pub const RESEND: Flags = Flags(0x01);
    /// The slot was held by a chunk that could not be evicted.
    pub const COLLISION: Flags = Flags(0x02);
    /// A contribution saturated; the sum is not exact.
    pub const OVERFLOW: Flags = Flags(0x04);
    /// Evicted because stale, not preempted.
    pub const STALE: Flags = Flags(0x08);
    /// Congestion mark (reserved).
    pub const ECN: Flags = Flags(0x10);
    /// On a `PROBE` the switch forwards to the PS: the slot holds the
    /// worker's contribution in a partial that is still aggregating.
    pub const HELD: Flags = Flags(0x20);
    /// The packet's `bitmap`, `count` and `fan_in` count racks, not
    /// workers: a tree job's level-1 packet (`docs/protocol.md` §9.2).
    pub const UPPER: Flags = Flags(0x40);

    /// Whether every flag of `other` is set here.
    pub const fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }
    /// Both sets of flags.
    pub const fn union(self, other: Flags) -> Flags {
        Flags(self.0 | other.0)
    }
    /// These flags without those of `other`.
    pub const fn without(self, other: Flags) -> Flags {
        Flags(self.0 & !other.0)
    }
}

impl std::ops::BitOr for Flags {
    type Output = Flags;
    fn bitor(self, rhs: Flags) -> Flags {
        self.union(rhs)
    }
}

impl fmt::Debug for Flags {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = [
            (Flags::RESEND, "RESEND"),
            (Flags::COLLISION, "COLLISION"),
            (Flags::OVERFLOW, "OVERFLOW"),
            (Flags::STALE, "STALE"),
            (Flags::ECN, "ECN"),
            (Flags::HELD, "HELD"),
            (Flags::UPPER, "UPPER"),
        ];
        let mut first = true;
        write!(f, "Flags(")?;
        for (flag, name) in names {
            if self.contains(flag) {
                write!(f, "{}{name}", if first { "" } else { "|" })?;
                first = false;
            }
        }
        let unknown = self.0 & 0x80;
        if unknown != 0 {
            write!(f, "{}{unknown:#04x}", if first { "" } else { "|" })?;
        }
        write!(f, ")")
    }
}

mod field {
    pub const VER_TYPE: usize = 0;
    pub const FLAGS: usize = 1;
    pub const SLOT: usize = 2;
    pub const KEY: usize = 4;
    pub const BITMAP: usize = 8;
    pub const FAN_IN: usize = 12;
    pub const COUNT: usize = 13;
    pub const EXPONENT: usize = 14;
    pub const WORKER: usize = 15;
}

/// A byte view of an ESA payload: the header and its lanes.
#[derive(Debug, Clone)]
pub struct EsaPacket<T: AsRef<[u8]>> {
    pub(super) buffer: T,
}

impl<T: AsRef<[u8]>> EsaPacket<T> {
    /// Wraps a buffer that is exactly a header and `lanes` lanes.
    pub fn new_checked(buffer: T, lanes: usize) -> Result<Self, WireError> {
        let have = buffer.as_ref().len();
        check_len(Layer::Esa, HEADER_LEN, have)?;
        if have != HEADER_LEN + 4 * lanes {
            return Err(WireError::BadLanes { lanes, have });
        }
        Ok(EsaPacket { buffer })
    }

    fn b(&self) -> &[u8] {
        self.buffer.as_ref()
    }
    /// Version nibble.
    pub fn version(&self) -> u8 {
        self.b()[field::VER_TYPE] >> 4
    }
    /// Packet type code nibble.
    pub fn type_code(&self) -> u8 {
        self.b()[field::VER_TYPE] & 0x0f
    }
    /// Flags.
    pub fn flags(&self) -> Flags {
        Flags(self.b()[field::FLAGS])
    }
    /// Slot index relative to the job's range.
    pub fn slot(&self) -> u16 {
        read_u16(self.b(), field::SLOT)
    }
    /// Key.
    pub fn key(&self) -> Key {
        Key(read_u32(self.b(), field::KEY))
    }
    /// Worker bitmap.
    pub fn bitmap(&self) -> u32 {
        read_u32(self.b(), field::BITMAP)
    }
    /// Fan-in.
    pub fn fan_in(&self) -> u8 {
        self.b()[field::FAN_IN]
    }
    /// Number of contributions.
    pub fn count(&self) -> u8 {
        self.b()[field::COUNT]
    }
    /// Quantization exponent.
    pub fn exponent(&self) -> i8 {
        self.b()[field::EXPONENT] as i8
    }
    /// Worker id of the sender.
    pub fn worker(&self) -> u8 {
        self.b()[field::WORKER]
    }
    /// Number of lanes.
    pub fn lanes(&self) -> usize {
        (self.b().len() - HEADER_LEN) / 4
    }
    /// Lane `i`.
    ///
    /// # Panics
    /// If `i >= self.lanes()`.
    pub fn value(&self, i: usize) -> i32 {
        read_u32(self.b(), HEADER_LEN + 4 * i) as i32
    }
    /// All lanes in order.
    pub fn values(&self) -> impl ExactSizeIterator<Item = i32> + '_ {
        self.b()[HEADER_LEN..]
            .chunks_exact(4)
            .map(|c| i32::from_be_bytes([c[0], c[1], c[2], c[3]]))
    }
    /// The lanes as bytes (big-endian int32 each).
    pub fn lanes_bytes(&self) -> &[u8] {
        &self.b()[HEADER_LEN..]
    }
    /// Copies the lanes into `out`, which must have `lanes()` elements.
    pub fn read_values(&self, out: &mut [i32]) {
        for (o, v) in out.iter_mut().zip(self.values()) {
            *o = v;
        }
    }
}

impl<T: AsRef<[u8]> + AsMut<[u8]>> EsaPacket<T> {
    fn bm(&mut self) -> &mut [u8] {
        self.buffer.as_mut()
    }
    /// Sets the packet type (the version nibble is set too).
    pub fn set_packet_type(&mut self, t: PacketType) {
        self.bm()[field::VER_TYPE] = (ESA_VERSION << 4) | t as u8;
    }
    /// Sets the flags.
    pub fn set_flags(&mut self, flags: Flags) {
        self.bm()[field::FLAGS] = flags.0;
    }
    /// Sets the slot.
    pub fn set_slot(&mut self, slot: u16) {
        write_u16(self.bm(), field::SLOT, slot);
    }
    /// Sets the key.
    pub fn set_key(&mut self, key: Key) {
        write_u32(self.bm(), field::KEY, key.0);
    }
    /// Sets the bitmap.
    pub fn set_bitmap(&mut self, bitmap: u32) {
        write_u32(self.bm(), field::BITMAP, bitmap);
    }
    /// Sets the fan-in.
    pub fn set_fan_in(&mut self, fan_in: u8) {
        self.bm()[field::FAN_IN] = fan_in;
    }
    /// Sets the count.
    pub fn set_count(&mut self, count: u8) {
        self.bm()[field::COUNT] = count;
    }
    /// Sets the exponent.
    pub fn set_exponent(&mut self, e: i8) {
        self.bm()[field::EXPONENT] = e as u8;
    }
    /// Sets the worker id.
    pub fn set_worker(&mut self, worker: u8) {
        self.bm()[field::WORKER] = worker;
    }
    /// Sets lane `i`.
    ///
    /// # Panics
    /// If `i >= self.lanes()`.
    pub fn set_value(&mut self, i: usize, v: i32) {
        write_u32(self.bm(), HEADER_LEN + 4 * i, v as u32);
    }
    /// Writes `values` into the lanes; missing lanes become 0.
    pub fn write_values(&mut self, values: &[i32]) {
        let lanes = self.bm()[HEADER_LEN..].chunks_exact_mut(4);
        let mut values = values.iter();
        for lane in lanes {
            let v = values.next().copied().unwrap_or(0);
            lane.copy_from_slice(&v.to_be_bytes());
        }
    }
}

/// The parsed ESA header (the lanes are read through [`EsaPacket`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EsaRepr {
    /// Packet type.
    pub packet_type: PacketType,
    /// Flags.
    pub flags: Flags,
    /// Slot index relative to the job's range.
    pub slot: u16,
    /// Priority, job and seq.
    pub key: Key,
    /// Workers whose values the lanes hold.
    pub bitmap: u32,
    /// The job's number of workers.
    pub fan_in: u8,
    /// Number of contributions in the lanes.
    pub count: u8,
    /// Quantization exponent.
    pub exponent: i8,
    /// Worker id of the original sender.
    pub worker: u8,
}

impl EsaRepr {
    /// Reads and validates the header.
    pub fn parse<T: AsRef<[u8]>>(packet: &EsaPacket<T>) -> Result<EsaRepr, WireError> {
        if packet.version() != ESA_VERSION {
            return Err(WireError::BadVersion(packet.version()));
        }
        Ok(EsaRepr {
            packet_type: PacketType::from_code(packet.type_code())?,
            flags: packet.flags(),
            slot: packet.slot(),
            key: packet.key(),
            bitmap: packet.bitmap(),
            fan_in: packet.fan_in(),
            count: packet.count(),
            exponent: packet.exponent(),
            worker: packet.worker(),
        })
    }

    /// Header length in bytes.
    pub const fn buffer_len(&self) -> usize {
        HEADER_LEN
    }

    /// Writes the header (not the lanes).
    pub fn emit<T: AsRef<[u8]> + AsMut<[u8]>>(&self, packet: &mut EsaPacket<T>) {
        packet.set_packet_type(self.packet_type);
        packet.set_flags(self.flags);
        packet.set_slot(self.slot);
        packet.set_key(self.key);
        packet.set_bitmap(self.bitmap);
        packet.set_fan_in(self.fan_in);
        packet.set_count(self.count);
        packet.set_exponent(self.exponent);
        packet.set_worker(self.worker);
    }

    /// A whole ESA payload with this header and `values` in `lanes` lanes
    /// (missing values are 0).
    pub fn to_payload(&self, values: &[i32], lanes: usize) -> Vec<u8> {
        let mut buf = vec![0u8; HEADER_LEN + 4 * lanes];
        let mut p = EsaPacket {
            buffer: &mut buf[..],
        };
        self.emit(&mut p);
        p.write_values(values);
        buf
    }

    /// Parses a whole ESA payload into its header and lanes.
    pub fn from_payload(payload: &[u8], lanes: usize) -> Result<(EsaRepr, Vec<i32>), WireError> {
        let p = EsaPacket::new_checked(payload, lanes)?;
        let repr = EsaRepr::parse(&p)?;
        Ok((repr, p.values().collect()))
    }
}
