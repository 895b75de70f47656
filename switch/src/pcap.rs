//! Classic pcap capture files (the format Wireshark and tcpdump read):
//! one file per port, frames in both directions.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

/// Largest frame length recorded.
const SNAPLEN: u32 = 65535;
/// LINKTYPE_ETHERNET.
const LINKTYPE_ETHERNET: u32 = 1;

/// A pcap file being written.
#[derive(Debug)]
pub struct PcapWriter {
    out: BufWriter<File>,
}

impl PcapWriter {
    /// Creates (truncates) `path` and writes the file header.
    pub fn create(path: &Path) -> std::io::Result<PcapWriter> {
        let mut out = BufWriter::new(File::create(path)?);
        out.write_all(&0xa1b2_c3d4u32.to_le_bytes())?;
        out.write_all(&2u16.to_le_bytes())?;
        out.write_all(&4u16.to_le_bytes())?;
        out.write_all(&0i32.to_le_bytes())?; // thiszone
        out.write_all(&0u32.to_le_bytes())?; // sigfigs
        out.write_all(&SNAPLEN.to_le_bytes())?;
        out.write_all(&LINKTYPE_ETHERNET.to_le_bytes())?;
        out.flush()?;
        Ok(PcapWriter { out })
    }

    /// Appends one frame stamped with the current wall-clock time.
    pub fn write(&mut self, frame: &[u8]) -> std::io::Result<()> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let caplen = frame.len().min(SNAPLEN as usize);
        self.out.write_all(&(now.as_secs() as u32).to_le_bytes())?;
        self.out.write_all(&now.subsec_micros().to_le_bytes())?;
        self.out.write_all(&(caplen as u32).to_le_bytes())?;
        self.out.write_all(&(frame.len() as u32).to_le_bytes())?;
        self.out.write_all(&frame[..caplen])
    }

    /// Writes buffered frames to the file.
    pub fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}
