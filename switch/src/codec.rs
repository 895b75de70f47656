//! P4Runtime's bytestrings (spec §8.4) against the fields they fill:
//! big-endian, canonically with no leading zero bytes (the form itself is
//! [`p4runtime_proto::bytestring`]'s). Non-canonical strings with leading
//! zeros are accepted when the value fits the field.

use p4runtime_proto::bytestring::canonical;
use p4sim::exec::bits::{BitType, Bits};

/// A bytestring that does not suit its field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ValueError {
    /// No bytes at all.
    Empty,
    /// The value needs more bits than the field has.
    TooWide {
        /// Field width.
        width: u32,
        /// Bits the value needs.
        needed: u32,
    },
}

impl std::fmt::Display for ValueError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ValueError::Empty => write!(f, "empty bytestring"),
            ValueError::TooWide { width, needed } => {
                write!(f, "value needs {needed} bits, the field has {width}")
            }
        }
    }
}

/// Bits a big-endian value needs (0 for zero).
pub fn significant_bits(bytes: &[u8]) -> u32 {
    match bytes.iter().position(|b| *b != 0) {
        None => 0,
        Some(i) => (bytes.len() - i - 1) as u32 * 8 + (8 - bytes[i].leading_zeros()),
    }
}

/// Checks a bytestring against a field of `width` bits and returns its
/// canonical form.
pub fn check(bytes: &[u8], width: u32) -> Result<Vec<u8>, ValueError> {
    if bytes.is_empty() {
        return Err(ValueError::Empty);
    }
    let needed = significant_bits(bytes);
    if needed > width {
        return Err(ValueError::TooWide { width, needed });
    }
    Ok(canonical(bytes))
}

/// A bytestring as a p4sim value of `width` bits.
pub fn to_bits(bytes: &[u8], width: u32) -> Result<Bits, ValueError> {
    let canon = check(bytes, width)?;
    let ty = BitType::unsigned(width.max(1)).map_err(|_| ValueError::TooWide {
        width,
        needed: significant_bits(bytes),
    })?;
    Ok(Bits::from_be_bytes(ty, &canon))
}

/// A p4sim value as a canonical bytestring.
pub fn from_bits(value: &Bits) -> Vec<u8> {
    canonical(&value.to_be_bytes())
}

/// A bytestring as a number, if it fits in 64 bits.
pub fn to_u64(bytes: &[u8]) -> Option<u64> {
    if bytes.is_empty() || significant_bits(bytes) > 64 {
        return None;
    }
    Some(bytes.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b)))
}

/// Bitwise AND of two big-endian values (the shorter one zero-extended).
pub fn and(a: &[u8], b: &[u8]) -> Vec<u8> {
    let n = a.len().max(b.len());
    let pad = |x: &[u8]| {
        let mut v = vec![0u8; n - x.len()];
        v.extend_from_slice(x);
        v
    };
    let (a, b) = (pad(a), pad(b));
    a.iter().zip(&b).map(|(x, y)| x & y).collect()
}

/// Compares two big-endian unsigned values of any lengths.
pub fn cmp(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let (a, b) = (canonical(a), canonical(b));
    a.len().cmp(&b.len()).then_with(|| a.cmp(&b))
}

/// All ones in `width` bits, canonical.
pub fn ones(width: u32) -> Vec<u8> {
    let n = width.div_ceil(8) as usize;
    let mut v = vec![0xffu8; n];
    if !width.is_multiple_of(8) {
        v[0] = (1u8 << (width % 8)) - 1;
    }
    canonical(&v)
}

/// The mask of the top `prefix` bits of a `width`-bit field, canonical.
pub fn prefix_mask(width: u32, prefix: u32) -> Vec<u8> {
    let n = width.div_ceil(8) as usize;
    let mut v = vec![0u8; n];
    for bit in (width - prefix.min(width))..width {
        let byte = n - 1 - (bit / 8) as usize;
        v[byte] |= 1 << (bit % 8);
    }
    canonical(&v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_forms() {
        assert_eq!(check(&[0, 0, 5], 9), Ok(vec![5]));
        assert_eq!(check(&[0], 1), Ok(vec![0]));
        assert_eq!(check(&[0, 0], 48), Ok(vec![0]));
        assert_eq!(check(&[1, 0xff], 9), Ok(vec![1, 0xff]));
        assert_eq!(
            check(&[2, 0], 9),
            Err(ValueError::TooWide {
                width: 9,
                needed: 10
            })
        );
        assert_eq!(check(&[], 9), Err(ValueError::Empty));
        assert_eq!(ones(9), vec![1, 0xff]);
        assert_eq!(prefix_mask(16, 4), vec![0xf0, 0]);
        assert_eq!(prefix_mask(9, 1), vec![1, 0]);
        assert_eq!(to_u64(&[0, 1, 2]), Some(258));
        assert_eq!(cmp(&[0, 1], &[2]), std::cmp::Ordering::Less);
    }
}
