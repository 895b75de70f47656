//! Linux interfaces as switch ports: opening one the way
//! [`InterfaceIo`] asks (a receive ring, or one system call per frame
//! where the kernel refuses a ring) with its way out
//! ([`crate::egress`]), and its reader thread when the packet thread does
//! not read its ring itself.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::egress::{Egress, PerFrameEgress, RingEgress};
use crate::inbound::{FrameBatch, InboundSender};
use crate::{InterfaceIo, SwitchError, afpacket, xdp};

/// How long a reader waits for frames before looking at the stop flag.
const READER_POLL: Duration = Duration::from_millis(100);

/// An opened interface port: how it receives, where its frames leave, and
/// the way it actually moves frames.
pub(crate) struct OpenedInterface {
    pub(crate) receive: Receive,
    pub(crate) egress: Box<dyn Egress>,
    pub(crate) io: InterfaceIo,
}

/// How an interface port receives.
pub(crate) enum Receive {
    /// Through a ring: the packet thread's to read, or a reader thread's.
    Ring(afpacket::RxRing),
    /// One system call per frame, in a reader thread.
    PerFrame(Arc<afpacket::RawSocket>),
}

/// Opens interface `name` as port `number` the way `io` asks, falling back
/// to one frame per system call (with one warning) where a ring cannot be
/// set up. A port with a ring sends a batch at a time (through an
/// `AF_XDP` socket where it can have one), else a frame at a time.
pub(crate) fn open_interface(
    number: u32,
    name: &str,
    io: &InterfaceIo,
) -> Result<OpenedInterface, SwitchError> {
    let failed = |e: std::io::Error| SwitchError::Interface {
        name: name.to_string(),
        message: e.to_string(),
    };
    if let InterfaceIo::Ring(config) = io {
        match afpacket::RxRing::open(name, config, READER_POLL) {
            Ok(ring) => {
                let send = afpacket::RawSocket::open_sender(name).map_err(failed)?;
                let mut config = config.clone();
                let xdp = if config.xdp_send {
                    match xdp::XdpSender::open(name) {
                        Ok(x) => Some(x),
                        Err(e) => {
                            tracing::info!(
                                port = number,
                                interface = name,
                                "no AF_XDP socket ({e}): sending with sendmmsg"
                            );
                            config.xdp_send = false;
                            None
                        }
                    }
                } else {
                    None
                };
                let xdp = xdp.map(|x| xdp::XdpEgress::new(number, x));
                return Ok(OpenedInterface {
                    receive: Receive::Ring(ring),
                    egress: Box::new(RingEgress::new(number, Arc::new(send), xdp)),
                    io: InterfaceIo::Ring(config),
                });
            }
            // A missing interface is an error either way.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(failed(e)),
            Err(e) => tracing::warn!(
                port = number,
                interface = name,
                "no receive ring ({e}): one system call per frame on this interface"
            ),
        }
    }
    let socket = Arc::new(afpacket::RawSocket::open(name, READER_POLL).map_err(failed)?);
    Ok(OpenedInterface {
        receive: Receive::PerFrame(socket.clone()),
        egress: Box::new(PerFrameEgress::new(number, socket)),
        io: InterfaceIo::PerFrame,
    })
}

impl Receive {
    /// Port `p`'s reader thread: frames into the packet thread's channel
    /// until `stop` (looked at every [`READER_POLL`]).
    pub(crate) fn spawn_reader(
        self,
        p: u32,
        tx: InboundSender,
        stop: Arc<AtomicBool>,
    ) -> std::io::Result<JoinHandle<()>> {
        let builder = std::thread::Builder::new().name(format!("esa-switch-rx-{p}"));
        match self {
            Receive::Ring(mut ring) => builder.spawn(move || {
                // Sized like the last batch, so a burst allocates once.
                let mut bytes_hint = 0;
                let mut oversized_warned = false;
                while !stop.load(Ordering::Relaxed) {
                    let mut frames = FrameBatch::with_capacity(bytes_hint);
                    match ring.recv_batch(|frame| frames.push(p, frame)) {
                        Ok(0) => {}
                        Ok(_) => {
                            bytes_hint = frames.buffer_len();
                            if tx.send_frames(frames).is_err() {
                                break;
                            }
                        }
                        Err(e) => {
                            tracing::error!(port = p, interface = ring.name(), "receive: {e}");
                            std::thread::sleep(READER_POLL);
                        }
                    }
                    if !oversized_warned && ring.oversized() > 0 {
                        oversized_warned = true;
                        tracing::warn!(
                            port = p,
                            interface = ring.name(),
                            "frames longer than a ring slot are dropped (the first of them now)"
                        );
                    }
                }
            }),
            Receive::PerFrame(sock) => builder.spawn(move || {
                let mut buf = vec![0u8; afpacket::MAX_FRAME];
                while !stop.load(Ordering::Relaxed) {
                    match sock.recv(&mut buf) {
                        Ok(Some(n)) => {
                            if tx.send_frames(FrameBatch::one(p, &buf[..n])).is_err() {
                                break;
                            }
                        }
                        Ok(None) => {}
                        Err(e) => {
                            tracing::error!(port = p, interface = sock.name(), "receive: {e}");
                            std::thread::sleep(READER_POLL);
                        }
                    }
                }
            }),
        }
    }
}
