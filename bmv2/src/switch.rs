//! A `simple_switch` process whose ports are one nanomsg packet socket.
//!
//! All packets enter through one socket, so the switch's single ingress
//! thread sees them in exactly the order they were sent: each packet sees the
//! register effects of every packet sent before it, which is what an STF test
//! or a differential trace needs. Packets leave through the same socket
//! tagged with their port; a reader thread collects them.

use std::io::Read;
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::cli::RuntimeCli;
use crate::nanomsg::{self, Pair};
use crate::{Error, Tools};

/// How to start the switch.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Write BMv2's debug log to a file: needed by [`SimpleSwitch::wait_idle`],
    /// slows the switch down several times.
    pub log: bool,
}

#[derive(Debug, Default)]
struct Received {
    frames: Vec<(u32, Vec<u8>)>,
    error: Option<String>,
    closed: bool,
}

type Shared = Arc<(Mutex<Received>, Condvar)>;

/// A running `simple_switch`; killed on drop.
#[derive(Debug)]
pub struct SimpleSwitch {
    child: Child,
    dir: tempfile::TempDir,
    thrift_port: u16,
    writer: Pair,
    received: Shared,
    reader: Option<JoinHandle<()>>,
    log: Option<LogWatch>,
    sent: usize,
    cli: Option<RuntimeCli>,
}

/// The part of the debug log read so far.
#[derive(Debug)]
struct LogWatch {
    path: PathBuf,
    offset: u64,
    received: usize,
    partial: String,
}

const START_TIMEOUT: Duration = Duration::from_secs(20);
const RECEIVED_MARK: &str = "Processing packet received on port";

/// A loopback TCP port nobody listens on now.
pub(crate) fn free_port() -> Result<u16, Error> {
    let l = TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 0))
        .map_err(Error::io("finding a free port"))?;
    Ok(l.local_addr()
        .map_err(Error::io("finding a free port"))?
        .port())
}

impl SimpleSwitch {
    /// Starts `simple_switch` on the BMv2 JSON and waits until its packet
    /// socket and Thrift server accept connections.
    pub fn start(tools: &Tools, json: &Path, options: &Options) -> Result<SimpleSwitch, Error> {
        let dir = tempfile::Builder::new()
            .prefix("esa-bmv2-")
            .tempdir()
            .map_err(Error::io("creating a folder for the switch"))?;
        let socket = dir.path().join("packets.ipc");
        let thrift_port = free_port()?;
        let output = std::fs::File::create(dir.path().join("output.log"))
            .map_err(Error::io("creating the switch's output file"))?;
        let mut command = Command::new(&tools.simple_switch);
        command
            .arg("--packet-in")
            .arg(format!("ipc://{}", socket.display()))
            .arg("--thrift-port")
            .arg(thrift_port.to_string())
            .arg("--device-id")
            .arg("0")
            .arg("--notifications-addr")
            .arg(format!("ipc://{}", dir.path().join("notify.ipc").display()));
        let log = if options.log {
            // BMv2 appends `.txt` to the name it is given.
            let path = dir.path().join("switch.txt");
            command
                .arg("--log-file")
                .arg(dir.path().join("switch"))
                .args(["--log-flush", "-L", "debug"])
                .args(["--log-file-max-size", "4000000000"]);
            Some(LogWatch {
                path,
                offset: 0,
                received: 0,
                partial: String::new(),
            })
        } else {
            command.args(["-L", "off"]);
            None
        };
        command.arg(json);
        let mut child = command
            .stdin(Stdio::null())
            .stdout(output.try_clone().map_err(Error::io("switch output"))?)
            .stderr(output)
            .spawn()
            .map_err(Error::io(format!(
                "starting {}",
                tools.simple_switch.display()
            )))?;
        let started = Instant::now();
        let connected = Pair::connect(&socket, START_TIMEOUT).and_then(|pair| {
            loop {
                if TcpStream::connect((Ipv4Addr::LOCALHOST, thrift_port)).is_ok() {
                    return Ok(pair);
                }
                if let Ok(Some(status)) = child.try_wait() {
                    return Err(Error::Switch(format!("exited while starting ({status})")));
                }
                if started.elapsed() > START_TIMEOUT {
                    return Err(Error::Timeout {
                        what: format!("the Thrift server on port {thrift_port}"),
                        seconds: START_TIMEOUT.as_secs_f64(),
                    });
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        });
        let writer = match connected {
            Ok(pair) => pair,
            Err(e) => {
                let _ = child.kill();
                let _ = child.wait();
                let output =
                    std::fs::read_to_string(dir.path().join("output.log")).unwrap_or_default();
                return Err(Error::Switch(format!("{e}; its output:\n{output}")));
            }
        };
        let received: Shared = Arc::default();
        let mut reader_pair = writer.try_clone()?;
        let shared = received.clone();
        let reader = std::thread::Builder::new()
            .name("bmv2-packets".into())
            .spawn(move || read_packets(&mut reader_pair, &shared))
            .map_err(Error::io("starting the packet reader"))?;
        Ok(SimpleSwitch {
            child,
            dir,
            thrift_port,
            writer,
            received,
            reader: Some(reader),
            log,
            sent: 0,
            cli: None,
        })
    }

    /// The Thrift port of the runtime CLI.
    pub fn thrift_port(&self) -> u16 {
        self.thrift_port
    }

    /// A folder that lives as long as the switch.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// The runtime CLI of this switch.
    pub fn cli(&mut self, tools: &Tools) -> Result<&RuntimeCli, Error> {
        if self.cli.is_none() {
            self.cli = Some(RuntimeCli::new(tools, self.thrift_port)?);
        }
        Ok(self.cli.as_ref().expect("set above"))
    }

    /// Sends one frame into `port`.
    pub fn send(&mut self, port: u32, frame: &[u8]) -> Result<(), Error> {
        self.check_alive()?;
        self.writer.send(&nanomsg::packet_in(port, frame))?;
        self.sent += 1;
        Ok(())
    }

    /// Frames sent so far.
    pub fn sent(&self) -> usize {
        self.sent
    }

    fn check_alive(&mut self) -> Result<(), Error> {
        if let Ok(Some(status)) = self.child.try_wait() {
            let output =
                std::fs::read_to_string(self.dir.path().join("output.log")).unwrap_or_default();
            return Err(Error::Switch(format!(
                "exited ({status}); its output:\n{output}"
            )));
        }
        let r = self.received.0.lock().expect("reader poisoned");
        if let Some(e) = &r.error {
            return Err(Error::Switch(e.clone()));
        }
        Ok(())
    }

    /// Takes every frame the switch has sent so far, in the order they came.
    pub fn take_outputs(&self) -> Vec<(u32, Vec<u8>)> {
        std::mem::take(&mut self.received.0.lock().expect("reader poisoned").frames)
    }

    /// Waits until at least `n` frames are waiting in [`Self::take_outputs`]
    /// or `timeout` passes; returns how many are there.
    pub fn wait_outputs(&self, n: usize, timeout: Duration) -> usize {
        let (lock, cond) = &*self.received;
        let mut r = lock.lock().expect("reader poisoned");
        let deadline = Instant::now() + timeout;
        while r.frames.len() < n && !r.closed {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            r = cond.wait_timeout(r, left).expect("reader poisoned").0;
        }
        r.frames.len()
    }

    /// Waits until the switch has taken in every frame sent and its log has
    /// been quiet for `quiet` (every copy has left or been dropped). Needs
    /// [`Options::log`].
    pub fn wait_idle(&mut self, quiet: Duration, timeout: Duration) -> Result<(), Error> {
        let start = Instant::now();
        let mut last_change = Instant::now();
        loop {
            self.check_alive()?;
            let sent = self.sent;
            let watch = self
                .log
                .as_mut()
                .ok_or_else(|| Error::Switch("wait_idle needs the switch's log".into()))?;
            if watch.poll()? {
                last_change = Instant::now();
            }
            if watch.received >= sent && last_change.elapsed() >= quiet {
                return Ok(());
            }
            if start.elapsed() > timeout {
                return Err(Error::Timeout {
                    what: format!(
                        "the switch to take in {sent} packets (its log shows {})",
                        watch.received
                    ),
                    seconds: timeout.as_secs_f64(),
                });
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl LogWatch {
    /// Reads what the log gained; true if it grew.
    fn poll(&mut self) -> Result<bool, Error> {
        let mut file = match std::fs::File::open(&self.path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
            Err(e) => return Err(Error::io("reading the switch log")(e)),
        };
        use std::io::Seek;
        file.seek(std::io::SeekFrom::Start(self.offset))
            .map_err(Error::io("reading the switch log"))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(Error::io("reading the switch log"))?;
        if bytes.is_empty() {
            return Ok(false);
        }
        self.offset += bytes.len() as u64;
        self.partial.push_str(&String::from_utf8_lossy(&bytes));
        let complete = self.partial.rfind('\n').map_or(0, |i| i + 1);
        self.received += self.partial[..complete].matches(RECEIVED_MARK).count();
        self.partial.drain(..complete);
        Ok(true)
    }
}

fn read_packets(pair: &mut Pair, shared: &Shared) {
    let (lock, cond) = &**shared;
    loop {
        let message = pair.recv();
        let mut r = lock.lock().expect("reader poisoned");
        match message {
            Ok(Some(body)) => match nanomsg::parse_message(&body) {
                Ok((nanomsg::PACKET_OUT, port, data)) => r.frames.push((port, data.to_vec())),
                Ok((kind, _, _)) => r.error = Some(format!("unexpected message type {kind}")),
                Err(e) => r.error = Some(e.to_string()),
            },
            Ok(None) => r.closed = true,
            Err(e) => {
                r.error = Some(e.to_string());
                r.closed = true;
            }
        }
        let done = r.closed;
        drop(r);
        cond.notify_all();
        if done {
            return;
        }
    }
}

impl Drop for SimpleSwitch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        self.writer.shutdown();
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
    }
}
