//! Raw Ethernet ports, the switch's AF_PACKET socket
//! (`esa_switch::afpacket::RawSocket`) beside pnet_datalink's channel:
//! frames/s one interface reader receives and one writer sends, and the
//! CPU time each spends per frame, for 64-byte and 300-byte (ESA-sized)
//! frames. Runs on a veth pair in a network namespace made for the run
//! and deleted after it; needs root on Linux, else prints why it skipped.
//! Medians of several runs: `cargo bench -p esa-switch --bench datalink`.

#[cfg(target_os = "linux")]
use std::time::Duration;

const RUNS: usize = 5;
const FRAMES: usize = 50_000;
const SIZES: [usize; 2] = [64, 300];

#[cfg(target_os = "linux")]
fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

#[cfg(target_os = "linux")]
/// An Ethernet frame of `len` bytes to 02:00:00:00:00:02, ether type 0x88b5.
fn frame(len: usize) -> Vec<u8> {
    let mut f = vec![2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1, 0x88, 0xb5];
    f.resize(len, 0x5a);
    f
}

#[cfg(target_os = "linux")]
/// Nanoseconds the calling thread has run on a CPU (its first schedstat
/// field): CPU cost per frame, less disturbed by other load than wall time.
/// It lags by up to a scheduler tick, so it means something for the full
/// run (about 0.1 s per sample), not for `cargo test --benches`' 2,000
/// frames (which may print 0 ns/frame).
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

#[cfg(target_os = "linux")]
/// One raw port, as the switch uses it: receive with a timeout and copy
/// the frame out (the reader thread hands the packet thread a `Vec`), send
/// one frame at a time.
trait Link {
    fn recv(&mut self) -> std::io::Result<Option<Vec<u8>>>;
    fn send(&mut self, frame: &[u8]) -> std::io::Result<()>;
}

#[cfg(target_os = "linux")]
mod backends {
    use std::io;
    use std::time::Duration;

    use esa_switch::afpacket::{MAX_FRAME, RawSocket};
    use pnet_datalink::{Channel, Config, DataLinkReceiver, DataLinkSender};

    use super::Link;

    pub struct Ours {
        sock: RawSocket,
        buf: Vec<u8>,
    }

    impl Ours {
        pub fn open(name: &str, poll: Duration) -> io::Result<Ours> {
            Ok(Ours {
                sock: RawSocket::open(name, poll)?,
                buf: vec![0; MAX_FRAME],
            })
        }
    }

    impl Link for Ours {
        fn recv(&mut self) -> io::Result<Option<Vec<u8>>> {
            Ok(self
                .sock
                .recv(&mut self.buf)?
                .map(|n| self.buf[..n].to_vec()))
        }

        fn send(&mut self, frame: &[u8]) -> io::Result<()> {
            self.sock.send(frame)
        }
    }

    pub struct Pnet {
        tx: Box<dyn DataLinkSender>,
        rx: Box<dyn DataLinkReceiver>,
    }

    impl Pnet {
        pub fn open(name: &str, poll: Duration) -> io::Result<Pnet> {
            let interface = pnet_datalink::interfaces()
                .into_iter()
                .find(|i| i.name == name)
                .ok_or_else(|| io::Error::other(format!("no interface named `{name}`")))?;
            let config = Config {
                read_buffer_size: MAX_FRAME,
                write_buffer_size: MAX_FRAME,
                read_timeout: Some(poll),
                write_timeout: Some(poll),
                promiscuous: true,
                ..Config::default()
            };
            match pnet_datalink::channel(&interface, config)? {
                Channel::Ethernet(tx, rx) => Ok(Pnet { tx, rx }),
                _ => Err(io::Error::other("not an Ethernet channel")),
            }
        }
    }

    impl Link for Pnet {
        fn recv(&mut self) -> io::Result<Option<Vec<u8>>> {
            match self.rx.next() {
                Ok(f) => Ok(Some(f.to_vec())),
                Err(e) if e.kind() == io::ErrorKind::TimedOut => Ok(None),
                Err(e) => Err(e),
            }
        }

        fn send(&mut self, frame: &[u8]) -> io::Result<()> {
            self.tx
                .send_to(frame, None)
                .unwrap_or_else(|| Err(io::Error::other("cannot send")))
        }
    }
}

#[cfg(target_os = "linux")]
/// One sample of one direction: frames/s and CPU ns per frame of the
/// measured side, and frames lost (receive: the sender outran the reader).
#[derive(Debug, Clone, Copy)]
struct Sample {
    rate: f64,
    cpu_ns: f64,
    lost: usize,
}

/// `rx` receives on `d1` what a plain AF_PACKET socket sends into `d0` as
/// fast as it can.
#[cfg(target_os = "linux")]
fn receive(rx: &mut dyn Link, len: usize, frames: usize) -> Sample {
    use std::time::Instant;
    let f = frame(len);
    let tx = backends::Ours::open("d0", Duration::from_millis(50)).expect("open d0");
    // Drain what is queued (earlier runs' leftovers).
    while rx.recv().expect("receive").is_some() {}
    let start = Instant::now();
    std::thread::scope(|s| {
        let f = &f;
        let mut tx = tx;
        s.spawn(move || {
            for _ in 0..frames {
                // A full queue drops the frame; it counts as lost.
                let _ = tx.send(f);
            }
        });
        let cpu = thread_cpu_ns();
        let (mut received, mut last, mut idle) = (0, start, 0);
        while received < frames && idle < 3 {
            match rx.recv().expect("receive") {
                Some(got) if got == *f => {
                    received += 1;
                    last = Instant::now();
                    idle = 0;
                }
                Some(_) => {}
                None => idle += 1,
            }
        }
        let cpu = thread_cpu_ns() - cpu;
        let secs = last.duration_since(start).as_secs_f64().max(1e-9);
        Sample {
            rate: received as f64 / secs,
            cpu_ns: cpu as f64 / received.max(1) as f64,
            lost: frames - received,
        }
    })
}

/// `tx` sends into `d0` as fast as it can (nothing listens on `d1`).
#[cfg(target_os = "linux")]
fn send(tx: &mut dyn Link, len: usize, frames: usize) -> Sample {
    use std::time::Instant;
    let f = frame(len);
    let (cpu, start) = (thread_cpu_ns(), Instant::now());
    let mut failed = 0;
    for _ in 0..frames {
        if tx.send(&f).is_err() {
            failed += 1;
        }
    }
    let secs = start.elapsed().as_secs_f64().max(1e-9);
    let cpu = thread_cpu_ns() - cpu;
    Sample {
        rate: frames as f64 / secs,
        cpu_ns: cpu as f64 / frames as f64,
        lost: failed,
    }
}

#[cfg(target_os = "linux")]
/// Median rate, median CPU per frame, most lost, over `runs` samples.
fn summary(samples: &[Sample]) -> Sample {
    Sample {
        rate: median(samples.iter().map(|s| s.rate).collect()),
        cpu_ns: median(samples.iter().map(|s| s.cpu_ns).collect()),
        lost: samples.iter().map(|s| s.lost).max().unwrap_or(0),
    }
}

#[cfg(target_os = "linux")]
fn measure(runs: usize, frames: usize) -> Result<(), String> {
    use backends::{Ours, Pnet};
    if !esa_netns::is_root() {
        return Err("needs root (a namespace and raw sockets)".into());
    }
    // Veth pair d0/d1 in a namespace of its own (deleted on drop, the
    // veths with it): nothing else sends on them.
    let ns = esa_netns::TempNamespace::create(&format!("esabench{}", std::process::id()))?;
    let _veths = esa_netns::VethPair::create_in(&ns, "d0", "d1")?;
    // This thread and every thread it starts live in the namespace.
    esa_netns::enter(ns.name()).map_err(|e| format!("enter {}: {e}", ns.name()))?;
    let poll = Duration::from_millis(50);
    println!("{frames} frames per run, median of {runs} runs (CPU: the measured thread's):");
    for len in SIZES {
        for (what, direction) in [("receive", true), ("send", false)] {
            let (mut ours, mut pnet) = (Vec::new(), Vec::new());
            // Interleaved, so that load from elsewhere hits both alike; one
            // socket open at a time (each open socket gets its own copy).
            let name = if direction { "d1" } else { "d0" };
            let run = |link: &mut dyn Link| {
                if direction {
                    receive(link, len, frames)
                } else {
                    send(link, len, frames)
                }
            };
            for _ in 0..runs {
                let mut a = Ours::open(name, poll).map_err(|e| e.to_string())?;
                ours.push(run(&mut a));
                drop(a);
                let mut b = Pnet::open(name, poll).map_err(|e| e.to_string())?;
                pnet.push(run(&mut b));
            }
            let (o, p) = (summary(&ours), summary(&pnet));
            let lost = if direction { "lost" } else { "failed" };
            println!(
                "  {len:>3} B {what:<7} AF_PACKET {:>9.0}/s {:>6.0} ns/frame ({} {lost})",
                o.rate, o.cpu_ns, o.lost
            );
            println!(
                "  {len:>3} B {what:<7} pnet      {:>9.0}/s {:>6.0} ns/frame ({} {lost})",
                p.rate, p.cpu_ns, p.lost
            );
            println!(
                "  {len:>3} B {what:<7} pnet / AF_PACKET: rate {:.2}, CPU per frame {:.2}",
                p.rate / o.rate,
                p.cpu_ns / o.cpu_ns
            );
        }
    }
    Ok(())
}

fn main() {
    // `cargo test --benches` runs this without `--bench`: keep it short.
    let quick = !std::env::args().any(|a| a == "--bench");
    let (runs, frames) = if quick { (1, 2_000) } else { (RUNS, FRAMES) };
    #[cfg(target_os = "linux")]
    let result = measure(runs, frames);
    #[cfg(not(target_os = "linux"))]
    let result: Result<(), String> = {
        let _ = (runs, frames);
        Err("needs Linux (AF_PACKET)".into())
    };
    if let Err(why) = result {
        println!("raw Ethernet ports: skipped: {why}");
    }
}
