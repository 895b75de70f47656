//! BMv2's hash and checksum algorithms, as simple_switch computes them for
//! the v1model `hash()` extern and the checksum externs.
//!
//! BMv2 hashes a byte buffer built from the field list: the fields' bits are
//! concatenated most significant bit first, with no padding between fields,
//! and the last byte is padded with zero bits (bmv2 `calculations.cpp`,
//! `BufBuilder::Deparse`). Fields of invalid headers are left out of the
//! buffer entirely by BMv2; [`pack_fields`] packs whatever the caller passes,
//! so the caller drops those fields first.
//!
//! The algorithms (all facts from bmv2 `src/bm_sim/calculations.cpp` and
//! `crc_tables.h`):
//!
//! | v1model name   | BMv2 definition                                   | catalogue name   |
//! |----------------|---------------------------------------------------|------------------|
//! | `crc16`        | poly 0x8005, init 0, reflected in/out, xorout 0   | CRC-16/ARC       |
//! | `crc16_custom` | same defaults as `crc16`, reconfigurable          |                  |
//! | `crc32`        | poly 0x04C11DB7, init/xorout 0xFFFFFFFF, reflected| CRC-32 (IEEE)    |
//! | `crc32_custom` | same defaults as `crc32`, reconfigurable          |                  |
//! | `csum16`       | one's complement of the one's complement sum of 16-bit big-endian words, odd byte padded with 0 | Internet checksum |
//! | `xor16`        | XOR of 16-bit big-endian words, odd byte padded with 0 |             |
//! | `identity`     | the first (up to) 8 bytes as a big-endian number  |                  |
//! | `random`       | not a hash; a random number source                |                  |
//!
//! BMv2 also defines `crc8_custom` (poly 0x07, init 0, no reflection:
//! CRC-8/SMBUS), `crc64_custom` (poly 0x1B, init 0, reflected, xorout 0) and
//! `crcCCITT` (poly 0x1021, init 0xFFFF, no reflection: CRC-16/CCITT-FALSE);
//! they are provided as [`CrcSpec`] constants.
//!
//! The v1model `hash(out O result, in HashAlgorithm algo, in T base, in D
//! data, in M max)` stores `base + (h % max)` computed in 64-bit unsigned
//! arithmetic and truncated to `O`; a `max` of 0 is treated as 1, so the
//! result is `base` (bmv2 `targets/simple_switch/primitives.cpp`,
//! `modify_field_with_hash_based_offset`). See [`v1model_hash_result`].

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use crate::exec::bits::{BitType, Bits};

/// Errors from hash configuration or evaluation.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HashError {
    /// A CRC width outside 8..=64 bits.
    #[error("unsupported CRC width {0} (must be 8 to 64 bits)")]
    UnsupportedCrcWidth(u32),
    /// `HashAlgorithm.random` was asked for a hash value; it is a random
    /// number source, not a function of the data.
    #[error("HashAlgorithm.random is not a deterministic hash")]
    RandomIsNotAHash,
    /// An algorithm name that v1model does not define.
    #[error("unknown hash algorithm {0:?}")]
    UnknownAlgorithm(String),
}

/// Parameters of a CRC in the Rocksoft model used by BMv2's `crc_custom`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CrcSpec {
    /// Width of the CRC register in bits (8 to 64).
    pub width: u32,
    /// Generator polynomial, without the implicit top bit, not reflected.
    pub polynomial: u64,
    /// Initial register value (not reflected).
    pub initial: u64,
    /// Value XORed into the final register.
    pub final_xor: u64,
    /// Reflect each input byte before use.
    pub reflect_input: bool,
    /// Reflect the final register before the final XOR.
    pub reflect_output: bool,
}

impl CrcSpec {
    /// BMv2 `crc16` and the default of `crc16_custom` (CRC-16/ARC).
    pub const CRC16: CrcSpec = CrcSpec {
        width: 16,
        polynomial: 0x8005,
        initial: 0,
        final_xor: 0,
        reflect_input: true,
        reflect_output: true,
    };

    /// BMv2 `crc32` and the default of `crc32_custom` (CRC-32/ISO-HDLC).
    pub const CRC32: CrcSpec = CrcSpec {
        width: 32,
        polynomial: 0x04C1_1DB7,
        initial: 0xFFFF_FFFF,
        final_xor: 0xFFFF_FFFF,
        reflect_input: true,
        reflect_output: true,
    };

    /// BMv2 `crcCCITT` (CRC-16/CCITT-FALSE).
    pub const CRC_CCITT: CrcSpec = CrcSpec {
        width: 16,
        polynomial: 0x1021,
        initial: 0xFFFF,
        final_xor: 0,
        reflect_input: false,
        reflect_output: false,
    };

    /// Default of BMv2 `crc8_custom` (CRC-8/SMBUS).
    pub const CRC8_CUSTOM_DEFAULT: CrcSpec = CrcSpec {
        width: 8,
        polynomial: 0x07,
        initial: 0,
        final_xor: 0,
        reflect_input: false,
        reflect_output: false,
    };

    /// Default of BMv2 `crc64_custom`.
    pub const CRC64_CUSTOM_DEFAULT: CrcSpec = CrcSpec {
        width: 64,
        polynomial: 0x1B,
        initial: 0,
        final_xor: 0,
        reflect_input: true,
        reflect_output: true,
    };

    fn mask(self) -> u64 {
        if self.width >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width) - 1
        }
    }

    /// The `crc` crate's description of this CRC in a register of type `W`
    /// (which holds the width: [`Crc::new`] checks that).
    fn algorithm<W: crc::Width + TryFrom<u64> + Default>(self) -> crc::Algorithm<W> {
        let cast = |v: u64| W::try_from(v).unwrap_or_default();
        crc::Algorithm {
            width: self.width as u8,
            poly: cast(self.polynomial),
            init: cast(self.initial),
            refin: self.reflect_input,
            refout: self.reflect_output,
            xorout: cast(self.final_xor),
            // Catalogue facts the computation does not use.
            check: W::default(),
            residue: W::default(),
        }
    }
}

/// A CRC ready to run: a [`CrcSpec`] with its lookup table (from the `crc`
/// crate, in the smallest register that holds the width).
#[derive(Clone, Copy)]
pub struct Crc {
    spec: CrcSpec,
    engine: Engine,
}

#[derive(Clone, Copy)]
enum Engine {
    W8(&'static crc::Crc<u8>),
    W16(&'static crc::Crc<u16>),
    W32(&'static crc::Crc<u32>),
    W64(&'static crc::Crc<u64>),
}

impl std::fmt::Debug for Crc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Crc").field("spec", &self.spec).finish()
    }
}

static CRC16_ARC: crc::Crc<u16> = crc::Crc::<u16>::new(&crc::CRC_16_ARC);
static CRC32_ISO_HDLC: crc::Crc<u32> = crc::Crc::<u32>::new(&crc::CRC_32_ISO_HDLC);

/// BMv2 `crc16` (CRC-16/ARC), precomputed.
pub const CRC16: Crc = Crc {
    spec: CrcSpec::CRC16,
    engine: Engine::W16(&CRC16_ARC),
};

/// BMv2 `crc32` (CRC-32/ISO-HDLC), precomputed.
pub const CRC32: Crc = Crc {
    spec: CrcSpec::CRC32,
    engine: Engine::W32(&CRC32_ISO_HDLC),
};

/// The engines built so far, one per spec. The `crc` crate only takes
/// `'static` algorithms, so each distinct spec's algorithm and table are
/// leaked once (about 2 KiB at most) and shared from then on; specs come
/// from the program and the control plane, so there are few.
static ENGINES: Mutex<BTreeMap<CrcSpec, Engine>> = Mutex::new(BTreeMap::new());

fn leak<W>(
    spec: CrcSpec,
    new: fn(&'static crc::Algorithm<W>) -> crc::Crc<W>,
) -> &'static crc::Crc<W>
where
    W: crc::Width + TryFrom<u64> + Default,
{
    Box::leak(Box::new(new(Box::leak(Box::new(spec.algorithm())))))
}

impl Crc {
    /// A CRC for `spec`; widths outside 8..=64 are rejected.
    pub fn new(spec: CrcSpec) -> Result<Crc, HashError> {
        if !(8..=64).contains(&spec.width) {
            return Err(HashError::UnsupportedCrcWidth(spec.width));
        }
        let spec = CrcSpec {
            polynomial: spec.polynomial & spec.mask(),
            initial: spec.initial & spec.mask(),
            final_xor: spec.final_xor & spec.mask(),
            ..spec
        };
        let mut engines = ENGINES.lock().unwrap_or_else(PoisonError::into_inner);
        let engine = *engines.entry(spec).or_insert_with(|| match spec.width {
            8 => Engine::W8(leak(spec, crc::Crc::<u8>::new)),
            9..=16 => Engine::W16(leak(spec, crc::Crc::<u16>::new)),
            17..=32 => Engine::W32(leak(spec, crc::Crc::<u32>::new)),
            _ => Engine::W64(leak(spec, crc::Crc::<u64>::new)),
        });
        Ok(Crc { spec, engine })
    }

    /// The parameters in use.
    pub fn spec(&self) -> CrcSpec {
        self.spec
    }

    /// The CRC of `data`.
    pub fn checksum(&self, data: &[u8]) -> u64 {
        match self.engine {
            Engine::W8(c) => u64::from(c.checksum(data)),
            Engine::W16(c) => u64::from(c.checksum(data)),
            Engine::W32(c) => u64::from(c.checksum(data)),
            Engine::W64(c) => c.checksum(data),
        }
    }
}

/// BMv2 `crc16` of `data`.
pub fn crc16(data: &[u8]) -> u16 {
    CRC16_ARC.checksum(data)
}

/// BMv2 `crc32` of `data`.
pub fn crc32(data: &[u8]) -> u32 {
    CRC32_ISO_HDLC.checksum(data)
}

/// BMv2 `csum16`: the Internet checksum (RFC 1071) of `data`, as the 16-bit
/// value to store in a big-endian checksum field. A correct header gives 0.
pub fn csum16(data: &[u8]) -> u16 {
    let mut sum: u64 = 0;
    let mut words = data.chunks_exact(2);
    for w in &mut words {
        sum += u64::from(u16::from_be_bytes([w[0], w[1]]));
    }
    if let [last] = words.remainder() {
        sum += u64::from(*last) << 8;
    }
    while sum >> 16 != 0 {
        sum = (sum & 0xFFFF) + (sum >> 16);
    }
    !(sum as u16)
}

/// BMv2 `xor16`: XOR of the 16-bit big-endian words of `data`, an odd last
/// byte padded with a zero low byte.
pub fn xor16(data: &[u8]) -> u16 {
    data.chunks(2).fold(0u16, |acc, w| {
        let hi = w.first().copied().unwrap_or(0);
        let lo = w.get(1).copied().unwrap_or(0);
        acc ^ u16::from_be_bytes([hi, lo])
    })
}

/// BMv2 `identity`: the first (up to) 8 bytes of `data` as a big-endian number.
pub fn identity(data: &[u8]) -> u64 {
    data.iter()
        .take(8)
        .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
}

/// Concatenates the bit patterns of `fields` most significant bit first and
/// pads the end with zero bits to a whole byte, as BMv2 builds hash input.
pub fn pack_fields<'a>(fields: impl IntoIterator<Item = &'a Bits>) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::new();
    let mut nbits: usize = 0;
    for field in fields {
        let width = field.width() as usize;
        out.resize((nbits + width).div_ceil(8), 0);
        // The buffer was just sized to hold the field, so this cannot fail.
        if field.write_bits(&mut out, nbits).is_ok() {
            nbits += width;
        }
    }
    out
}

/// The v1model `HashAlgorithm` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HashAlgorithm {
    /// `crc32`.
    Crc32,
    /// `crc32_custom` (parameters set by the control plane; defaults to `crc32`).
    Crc32Custom,
    /// `crc16`.
    Crc16,
    /// `crc16_custom` (parameters set by the control plane; defaults to `crc16`).
    Crc16Custom,
    /// `random`: not a hash.
    Random,
    /// `identity`.
    Identity,
    /// `csum16`.
    Csum16,
    /// `xor16`.
    Xor16,
}

impl HashAlgorithm {
    /// The algorithm for a v1model enum member name such as `"crc16"`.
    pub fn from_name(name: &str) -> Result<HashAlgorithm, HashError> {
        Ok(match name {
            "crc32" => HashAlgorithm::Crc32,
            "crc32_custom" => HashAlgorithm::Crc32Custom,
            "crc16" => HashAlgorithm::Crc16,
            "crc16_custom" => HashAlgorithm::Crc16Custom,
            "random" => HashAlgorithm::Random,
            "identity" => HashAlgorithm::Identity,
            "csum16" => HashAlgorithm::Csum16,
            "xor16" => HashAlgorithm::Xor16,
            other => return Err(HashError::UnknownAlgorithm(other.to_string())),
        })
    }

    /// The v1model enum member name.
    pub fn name(self) -> &'static str {
        match self {
            HashAlgorithm::Crc32 => "crc32",
            HashAlgorithm::Crc32Custom => "crc32_custom",
            HashAlgorithm::Crc16 => "crc16",
            HashAlgorithm::Crc16Custom => "crc16_custom",
            HashAlgorithm::Random => "random",
            HashAlgorithm::Identity => "identity",
            HashAlgorithm::Csum16 => "csum16",
            HashAlgorithm::Xor16 => "xor16",
        }
    }

    /// The hash of `data` with the custom CRCs at their BMv2 defaults.
    pub fn compute(self, data: &[u8]) -> Result<u64, HashError> {
        self.compute_with(data, &CRC16, &CRC32)
    }

    /// The bits of a checksum `verify_checksum` compares with this
    /// algorithm's result: 32 for the CRC32s, 64 for `identity`, 16 for
    /// the rest.
    pub fn checksum_width(self) -> u32 {
        match self {
            HashAlgorithm::Crc32 | HashAlgorithm::Crc32Custom => 32,
            HashAlgorithm::Identity => 64,
            _ => 16,
        }
    }

    /// The hash of `data`, using `crc16_custom` / `crc32_custom` for the
    /// custom algorithms (BMv2 keeps their parameters per calculation).
    pub fn compute_with(
        self,
        data: &[u8],
        crc16_custom: &Crc,
        crc32_custom: &Crc,
    ) -> Result<u64, HashError> {
        Ok(match self {
            HashAlgorithm::Crc32 => u64::from(crc32(data)),
            HashAlgorithm::Crc32Custom => crc32_custom.checksum(data),
            HashAlgorithm::Crc16 => u64::from(crc16(data)),
            HashAlgorithm::Crc16Custom => crc16_custom.checksum(data),
            HashAlgorithm::Random => return Err(HashError::RandomIsNotAHash),
            HashAlgorithm::Identity => identity(data),
            HashAlgorithm::Csum16 => u64::from(csum16(data)),
            HashAlgorithm::Xor16 => u64::from(xor16(data)),
        })
    }
}

/// The value v1model's `hash()` writes to its result of type `result_ty`:
/// `base + (hash % max)` in wrapping 64-bit arithmetic (only the low 64 bits
/// of `base` and `max` take part), `max == 0` treated as 1, truncated to
/// `result_ty`.
pub fn v1model_hash_result(hash: u64, base: &Bits, max: &Bits, result_ty: BitType) -> Bits {
    let max = max.low_u64().max(1);
    let value = (hash % max).wrapping_add(base.low_u64());
    Bits::from_u64(result_ty, value)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CHECK: &[u8] = b"123456789";

    fn bit(w: u32, v: u128) -> Bits {
        Bits::from_u128(BitType::unsigned(w).unwrap(), v)
    }

    #[test]
    fn crc_check_values() {
        assert_eq!(crc32(CHECK), 0xCBF4_3926);
        assert_eq!(crc16(CHECK), 0xBB3D);
        let ccitt = Crc::new(CrcSpec::CRC_CCITT).unwrap();
        assert_eq!(ccitt.checksum(CHECK), 0x29B1);
        let crc8 = Crc::new(CrcSpec::CRC8_CUSTOM_DEFAULT).unwrap();
        assert_eq!(crc8.checksum(CHECK), 0xF4);
        assert_eq!(crc32(b""), 0);
        assert_eq!(crc16(&[0x01]), 0xC0C1);
    }

    #[test]
    fn generic_crc_matches_catalogue() {
        // CRC-32/MPEG-2: not reflected.
        let mpeg2 = Crc::new(CrcSpec {
            width: 32,
            polynomial: 0x04C1_1DB7,
            initial: 0xFFFF_FFFF,
            final_xor: 0,
            reflect_input: false,
            reflect_output: false,
        })
        .unwrap();
        assert_eq!(mpeg2.checksum(CHECK), 0x0376_E6E7);
        // CRC-16/XMODEM.
        let xmodem = Crc::new(CrcSpec {
            width: 16,
            polynomial: 0x1021,
            initial: 0,
            final_xor: 0,
            reflect_input: false,
            reflect_output: false,
        })
        .unwrap();
        assert_eq!(xmodem.checksum(CHECK), 0x31C3);
        // CRC-64/GO-ISO exercises the 64-bit path of crc64_custom's polynomial.
        let go_iso = Crc::new(CrcSpec {
            initial: u64::MAX,
            final_xor: u64::MAX,
            ..CrcSpec::CRC64_CUSTOM_DEFAULT
        })
        .unwrap();
        assert_eq!(go_iso.checksum(CHECK), 0xB909_56C7_75A4_1001);
        // Widths between the register sizes, and reflect_input without
        // reflect_output (catalogue check values).
        let spec = |width, polynomial, initial, final_xor, reflect_input, reflect_output| {
            Crc::new(CrcSpec {
                width,
                polynomial,
                initial,
                final_xor,
                reflect_input,
                reflect_output,
            })
            .unwrap()
        };
        let can = spec(15, 0x4599, 0, 0, false, false);
        assert_eq!(can.checksum(CHECK), 0x059E, "CRC-15/CAN");
        let umts = spec(12, 0x80F, 0, 0, false, true);
        assert_eq!(umts.checksum(CHECK), 0xDAF, "CRC-12/UMTS");
        let openpgp = spec(24, 0x86_4CFB, 0xB7_04CE, 0, false, false);
        assert_eq!(openpgp.checksum(CHECK), 0x21_CF02, "CRC-24/OPENPGP");
        let gsm = spec(40, 0x00_0482_0009, 0, 0xFF_FFFF_FFFF, false, false);
        assert_eq!(gsm.checksum(CHECK), 0xD4_164F_C646, "CRC-40/GSM");
        // Parameters wider than the register are cut to it.
        let wide = spec(16, 0x1_8005, 0xF_0000, 0xF_0000, true, true);
        assert_eq!(wide.spec(), CrcSpec::CRC16);
        assert_eq!(wide.checksum(CHECK), 0xBB3D);
        // One table per spec, however often it is asked for.
        let (Engine::W16(a), Engine::W16(b)) =
            (can.engine, spec(15, 0x4599, 0, 0, false, false).engine)
        else {
            panic!("CRC-15 runs in a 16-bit register");
        };
        assert!(std::ptr::eq(a, b));
        // The runtime-built tables agree with the precomputed ones.
        assert_eq!(
            Crc::new(CrcSpec::CRC32).unwrap().checksum(CHECK),
            0xCBF4_3926
        );
        assert_eq!(Crc::new(CrcSpec::CRC16).unwrap().checksum(CHECK), 0xBB3D);
        assert_eq!(
            Crc::new(CrcSpec {
                width: 4,
                ..CrcSpec::CRC16
            })
            .unwrap_err(),
            HashError::UnsupportedCrcWidth(4)
        );
    }

    #[test]
    fn ipv4_header_checksum() {
        // 20-byte IPv4 header, checksum 0xb861 (RFC 1071 style example).
        let mut header = [
            0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11, 0xb8, 0x61, 0xc0, 0xa8,
            0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
        ];
        assert_eq!(csum16(&header), 0, "a valid header sums to zero");
        header[10] = 0;
        header[11] = 0;
        assert_eq!(csum16(&header), 0xB861);
        // The v1model way: the field list without the checksum field.
        let without: Vec<u8> = header[..10].iter().chain(&header[12..]).copied().collect();
        assert_eq!(csum16(&without), 0xB861);
        assert_eq!(csum16(&[]), 0xFFFF);
        assert_eq!(csum16(&[0x12]), !0x1200);
        assert_eq!(csum16(&[0xFF, 0xFF, 0xFF, 0xFF]), 0);
    }

    #[test]
    fn xor16_and_identity() {
        assert_eq!(xor16(&[0x12, 0x34, 0x56, 0x78, 0x9a]), 0xDE4C);
        assert_eq!(xor16(&[]), 0);
        assert_eq!(identity(&[1, 2, 3]), 0x010203);
        assert_eq!(
            identity(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10]),
            0x0102_0304_0506_0708
        );
    }

    #[test]
    fn field_packing_is_bitwise() {
        let packed = pack_fields([&bit(4, 0xA), &bit(9, 0x1FF)]);
        assert_eq!(packed, vec![0xAF, 0xF8]);
        assert_eq!(pack_fields([&bit(12, 0xABC)]), vec![0xAB, 0xC0]);
        assert_eq!(
            pack_fields([&bit(32, 0x0A00_0001), &bit(16, 80)]),
            vec![10, 0, 0, 1, 0, 80]
        );
        assert!(pack_fields(std::iter::empty()).is_empty());
        // identity of a non-byte-aligned list sees the padding.
        assert_eq!(
            HashAlgorithm::Identity.compute(&pack_fields([&bit(12, 0xABC)])),
            Ok(0xABC0)
        );
    }

    #[test]
    fn v1model_hash_formula() {
        let ty = BitType::unsigned(16).unwrap();
        let h = HashAlgorithm::Crc16.compute(CHECK).unwrap();
        assert_eq!(h, 0xBB3D);
        let r = v1model_hash_result(h, &bit(16, 100), &bit(32, 1024), ty);
        assert_eq!(r, bit(16, 100 + (0xBB3D % 1024)));
        // max == 0 gives base.
        assert_eq!(
            v1model_hash_result(h, &bit(16, 7), &bit(32, 0), ty),
            bit(16, 7)
        );
        // The sum is truncated to the result width.
        let small = BitType::unsigned(8).unwrap();
        assert_eq!(
            v1model_hash_result(0x1FF, &bit(8, 0x10), &bit(32, 0x1000), small),
            bit(8, 0x0F)
        );
        assert_eq!(
            HashAlgorithm::Random.compute(CHECK),
            Err(HashError::RandomIsNotAHash)
        );
        assert_eq!(HashAlgorithm::from_name("xor16"), Ok(HashAlgorithm::Xor16));
        assert!(HashAlgorithm::from_name("crc8").is_err());
        for algo in [
            HashAlgorithm::Crc32,
            HashAlgorithm::Crc32Custom,
            HashAlgorithm::Crc16,
            HashAlgorithm::Crc16Custom,
            HashAlgorithm::Random,
            HashAlgorithm::Identity,
            HashAlgorithm::Csum16,
            HashAlgorithm::Xor16,
        ] {
            assert_eq!(HashAlgorithm::from_name(algo.name()), Ok(algo));
        }
        assert_eq!(HashAlgorithm::Crc32Custom.compute(CHECK), Ok(0xCBF4_3926));
    }
}
