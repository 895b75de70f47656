//! Reading the small text files a person writes (the controller's topology,
//! the testbed's experiment and hosts files): bounded, so that a file far
//! larger than any such file (or a device that never ends) is refused
//! before it is read whole or parsed.

use std::io::Read;
use std::path::Path;

/// The largest config file read: 1 MiB, some hundred times the largest
/// file the project ships.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// Reads `path` as UTF-8 text of at most [`MAX_CONFIG_BYTES`]; a longer
/// file is an `InvalidData` error saying so, and at most one byte past the
/// limit is read.
pub fn read_config(path: &Path) -> std::io::Result<String> {
    read_bounded(path, MAX_CONFIG_BYTES)
}

/// [`read_config`] with the limit `max_bytes`.
pub fn read_bounded(path: &Path, max_bytes: u64) -> std::io::Result<String> {
    let file = std::fs::File::open(path)?;
    let too_large = || {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("larger than {max_bytes} bytes, the limit for a config file: refused unread"),
        )
    };
    if file.metadata()?.len() > max_bytes {
        return Err(too_large());
    }
    let mut text = String::new();
    // The length above may be 0 (a device, a pipe) or grow meanwhile.
    file.take(max_bytes + 1).read_to_string(&mut text)?;
    if text.len() as u64 > max_bytes {
        return Err(too_large());
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_over_the_limit_are_refused_unread() {
        let dir = std::env::temp_dir().join(format!("esa-config-file-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let small = dir.join("small.toml");
        std::fs::write(&small, "a = 1\n").unwrap();
        assert_eq!(read_config(&small).unwrap(), "a = 1\n");
        let large = dir.join("large.toml");
        std::fs::write(&large, vec![b'#'; MAX_CONFIG_BYTES as usize + 1]).unwrap();
        let e = read_config(&large).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
        assert!(e.to_string().contains("larger than 1048576 bytes"), "{e}");
        // A device reports no length: the read stops past the limit.
        let e = read_bounded(Path::new("/dev/zero"), 1000).unwrap_err();
        assert!(e.to_string().contains("larger than 1000 bytes"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
