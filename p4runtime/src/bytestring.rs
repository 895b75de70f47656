//! P4Runtime's binary strings (specification §8.4): unsigned numbers as
//! big-endian bytes. A peer may pad a value with leading zero bytes; the
//! *canonical* form has none, and zero is one `\x00` byte (never empty).
//! A server returns values in canonical form, and a client compares what
//! it reads back in that form.

/// The canonical form of `bytes`: leading zero bytes stripped, at least
/// one byte kept (zero, and the empty string, are `[0]`).
pub fn canonical(bytes: &[u8]) -> Vec<u8> {
    match bytes.iter().position(|b| *b != 0) {
        Some(first) => bytes[first..].to_vec(),
        None => vec![0],
    }
}

/// `value` as a canonical binary string.
pub fn from_u64(value: u64) -> Vec<u8> {
    canonical(&value.to_be_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leading_zero_bytes_are_stripped() {
        assert_eq!(canonical(&[0, 0, 5]), vec![5]);
        assert_eq!(canonical(&[0, 1, 0xff]), vec![1, 0xff]);
        assert_eq!(canonical(&[1, 0, 0]), vec![1, 0, 0]);
    }

    #[test]
    fn zero_is_one_zero_byte() {
        assert_eq!(canonical(&[0]), vec![0]);
        assert_eq!(canonical(&[0, 0, 0]), vec![0]);
        assert_eq!(canonical(&[]), vec![0]);
        assert_eq!(from_u64(0), vec![0]);
    }

    #[test]
    fn numbers_take_the_bytes_they_need() {
        assert_eq!(from_u64(0x1ff), vec![1, 0xff]);
        assert_eq!(from_u64(255), vec![0xff]);
        assert_eq!(from_u64(u64::MAX), vec![0xff; 8]);
    }
}
