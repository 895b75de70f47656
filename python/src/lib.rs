//! The native half of the `esa_torch` Python package (`esa_torch._esa`):
//! ESA workers and a parameter server on switch ports carried over UDP
//! (`esa switch -u`, `esa local`) or on a host's own interface and IPv4
//! address with kernel UDP (a switch's Ethernet ports: esa-switch on Linux
//! interfaces, BMv2, a Tofino; the addresses from `esa run`'s hosts file),
//! and job admission through the controller's job API. Python hands a whole gradient bucket to
//! `Worker.allreduce`; quantization, packets, retransmission and the
//! fallback to the PS all happen here, with the GIL released. No Python
//! runs per packet.
//!
//! The DDP communication hook itself is Python (`esa_torch/__init__.py`):
//! it needs torch, this module does not.
//!
//! A worker given the job's key (`integrity_key=`) checks every result:
//! esa-host keeps the keyed checksums of what this rank sent and what it
//! received (`esa_core::integrity`), the caller's `exchange` all-gathers
//! them over its own channel (the DDP process group), and a result that is
//! not the sum of the ranks' contributions raises `IntegrityError` before
//! it reaches the caller's buffer.

use std::net::SocketAddr;
use std::str::FromStr;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use esa_controller::api::{TokenJobsClient, proto};
use esa_controller::auth::TOKEN_ENV;
use esa_core::constants::MAX_FAN_IN;
use esa_core::integrity::{self, Checksums};
use esa_core::job::{Mode, SlotRange};
use esa_core::plan::JobPlan;
use esa_core::policy::Policy;
use esa_core::ps::{JobOptions, PsConfig};
use esa_core::rtt::Rto;
use esa_host::addressing::{port_host, switch_addr, switch_addr_at};
use esa_host::integrity::{IntegrityKey, KEY_LEN};
use esa_host::transport::{Transport, attach_host};
use esa_host::worker::{Worker as HostWorker, WorkerOptions};
use esa_host::{HostError, ParameterServer as HostPs};
use p4runtime_proto::security::ClientSecurity;
use pyo3::buffer::PyBuffer;
use pyo3::exceptions::{
    PyConnectionError, PyPermissionError, PyRuntimeError, PyTimeoutError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A rank's or the PS's way to the switch: a UDP-carried switch port, or
/// the host's own address.
type Link = Box<dyn Transport>;

pyo3::create_exception!(
    esa_torch._esa,
    IntegrityError,
    PyRuntimeError,
    "A result that is not the sum of what the job's ranks sent: a forged or corrupted DATA or \
     RESULT frame reached the job. The buffer was left as it was."
);

fn parse_addr(what: &str, s: &str) -> PyResult<SocketAddr> {
    use std::net::ToSocketAddrs;
    s.to_socket_addrs()
        .ok()
        .and_then(|mut a| a.next())
        .ok_or_else(|| PyValueError::new_err(format!("{what} `{s}` is not HOST:PORT")))
}

fn parse_mode(s: &str) -> PyResult<Mode> {
    Mode::from_str(s).map_err(|_| {
        PyValueError::new_err(format!("unknown mode `{s}`: expected esa, atp or switchml"))
    })
}

fn check_world(world_size: usize) -> PyResult<u8> {
    if !(2..=usize::from(MAX_FAN_IN)).contains(&world_size) {
        return Err(PyValueError::new_err(format!(
            "world size {world_size}: ESA aggregates 2 to {MAX_FAN_IN} workers per job (one bit \
             per worker in the switch's bitmap)"
        )));
    }
    Ok(world_size as u8)
}

/// Where a worker or the PS reaches the switch: switch port `port` carried
/// over UDP at `port_addr` (sending as host `port` of a generated
/// topology), or, with `host_ip`, kernel UDP on this host's own address
/// (bound inside network namespace `netns` when given, which needs root)
/// to a switch at `switch_ip`, as `esa run --switch external` hosts do.
/// Returns the link and the address ESA packets go to.
fn link(
    port_addr: Option<&str>,
    port: u16,
    lanes: usize,
    host_ip: Option<&str>,
    switch_ip: Option<&str>,
    netns: Option<&str>,
) -> PyResult<(Link, SocketAddr)> {
    let Some(host_ip) = host_ip else {
        let Some(port_addr) = port_addr else {
            return Err(PyValueError::new_err(
                "give port_addr (a UDP-carried switch port) or host_ip (this host's own address)",
            ));
        };
        let addr = parse_addr("port_addr", port_addr)?;
        let transport = attach_host(port, addr, lanes).map_err(|e| {
            PyConnectionError::new_err(format!("switch port {port} at {addr}: {e}"))
        })?;
        return Ok((Box::new(transport), switch_addr()));
    };
    let ipv4 = |what: &str, s: &str| {
        s.parse::<std::net::Ipv4Addr>()
            .map_err(|_| PyValueError::new_err(format!("{what} `{s}` is not an IPv4 address")))
    };
    let ip = ipv4("host_ip", host_ip)?;
    let switch = switch_ip
        .map(|s| ipv4("switch_ip", s))
        .transpose()?
        .unwrap_or(esa_host::addressing::SWITCH_IP);
    let transport = esa_testbed::netns::bind_udp(netns, ip).map_err(|e| {
        PyConnectionError::new_err(format!("host on switch port {port} at {ip}: {e}"))
    })?;
    Ok((Box::new(transport), switch_addr_at(switch)))
}

fn host_error(e: HostError) -> PyErr {
    match e {
        HostError::NoResult { .. } => PyTimeoutError::new_err(format!(
            "{e} (a rank of this job stopped, or the switch and the PS are unreachable)"
        )),
        e => PyRuntimeError::new_err(e.to_string()),
    }
}

/// One rank of a job: all-reduces float32 buffers through the switch.
#[pyclass(module = "esa_torch._esa")]
struct Worker {
    inner: Mutex<HostWorker<Link>>,
    job: u16,
    rank: u8,
    world_size: usize,
    /// Whether a key was given: every all-reduce is checked.
    checked: bool,
    /// Results checked, and of those found not to be the ranks' sum.
    integrity_checks: AtomicU64,
    integrity_failures: AtomicU64,
}

impl Worker {
    /// Compares this rank's checksums with every rank's, as `exchange`
    /// (an all-gather over the job's process group) returns them:
    /// `IntegrityError` names the ranks whose result is not the sum of the
    /// contributions.
    fn verify(&self, exchange: &Bound<'_, PyAny>, mine: Checksums) -> PyResult<()> {
        let round = self.integrity_checks.fetch_add(1, Ordering::Relaxed);
        let gathered: Vec<Vec<u64>> = exchange
            .call1((vec![mine.contributed, mine.received],))?
            .extract()?;
        let malformed = gathered.len() != self.world_size || gathered.iter().any(|c| c.len() != 2);
        if malformed {
            return Err(PyValueError::new_err(format!(
                "exchange returned {} entries for a world of {}: it must all-gather \
                 [contributed, received] from every rank, in rank order",
                gathered.len(),
                self.world_size
            )));
        }
        let expected = integrity::sum(gathered.iter().map(|c| c[0]));
        let corrupted: Vec<usize> = (0..gathered.len())
            .filter(|&r| gathered[r][1] != expected)
            .collect();
        if corrupted.is_empty() {
            return Ok(());
        }
        self.integrity_failures.fetch_add(1, Ordering::Relaxed);
        Err(IntegrityError::new_err(format!(
            "ESA job {}, rank {}, checked all-reduce {round}: the result rank(s) {corrupted:?} \
             received is not the sum of what the ranks sent (its keyed checksum differs): a \
             forged or corrupted DATA or RESULT frame reached the job; the result was not used",
            self.job, self.rank
        )))
    }
}

#[pymethods]
impl Worker {
    /// Worker `rank` of job `job` (`world_size` workers), on switch port
    /// `port` whose UDP address is `port_addr`; or, with `host_ip` (and
    /// `port_addr` None), from this host's own IPv4 address with kernel
    /// UDP, to the switch at `switch_ip` (default 10.255.255.254), its
    /// socket bound in network namespace `netns` if given (root): a hosts
    /// file's host on a switch's Ethernet port. `timeout_s` bounds how long
    /// an all-reduce waits for a missing rank before it fails. With
    /// `integrity_key` (32 bytes, the same on every rank, never sent to the
    /// switch) every all-reduce's result is checked; `allreduce` then needs
    /// `exchange`.
    #[new]
    #[pyo3(signature = (port_addr, port, job, rank, world_size, *, lanes=32, exponent=20,
        window=64, timeout_s=30.0, mode="esa", policy="las", slot_mask=0, chunks_total=None,
        integrity_key=None, host_ip=None, switch_ip=None, netns=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        port_addr: Option<&str>,
        port: u16,
        job: u16,
        rank: usize,
        world_size: usize,
        lanes: usize,
        exponent: i8,
        window: usize,
        timeout_s: f64,
        mode: &str,
        policy: &str,
        slot_mask: u16,
        chunks_total: Option<u64>,
        integrity_key: Option<Vec<u8>>,
        host_ip: Option<&str>,
        switch_ip: Option<&str>,
        netns: Option<&str>,
    ) -> PyResult<Worker> {
        let fan_in = check_world(world_size)?;
        if rank >= world_size {
            return Err(PyValueError::new_err(format!(
                "rank {rank} is not below the world size {world_size}"
            )));
        }
        if !(timeout_s > 0.0 && timeout_s.is_finite()) {
            return Err(PyValueError::new_err(format!(
                "timeout_s must be positive, not {timeout_s}"
            )));
        }
        let mode = parse_mode(mode)?;
        let policy = Policy::from_str(policy).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let mut plan = JobPlan::new(
            job,
            fan_in,
            mode,
            SlotRange {
                base: 0,
                mask: slot_mask,
            },
        );
        plan.lanes = lanes;
        plan.window = window;
        plan.exponent = exponent;
        plan.policy = policy;
        plan.chunks_total = chunks_total;
        // A software switch on a loaded machine: round trips of
        // milliseconds; the RTO adapts upward from here. A chunk fails
        // after about `timeout_s` of resends at the largest RTO.
        let max_us = 250_000;
        plan.rto = Rto {
            max_us,
            retries: ((timeout_s * 1e6) / max_us as f64).ceil().max(4.0) as u32,
            ..Rto::SOFTWARE_SWITCH
        };
        let (transport, switch) = link(port_addr, port, lanes, host_ip, switch_ip, netns)?;
        let integrity = integrity_key
            .map(|key| {
                <[u8; KEY_LEN]>::try_from(key.as_slice())
                    .map(IntegrityKey::new)
                    .map_err(|_| {
                        PyValueError::new_err(format!(
                            "integrity_key has {} bytes, not {KEY_LEN}",
                            key.len()
                        ))
                    })
            })
            .transpose()?;
        let checked = integrity.is_some();
        let config = plan.worker_config(rank as u8);
        let mut options = WorkerOptions::new(config, switch);
        options.integrity = integrity;
        let worker = HostWorker::new(options, transport)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(Worker {
            inner: Mutex::new(worker),
            job,
            rank: rank as u8,
            world_size,
            checked,
            integrity_checks: AtomicU64::new(0),
            integrity_failures: AtomicU64::new(0),
        })
    }

    /// Sums `buffer` (a writable, C-contiguous float32 buffer: a numpy
    /// array, a CPU tensor's `.numpy()`) over every rank in place, divided
    /// by the world size when `average`. Returns what the all-reduce did.
    ///
    /// A worker with an `integrity_key` needs `exchange`: a callable that
    /// takes this rank's `[contributed, received]` checksums (two ints
    /// below 2^61) and returns every rank's, in rank order (an all-gather
    /// over the job's process group). A result that is not the sum of the
    /// contributions raises `IntegrityError` and leaves `buffer` as it was.
    #[pyo3(signature = (buffer, average=false, exchange=None))]
    fn allreduce<'py>(
        &self,
        py: Python<'py>,
        buffer: &Bound<'py, PyAny>,
        average: bool,
        exchange: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        if self.checked && exchange.is_none() {
            return Err(PyValueError::new_err(
                "this worker checks its results (integrity_key=): pass exchange=, a callable \
                 that all-gathers [contributed, received] over the job's ranks",
            ));
        }
        let buf: PyBuffer<f32> = PyBuffer::get(buffer)?;
        if buf.readonly() {
            return Err(PyValueError::new_err("the buffer is read-only"));
        }
        if !buf.is_c_contiguous() {
            return Err(PyValueError::new_err("the buffer is not C-contiguous"));
        }
        // One copy each way between the Python buffer and this Vec; the
        // worker sums in the Vec itself.
        let data: Vec<f32> = buf.to_vec(py)?;
        let (data, stats) = py
            .detach(|| {
                let mut w = self.inner.lock().unwrap_or_else(|e| e.into_inner());
                w.set_average(average);
                w.allreduce_owned(data)
            })
            .map_err(host_error)?;
        let mut integrity_seconds = 0.0;
        if let (Some(mine), Some(exchange)) = (stats.checksums, exchange) {
            let started = Instant::now();
            self.verify(exchange, mine)?;
            integrity_seconds = started.elapsed().as_secs_f64();
        }
        buf.copy_from_slice(py, &data)?;
        let d = PyDict::new(py);
        d.set_item("elements", stats.elements)?;
        d.set_item("chunks", stats.chunks)?;
        d.set_item("seconds", stats.elapsed.as_secs_f64())?;
        d.set_item("from_switch", stats.results_from_switch)?;
        d.set_item("from_ps", stats.results_from_ps)?;
        d.set_item("resends", stats.resends)?;
        d.set_item("overflow_retries", stats.overflow_retries)?;
        d.set_item("checked", stats.checksums.is_some())?;
        d.set_item("integrity_seconds", integrity_seconds)?;
        Ok(d)
    }

    /// Answers peers' `QUERY`s from this worker's cache of accepted results
    /// for `seconds`; no all-reduce may be running. A rank that is done
    /// reducing calls it while its peers finish: one that lost a `RESULT`
    /// which neither a slot nor the PS still holds gets it only from a
    /// peer's cache (docs/protocol.md §6.1). `Job.close(barrier=)` does it
    /// for the length of the barrier.
    fn serve_queries(&self, py: Python<'_>, seconds: f64) -> PyResult<()> {
        let duration = Duration::try_from_secs_f64(seconds).map_err(|_| {
            PyValueError::new_err(format!(
                "seconds must be finite, not negative and representable, not {seconds}"
            ))
        })?;
        py.detach(|| {
            let mut w = self.inner.lock().unwrap_or_else(|e| e.into_inner());
            w.serve_queries(duration)
        })
        .map_err(host_error)
    }

    /// The job id.
    #[getter]
    fn job(&self) -> u16 {
        self.job
    }

    /// This worker's rank.
    #[getter]
    fn rank(&self) -> u8 {
        self.rank
    }

    /// Counters since the start: packets, resends, results from the switch
    /// and from the PS, peers' `QUERY`s answered and not (no cached result).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let w = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        let s = w.stats();
        let d = PyDict::new(py);
        d.set_item("packets_sent", s.packets_sent)?;
        d.set_item("resends", s.resends)?;
        d.set_item("from_switch", s.results_from_switch)?;
        d.set_item("from_ps", s.results_from_ps)?;
        d.set_item("overflow_retries", s.overflow_retries)?;
        d.set_item("invalid_packets", s.invalid_packets)?;
        d.set_item("queries_answered", s.queries_answered)?;
        d.set_item("queries_unanswered", s.queries_unanswered)?;
        d.set_item(
            "integrity_checks",
            self.integrity_checks.load(Ordering::Relaxed),
        )?;
        d.set_item(
            "integrity_failures",
            self.integrity_failures.load(Ordering::Relaxed),
        )?;
        Ok(d)
    }
}

/// What the PS thread returns: the job's fallback volume by name.
type PsOutcome = Result<Vec<(&'static str, u64)>, String>;

/// A job's parameter server on its own switch port, served by a thread.
#[pyclass(module = "esa_torch._esa")]
struct ParameterServer {
    stop: Arc<AtomicBool>,
    thread: Mutex<Option<JoinHandle<PsOutcome>>>,
}

#[pymethods]
impl ParameterServer {
    /// Serves job `job` of `world_size` workers on switch port `port` at
    /// `port_addr` (or from `host_ip`, as `Worker`), until `stop()`.
    #[new]
    #[pyo3(signature = (port_addr, port, job, world_size, *, lanes=32, mode="esa",
        host_ip=None, switch_ip=None, netns=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        port_addr: Option<&str>,
        port: u16,
        job: u16,
        world_size: usize,
        lanes: usize,
        mode: &str,
        host_ip: Option<&str>,
        switch_ip: Option<&str>,
        netns: Option<&str>,
    ) -> PyResult<ParameterServer> {
        let fan_in = check_world(world_size)?;
        let mode = parse_mode(mode)?;
        let (transport, switch) = link(port_addr, port, lanes, host_ip, switch_ip, netns)?;
        let config = PsConfig {
            lanes,
            ..PsConfig::default()
        };
        let mut ps = HostPs::new(config, switch, transport)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        ps.add_job(job, fan_in, JobOptions::for_mode(mode))
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name(format!("esa-ps-{job}"))
            .spawn(move || {
                ps.run(&flag, None, |_| {}).map_err(|e| e.to_string())?;
                let v = ps.fallback_volume(job).unwrap_or_default();
                Ok(vec![
                    ("parts", v.parts),
                    ("fallback_parts", v.fallback_parts),
                    ("evicted_parts", v.evicted_parts),
                    ("chunks_completed", v.chunks_completed),
                    ("bytes", v.bytes),
                ])
            })
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start the PS thread: {e}")))?;
        Ok(ParameterServer {
            stop,
            thread: Mutex::new(Some(thread)),
        })
    }

    /// Stops serving; returns the job's fallback volume (parts it summed,
    /// of which evicted, chunks it completed, bytes).
    fn stop<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        self.stop.store(true, Ordering::Relaxed);
        let handle = self.thread.lock().unwrap_or_else(|e| e.into_inner()).take();
        let d = PyDict::new(py);
        if let Some(h) = handle {
            let result = py
                .detach(|| h.join())
                .map_err(|_| PyRuntimeError::new_err("the PS thread panicked"))?;
            for (k, v) in result.map_err(PyRuntimeError::new_err)? {
                d.set_item(k, v)?;
            }
        }
        Ok(d)
    }
}

impl Drop for ParameterServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// How this process reaches the job API: TLS verified with a CA
/// certificate, and a tenant's token; each given as an argument or else
/// taken from `ESA_TLS_CA` and `ESA_TOKEN`.
struct Credentials {
    tls_ca: Option<String>,
    token: Option<String>,
}

impl Credentials {
    fn new(tls_ca: Option<String>, token: Option<String>) -> Credentials {
        let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        Credentials {
            tls_ca: tls_ca.or_else(|| env(TLS_CA_ENV)),
            token: token.or_else(|| env(TOKEN_ENV)),
        }
    }
}

/// The environment variable of the CA certificate the job API is verified
/// with.
const TLS_CA_ENV: &str = "ESA_TLS_CA";

/// The controller's job API, on a small runtime of its own.
struct Api {
    runtime: tokio::runtime::Runtime,
    client: TokenJobsClient,
    addr: String,
}

impl Api {
    fn connect(controller: &str, credentials: &Credentials, timeout: Duration) -> PyResult<Api> {
        let security = ClientSecurity {
            ca: credentials.tls_ca.as_ref().map(Into::into),
            identity: None,
        };
        let addr = security.url(controller);
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| PyRuntimeError::new_err(format!("tokio runtime: {e}")))?;
        let client = runtime
            .block_on(esa_controller::api::connect(
                controller,
                &security,
                credentials.token.as_deref(),
                timeout,
            ))
            .map_err(|e| {
                PyConnectionError::new_err(format!(
                    "cannot reach the ESA controller at {addr}: {} (is `esa local` or `esa \
                     controller` running there? with TLS, tls_ca= or ESA_TLS_CA names its CA)",
                    esa_controller::error_chain(&e)
                ))
            })?;
        Ok(Api {
            runtime,
            client,
            addr,
        })
    }

    fn status(&self, what: &str, s: tonic::Status) -> PyErr {
        let msg = format!("{what} at {}: {:?}: {}", self.addr, s.code(), s.message());
        match s.code() {
            tonic::Code::InvalidArgument | tonic::Code::NotFound => PyValueError::new_err(msg),
            tonic::Code::Unauthenticated | tonic::Code::PermissionDenied => {
                PyPermissionError::new_err(format!(
                    "{msg} (a controller with tokens wants token= or ESA_TOKEN)"
                ))
            }
            tonic::Code::Unavailable | tonic::Code::DeadlineExceeded => {
                PyConnectionError::new_err(msg)
            }
            _ => PyRuntimeError::new_err(msg),
        }
    }

    fn list(&mut self) -> PyResult<Vec<proto::Job>> {
        let r = self
            .runtime
            .block_on(self.client.list_jobs(proto::ListJobsRequest {}));
        r.map(|r| r.into_inner().jobs)
            .map_err(|s| self.status("listing jobs", s))
    }
}

/// Every switch port a job uses.
fn job_ports(job: &proto::Job) -> impl Iterator<Item = u32> + '_ {
    job.workers
        .iter()
        .chain(job.ps.iter())
        .map(|e| e.port)
        .filter(|p| *p != 0)
}

/// An admitted job: its id, its ports (worker rank i on
/// `worker_ports[i]`) and its slot mask.
#[pyclass(module = "esa_torch._esa", get_all)]
#[derive(Debug, Clone)]
struct Admission {
    job_id: u16,
    worker_ports: Vec<u16>,
    ps_port: u16,
    slot_mask: u16,
    mode: String,
    priority: u8,
}

#[pymethods]
impl Admission {
    fn __repr__(&self) -> String {
        format!(
            "Admission(job_id={}, worker_ports={:?}, ps_port={}, slot_mask={}, mode='{}', \
             priority={})",
            self.job_id, self.worker_ports, self.ps_port, self.slot_mask, self.mode, self.priority
        )
    }
}

/// Admits a job of `world_size` workers and a PS at the controller. With
/// `ports` (world_size + 1 switch ports: the workers', then the PS's) those
/// are used; otherwise the lowest ports no other job uses, up to
/// `max_port`. Two launchers racing for the same ports: the later one
/// notices, releases and tries the next free ports.
#[pyfunction]
#[pyo3(signature = (controller, world_size, *, mode="esa", priority=15, job_id=0,
    slots=None, ports=None, max_port=510, timeout_s=10.0, token=None, tls_ca=None))]
#[allow(clippy::too_many_arguments)]
fn admit(
    py: Python<'_>,
    controller: &str,
    world_size: usize,
    mode: &str,
    priority: u8,
    job_id: u16,
    slots: Option<u32>,
    ports: Option<Vec<u16>>,
    max_port: u16,
    timeout_s: f64,
    token: Option<String>,
    tls_ca: Option<String>,
) -> PyResult<Admission> {
    let credentials = Credentials::new(tls_ca, token);
    check_world(world_size)?;
    let mode_v = parse_mode(mode)?;
    if let Some(p) = &ports
        && p.len() != world_size + 1
    {
        return Err(PyValueError::new_err(format!(
            "ports: {} given, {} needed (one per worker, then the PS's)",
            p.len(),
            world_size + 1
        )));
    }
    let timeout = Duration::from_secs_f64(timeout_s.max(0.1));
    py.detach(|| {
        let mut api = Api::connect(controller, &credentials, timeout)?;
        let proto_mode = match mode_v {
            Mode::Esa => proto::Mode::Esa,
            Mode::Atp => proto::Mode::Atp,
            Mode::SwitchMl => proto::Mode::Switchml,
        };
        let mut skip: std::collections::BTreeSet<u32> = Default::default();
        for attempt in 0..8u64 {
            let chosen: Vec<u32> = match &ports {
                Some(p) => p.iter().map(|&x| u32::from(x)).collect(),
                None => {
                    let used: std::collections::BTreeSet<u32> =
                        api.list()?.iter().flat_map(job_ports).collect();
                    let free: Vec<u32> = (1..=u32::from(max_port))
                        .filter(|p| !used.contains(p) && !skip.contains(p))
                        .take(world_size + 1)
                        .collect();
                    if free.len() < world_size + 1 {
                        return Err(PyRuntimeError::new_err(format!(
                            "the switch has {} free ports; a job of {world_size} workers needs \
                             {} (start `esa local --ports N` with more)",
                            free.len(),
                            world_size + 1
                        )));
                    }
                    free
                }
            };
            let endpoint = |port: u32| proto::Endpoint {
                host: String::new(),
                port,
            };
            let request = proto::AdmitJobRequest {
                job_id: u32::from(job_id),
                workers: chosen[..world_size].iter().map(|&p| endpoint(p)).collect(),
                ps: Some(endpoint(chosen[world_size])),
                max_priority: u32::from(priority),
                mode: proto_mode as i32,
                slots: slots.map(|count| proto::SlotRange { base: None, count }),
            };
            let r = api.runtime.block_on(api.client.admit_job(request));
            let job = match r {
                Ok(r) => r.into_inner().job.unwrap_or_default(),
                Err(s)
                    if s.code() == tonic::Code::InvalidArgument
                        && s.message().contains("not a switch port") =>
                {
                    return Err(PyValueError::new_err(format!(
                        "admitting the job at {}: {} (the switch has fewer ports than chosen: \
                         start `esa local --ports N` with more, or pass ports=)",
                        api.addr,
                        s.message()
                    )));
                }
                Err(s) => return Err(api.status("admitting the job", s)),
            };
            // Did another launcher take one of these ports meanwhile?
            let mine: std::collections::BTreeSet<u32> = job_ports(&job).collect();
            let clash = ports.is_none()
                && api.list()?.iter().any(|other| {
                    other.job_id != job.job_id && job_ports(other).any(|p| mine.contains(&p))
                });
            if clash {
                let _ = api.runtime.block_on(
                    api.client
                        .release_job(proto::ReleaseJobRequest { job_id: job.job_id }),
                );
                skip.extend(mine);
                std::thread::sleep(Duration::from_millis(20 * (attempt + 1)));
                continue;
            }
            return Ok(Admission {
                job_id: job.job_id as u16,
                worker_ports: job.workers.iter().map(|e| e.port as u16).collect(),
                ps_port: job.ps.map(|e| e.port as u16).unwrap_or_default(),
                slot_mask: job.slot_count.saturating_sub(1) as u16,
                mode: mode.to_string(),
                priority,
            });
        }
        Err(PyRuntimeError::new_err(
            "could not find free ports: other jobs kept taking them",
        ))
    })
}

/// Releases job `job_id` at the controller.
#[pyfunction]
#[pyo3(signature = (controller, job_id, *, timeout_s=10.0, token=None, tls_ca=None))]
fn release(
    py: Python<'_>,
    controller: &str,
    job_id: u16,
    timeout_s: f64,
    token: Option<String>,
    tls_ca: Option<String>,
) -> PyResult<()> {
    let credentials = Credentials::new(tls_ca, token);
    py.detach(|| {
        let timeout = Duration::from_secs_f64(timeout_s.max(0.1));
        let mut api = Api::connect(controller, &credentials, timeout)?;
        let r = api
            .runtime
            .block_on(api.client.release_job(proto::ReleaseJobRequest {
                job_id: u32::from(job_id),
            }));
        r.map(|_| ())
            .map_err(|s| api.status("releasing the job", s))
    })
}

/// The switch's per-job counters of `job_id` (name → packets): chunks
/// completed in the switch, evictions suffered, fallbacks...
#[pyfunction]
#[pyo3(signature = (controller, job_id, *, timeout_s=10.0, token=None, tls_ca=None))]
fn job_stats<'py>(
    py: Python<'py>,
    controller: &str,
    job_id: u16,
    timeout_s: f64,
    token: Option<String>,
    tls_ca: Option<String>,
) -> PyResult<Bound<'py, PyDict>> {
    let credentials = Credentials::new(tls_ca, token);
    let counters = py.detach(|| {
        let timeout = Duration::from_secs_f64(timeout_s.max(0.1));
        let mut api = Api::connect(controller, &credentials, timeout)?;
        let r = api
            .runtime
            .block_on(api.client.job_stats(proto::JobStatsRequest {
                job_ids: vec![u32::from(job_id)],
            }));
        r.map(|r| r.into_inner().jobs)
            .map_err(|s| api.status("reading job counters", s))
    })?;
    let d = PyDict::new(py);
    for job in counters {
        for c in job.counters {
            d.set_item(c.name, c.packets)?;
        }
    }
    Ok(d)
}

/// The IPv4 address and MAC of host `port` in a generated topology
/// (`esa local`), for logs.
#[pyfunction]
fn host_address(port: u16) -> (String, String) {
    let a = port_host(port);
    (
        std::net::Ipv4Addr::from(a.ip.0).to_string(),
        a.mac
            .0
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(":"),
    )
}

/// Reads and checks a hosts file of `esa run --switch external` (the
/// same parser): `(switch_ip, hosts)`, each host a dict of `name`, `mac`,
/// `ip`, `port` and `netns` (None when not given), in file order.
#[pyfunction]
fn hosts_file<'py>(
    py: Python<'py>,
    path: std::path::PathBuf,
) -> PyResult<(String, Vec<Bound<'py, PyDict>>)> {
    let file = esa_testbed::HostsFile::load(&path)
        .map_err(|e| PyValueError::new_err(format!("hosts file: {e}")))?;
    let hosts = file
        .hosts
        .iter()
        .map(|h| {
            let d = PyDict::new(py);
            d.set_item("name", &h.host.name)?;
            d.set_item("mac", esa_netns::mac_text(h.host.mac.0))?;
            d.set_item("ip", std::net::Ipv4Addr::from(h.host.ip.0).to_string())?;
            d.set_item("port", h.host.port)?;
            d.set_item("netns", h.netns.as_deref())?;
            Ok(d)
        })
        .collect::<PyResult<Vec<_>>>()?;
    Ok((file.switch_ip.to_string(), hosts))
}

#[pymodule]
fn _esa(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Worker>()?;
    m.add_class::<ParameterServer>()?;
    m.add_class::<Admission>()?;
    m.add("IntegrityError", m.py().get_type::<IntegrityError>())?;
    m.add_function(wrap_pyfunction!(admit, m)?)?;
    m.add_function(wrap_pyfunction!(release, m)?)?;
    m.add_function(wrap_pyfunction!(job_stats, m)?)?;
    m.add_function(wrap_pyfunction!(host_address, m)?)?;
    m.add_function(wrap_pyfunction!(hosts_file, m)?)?;
    m.add("MAX_WORLD_SIZE", MAX_FAN_IN)?;
    Ok(())
}
