//! Configuration of `esa worker` and `esa ps`: a TOML file, command-line
//! flags, or both (flags win). Every key is optional in the file; what is
//! required and missing is an error naming the key and the flag.
//!
//! ```toml
//! [worker]
//! switch = "10.0.0.254:17747"   # required; a bare address means port 17747
//! bind = "0.0.0.0:17747"        # default
//! job = 3                       # required, 1..=4095
//! worker_id = 0                 # required, below fan_in
//! fan_in = 4                    # required, 1..=32
//! lanes = 32                    # default; what the switch was built for
//! window = 64                   # default; chunks in flight
//! exponent = 16                 # default; value = lane × 2^-exponent
//! rto_initial_us = 1000         # default; until a round trip is measured
//! # rto_min_us = 1000           # optional floor of the measured RTO; default rto_initial_us
//! rto_max_us = 64000            # default
//! max_retries = 50              # default
//! result_cache = 256            # default: four windows (two for atp, switchml)
//! policy = "fcfs"               # default; fcfs | static:N | srpt | las
//! aging_interval_us = 50000     # default, for srpt and las; 0 = no aging
//! mode = "esa"                  # default; esa | atp | switchml (slot mapping)
//! slot_mask = 4095              # default; the job's slot range is 0..=slot_mask
//! average = false               # default; true returns the mean
//! start_seq = 0                 # default; seq to rejoin a running job at
//! # chunks_total = 1000000      # optional, for srpt
//!
//! [train]                       # the synthetic training loop of `esa worker`
//! iterations = 10               # default
//! elements = 262144             # default; float32 values per gradient
//! seed = 1                      # default; the same on every worker
//! verify = true                 # default; compare with the exact sum
//! linger_ms = 1000              # default; answer peers' QUERYs afterwards
//! # duration_s = 60             # optional wall-time limit
//!
//! [ps]
//! switch = "10.0.0.254:17747"   # required
//! bind = "0.0.0.0:17747"        # default
//! lanes = 32                    # default
//! result_cache = 4096           # default, per job
//! query_interval_us = 1000      # default
//! max_parts_per_chunk = 64      # default
//! max_pending_chunks = 4096     # default, per job
//! report_interval_ms = 1000     # default; 0 = only at exit
//! # duration_s = 600            # optional wall-time limit
//!
//! [[ps.job]]                    # one per job served (or --job ID:FAN_IN[:MODE])
//! id = 3
//! fan_in = 4
//! mode = "esa"                  # default; atp makes the PS forward RESULTs
//! ```

use crate::worker::WorkerOptions;
use esa_core::constants::{DEFAULT_POOL_SLOTS, ESA_UDP_PORT};
use esa_core::job::{Mode, SlotRange};
use esa_core::plan::JobPlan;
use esa_core::policy::{DEFAULT_AGING_INTERVAL_US, Policy};
use esa_core::ps::{JobOptions, PsConfig, PsError};
use esa_core::rtt::Rto;
use esa_core::worker::{WorkerConfig, WorkerError};
use serde::Deserialize;
use std::net::{IpAddr, SocketAddr, ToSocketAddrs};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid TOML for this schema (unknown key, wrong type,
    /// number out of range); the message names the key and line.
    #[error("config file {path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The parser's message.
        message: String,
    },
    /// A required key is in neither the file nor the flags.
    #[error("missing `{key}`: set it in the config file or with --{flag}")]
    Missing {
        /// The TOML key, `section.name`.
        key: &'static str,
        /// The flag.
        flag: &'static str,
    },
    /// A value is present but unusable.
    #[error("`{key}` = {value}: {reason}")]
    Invalid {
        /// The TOML key, `section.name`.
        key: String,
        /// The value given.
        value: String,
        /// Why it is refused.
        reason: String,
    },
}

fn invalid(key: &str, value: impl ToString, reason: impl ToString) -> ConfigError {
    ConfigError::Invalid {
        key: key.to_string(),
        value: value.to_string(),
        reason: reason.to_string(),
    }
}

/// A whole configuration file; every section is optional.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// `[worker]`.
    pub worker: Option<WorkerSection>,
    /// `[train]`.
    pub train: Option<TrainSection>,
    /// `[ps]`.
    pub ps: Option<PsSection>,
}

impl ConfigFile {
    /// Reads and parses a file.
    pub fn load(path: &Path) -> Result<ConfigFile, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        ConfigFile::parse(&text, path)
    }

    /// Parses TOML text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &Path) -> Result<ConfigFile, ConfigError> {
        toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: origin.to_path_buf(),
            message: e.to_string().trim_end().to_string(),
        })
    }
}

/// `[worker]`; the `esa` binary's `esa worker` takes every key as a flag.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkerSection {
    /// Switch address, host:port (port 17747 if omitted).
    pub switch: Option<String>,
    /// Local address to bind [default: 0.0.0.0:17747].
    pub bind: Option<String>,
    /// Job id, 1..=4095.
    pub job: Option<u16>,
    /// This worker's id, below the fan-in.
    pub worker_id: Option<u8>,
    /// Workers in the job, 1..=32.
    pub fan_in: Option<u8>,
    /// int32 lanes per packet [default: 32].
    pub lanes: Option<usize>,
    /// Chunks in flight [default: 64].
    pub window: Option<usize>,
    /// Quantization exponent [default: 16].
    pub exponent: Option<i8>,
    /// Retransmission timeout before a round trip is measured, µs
    /// [default: 1000].
    pub rto_initial_us: Option<u64>,
    /// Floor of the measured retransmission timeout, µs [default:
    /// rto_initial_us].
    pub rto_min_us: Option<u64>,
    /// Largest retransmission timeout, µs [default: 64000].
    pub rto_max_us: Option<u64>,
    /// Resends of a chunk before failing [default: 50].
    pub max_retries: Option<u32>,
    /// Results kept to answer QUERYs [default: 4 × window].
    pub result_cache: Option<usize>,
    /// Priority policy: fcfs, static:N, srpt or las [default: fcfs].
    pub policy: Option<String>,
    /// Aging period of srpt and las, µs; 0 disables aging [default: 50000].
    pub aging_interval_us: Option<u64>,
    /// The job's mode in the switch: esa, atp or switchml [default: esa].
    pub mode: Option<String>,
    /// The job's slot range is 0..=slot_mask [default: 4095].
    pub slot_mask: Option<u16>,
    /// Return the mean instead of the sum [default: false].
    pub average: Option<bool>,
    /// Seq to (re)join a running job at: the `seq_base` of the all-reduce to
    /// redo, the same on every worker (`WorkerConfig::first_seq`)
    /// [default: 0].
    pub start_seq: Option<u16>,
    /// Chunks the job sends in all, for srpt.
    pub chunks_total: Option<u64>,
}

/// `[train]`; `esa worker` takes every key as a flag.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrainSection {
    /// All-reduces to run [default: 10].
    pub iterations: Option<u32>,
    /// float32 elements per gradient [default: 262144].
    pub elements: Option<usize>,
    /// Seed of the synthetic gradients, the same on every worker [default: 1].
    pub seed: Option<u64>,
    /// Check every result against the exact sum [default: true].
    pub verify: Option<bool>,
    /// Keep answering peers' QUERYs this long after the last iteration, ms
    /// [default: 1000].
    pub linger_ms: Option<u64>,
    /// Stop starting iterations after this many seconds.
    pub duration_s: Option<u64>,
}

/// `[ps]`; `esa ps` takes every key as a flag (the jobs as `--job`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PsSection {
    /// Switch address, host:port (port 17747 if omitted).
    pub switch: Option<String>,
    /// Local address to bind [default: 0.0.0.0:17747].
    pub bind: Option<String>,
    /// int32 lanes per packet [default: 32].
    pub lanes: Option<usize>,
    /// Results cached per job [default: 4096].
    pub result_cache: Option<usize>,
    /// At most one QUERY per chunk per this many µs [default: 1000].
    pub query_interval_us: Option<u64>,
    /// Parts stored per chunk [default: 64].
    pub max_parts_per_chunk: Option<usize>,
    /// Incomplete chunks kept per job [default: 4096].
    pub max_pending_chunks: Option<usize>,
    /// Print per-job fallback volume this often, ms; 0 = only at exit
    /// [default: 1000].
    pub report_interval_ms: Option<u64>,
    /// Exit after this many seconds.
    pub duration_s: Option<u64>,
    /// Jobs served: `[[ps.job]]` tables (flags: --job).
    #[serde(default, rename = "job")]
    pub jobs: Vec<PsJobSection>,
}

/// `[[ps.job]]`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PsJobSection {
    /// Job id.
    pub id: u16,
    /// Workers in the job.
    pub fan_in: u8,
    /// The job's mode in the switch [default: esa].
    pub mode: Option<String>,
}

impl std::str::FromStr for PsJobSection {
    type Err = String;

    /// `ID:FAN_IN` or `ID:FAN_IN:MODE`.
    fn from_str(s: &str) -> Result<PsJobSection, String> {
        let mut parts = s.split(':');
        let err = || format!("{s:?} is not ID:FAN_IN[:MODE]");
        let id = parts.next().and_then(|p| p.parse().ok()).ok_or_else(err)?;
        let fan_in = parts.next().and_then(|p| p.parse().ok()).ok_or_else(err)?;
        let mode = parts.next().map(str::to_string);
        if parts.next().is_some() {
            return Err(err());
        }
        Ok(PsJobSection { id, fan_in, mode })
    }
}

macro_rules! overlay {
    ($base:expr, $over:expr; $($field:ident),* $(,)?) => {{
        let mut merged = $base;
        $( if $over.$field.is_some() { merged.$field = $over.$field.clone(); } )*
        merged
    }};
}

impl WorkerSection {
    /// This section with every key `flags` sets replaced.
    pub fn overlay(&self, flags: &WorkerSection) -> WorkerSection {
        overlay!(self.clone(), flags; switch, bind, job, worker_id, fan_in, lanes, window,
            exponent, rto_initial_us, rto_min_us, rto_max_us, max_retries, result_cache, policy,
            aging_interval_us, mode, slot_mask, average, start_seq, chunks_total)
    }
}

impl TrainSection {
    /// This section with every key `flags` sets replaced.
    pub fn overlay(&self, flags: &TrainSection) -> TrainSection {
        overlay!(self.clone(), flags; iterations, elements, seed, verify, linger_ms, duration_s)
    }
}

impl PsSection {
    /// This section with every key `flags` sets replaced; jobs given as
    /// flags replace the file's list.
    pub fn overlay(&self, flags: &PsSection) -> PsSection {
        let mut merged = overlay!(self.clone(), flags; switch, bind, lanes, result_cache,
            query_interval_us, max_parts_per_chunk, max_pending_chunks, report_interval_ms,
            duration_s);
        if !flags.jobs.is_empty() {
            merged.jobs = flags.jobs.clone();
        }
        merged
    }
}

/// Parses `host:port`, `ip` (port 17747) or `name:port`.
pub fn parse_addr(key: &str, value: &str) -> Result<SocketAddr, ConfigError> {
    if let Ok(a) = value.parse::<SocketAddr>() {
        return Ok(a);
    }
    if let Ok(ip) = value.parse::<IpAddr>() {
        return Ok(SocketAddr::new(ip, ESA_UDP_PORT));
    }
    match value.to_socket_addrs() {
        Ok(mut addrs) => addrs
            .next()
            .ok_or_else(|| invalid(key, value, "the name has no address")),
        Err(e) => Err(invalid(
            key,
            value,
            format!("not an address (expected host:port or an IP address): {e}"),
        )),
    }
}

fn parse_mode(key: &str, value: Option<&str>) -> Result<Mode, ConfigError> {
    match value {
        None => Ok(Mode::Esa),
        Some(v) => v
            .parse()
            .map_err(|_| invalid(key, v, "expected esa, atp or switchml")),
    }
}

/// Everything a worker runtime needs.
#[derive(Debug, Clone)]
pub struct WorkerSettings {
    /// The runtime's options.
    pub options: WorkerOptions,
    /// Local address to bind.
    pub bind: SocketAddr,
}

/// The default local address of hosts.
pub fn default_bind() -> SocketAddr {
    SocketAddr::new(IpAddr::from([0, 0, 0, 0]), ESA_UDP_PORT)
}

impl WorkerSection {
    /// Fills in the documented defaults and validates every key.
    pub fn resolve(&self) -> Result<WorkerSettings, ConfigError> {
        let switch = self.switch.as_deref().ok_or(ConfigError::Missing {
            key: "worker.switch",
            flag: "switch",
        })?;
        let switch = parse_addr("worker.switch", switch)?;
        let bind = match &self.bind {
            Some(b) => parse_addr("worker.bind", b)?,
            None => default_bind(),
        };
        let job = self.job.ok_or(ConfigError::Missing {
            key: "worker.job",
            flag: "job",
        })?;
        let worker_id = self.worker_id.ok_or(ConfigError::Missing {
            key: "worker.worker_id",
            flag: "worker-id",
        })?;
        let fan_in = self.fan_in.ok_or(ConfigError::Missing {
            key: "worker.fan_in",
            flag: "fan-in",
        })?;
        let mode = parse_mode("worker.mode", self.mode.as_deref())?;
        let slots = match self.slot_mask {
            Some(mask) => SlotRange { base: 0, mask },
            None => SlotRange::whole_pool(DEFAULT_POOL_SLOTS),
        };
        let mut plan = JobPlan::new(job, fan_in, mode, slots);
        plan.lanes = self.lanes.unwrap_or(plan.lanes);
        plan.window = self.window.unwrap_or(plan.window);
        plan.exponent = self.exponent.unwrap_or(plan.exponent);
        plan.rto = Rto {
            initial_us: self.rto_initial_us.unwrap_or(plan.rto.initial_us),
            min_us: self.rto_min_us,
            max_us: self.rto_max_us.unwrap_or(plan.rto.max_us),
            retries: self.max_retries.unwrap_or(plan.rto.retries),
        };
        plan.result_cache = self.result_cache;
        plan.chunks_total = self.chunks_total;
        plan.first_seq = self.start_seq.unwrap_or(0);
        let policy_text = self.policy.as_deref().unwrap_or("fcfs");
        let mut policy: Policy = policy_text
            .parse()
            .map_err(|e| invalid("worker.policy", policy_text, e))?;
        let aging = self.aging_interval_us.unwrap_or(DEFAULT_AGING_INTERVAL_US);
        match &mut policy {
            Policy::Srpt { aging_interval_us } | Policy::Las { aging_interval_us } => {
                *aging_interval_us = aging;
            }
            Policy::Fcfs | Policy::Static { .. } => {}
        }
        plan.policy = policy;
        let core = plan.worker_config(worker_id);
        core.validate().map_err(|e| worker_error(&core, e))?;
        // A window the job's switchml range cannot hold is refused, not
        // run smaller than asked.
        if plan.window() < plan.window {
            let e = WorkerError::WindowExceedsSlots {
                window: plan.window,
                slots: plan.window() as u32,
            };
            return Err(worker_error(&core, e));
        }
        let mut options = WorkerOptions::new(core, switch);
        options.average = self.average.unwrap_or(false);
        Ok(WorkerSettings { options, bind })
    }
}

/// Names the key a state-machine validation error is about.
fn worker_error(cfg: &WorkerConfig, e: WorkerError) -> ConfigError {
    let (key, value) = match &e {
        WorkerError::FanIn(v) => ("worker.fan_in", v.to_string()),
        WorkerError::WorkerId { worker_id, .. } => ("worker.worker_id", worker_id.to_string()),
        WorkerError::Job(v) => ("worker.job", v.to_string()),
        WorkerError::Lanes(v) => ("worker.lanes", v.to_string()),
        WorkerError::Window(v) | WorkerError::WindowExceedsSlots { window: v, .. } => {
            ("worker.window", v.to_string())
        }
        WorkerError::SlotMask(v) => ("worker.slot_mask", v.to_string()),
        WorkerError::Exponent(v) => ("worker.exponent", v.to_string()),
        WorkerError::Rto { initial_us, .. } if *initial_us == 0 => {
            ("worker.rto_initial_us", initial_us.to_string())
        }
        WorkerError::Rto { max_us, .. } => ("worker.rto_max_us", max_us.to_string()),
        WorkerError::RtoMin { min_us, .. } => ("worker.rto_min_us", min_us.to_string()),
        _ => ("worker", format!("{cfg:?}")),
    };
    invalid(key, value, e)
}

/// The training loop's settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrainSettings {
    /// All-reduces to run.
    pub iterations: u32,
    /// Elements per gradient.
    pub elements: usize,
    /// Gradient seed.
    pub seed: u64,
    /// Check results against the exact sum.
    pub verify: bool,
    /// Serve QUERYs this long at the end.
    pub linger: Duration,
    /// Wall-time limit.
    pub duration: Option<Duration>,
}

impl TrainSection {
    /// Fills in the documented defaults.
    pub fn resolve(&self) -> Result<TrainSettings, ConfigError> {
        let elements = self.elements.unwrap_or(1 << 18);
        if elements > 1 << 28 {
            return Err(invalid(
                "train.elements",
                elements,
                "more than 2^28 elements (1 GiB) per gradient",
            ));
        }
        Ok(TrainSettings {
            iterations: self.iterations.unwrap_or(10),
            elements,
            seed: self.seed.unwrap_or(1),
            verify: self.verify.unwrap_or(true),
            linger: Duration::from_millis(self.linger_ms.unwrap_or(1000)),
            duration: self.duration_s.map(Duration::from_secs),
        })
    }
}

/// One job a parameter server serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PsJob {
    /// Job id.
    pub job: u16,
    /// Workers.
    pub fan_in: u8,
    /// Options (atp mode forwards results).
    pub options: JobOptions,
}

/// Everything a parameter-server runtime needs.
#[derive(Debug, Clone)]
pub struct PsSettings {
    /// The state machine's settings.
    pub config: PsConfig,
    /// Where RESULTs and QUERYs go.
    pub switch: SocketAddr,
    /// Local address to bind.
    pub bind: SocketAddr,
    /// Jobs served.
    pub jobs: Vec<PsJob>,
    /// How often to print the fallback volume; `None` only at exit.
    pub report_interval: Option<Duration>,
    /// Wall-time limit.
    pub duration: Option<Duration>,
}

impl PsSection {
    /// Fills in the documented defaults and validates every key.
    pub fn resolve(&self) -> Result<PsSettings, ConfigError> {
        let switch = self.switch.as_deref().ok_or(ConfigError::Missing {
            key: "ps.switch",
            flag: "switch",
        })?;
        let switch = parse_addr("ps.switch", switch)?;
        let bind = match &self.bind {
            Some(b) => parse_addr("ps.bind", b)?,
            None => default_bind(),
        };
        let d = PsConfig::default();
        let config = PsConfig {
            lanes: self.lanes.unwrap_or(d.lanes),
            result_cache: self.result_cache.unwrap_or(d.result_cache),
            query_interval_us: self.query_interval_us.unwrap_or(d.query_interval_us),
            max_parts_per_chunk: self.max_parts_per_chunk.unwrap_or(d.max_parts_per_chunk),
            max_pending_chunks: self.max_pending_chunks.unwrap_or(d.max_pending_chunks),
        };
        config.validate().map_err(|e| {
            let (key, value) = match &e {
                PsError::Lanes(v) => ("ps.lanes", v.to_string()),
                PsError::ResultCache(v) => ("ps.result_cache", v.to_string()),
                PsError::MaxParts(v) => ("ps.max_parts_per_chunk", v.to_string()),
                PsError::MaxPendingChunks(v) => ("ps.max_pending_chunks", v.to_string()),
                _ => ("ps", String::new()),
            };
            invalid(key, value, e)
        })?;
        if self.jobs.is_empty() {
            return Err(ConfigError::Missing {
                key: "ps.job",
                flag: "job",
            });
        }
        // Check each job the way the state machine will, so the error names it.
        let mut probe =
            esa_core::ps::ParameterServer::new(config.clone()).map_err(|e| invalid("ps", "", e))?;
        let mut jobs = Vec::new();
        for (i, j) in self.jobs.iter().enumerate() {
            let mode = parse_mode(&format!("ps.job[{i}].mode"), j.mode.as_deref())?;
            let options = JobOptions::for_mode(mode);
            probe.add_job_with(j.id, j.fan_in, options).map_err(|e| {
                let field = match e {
                    PsError::FanIn(_) | PsError::FanInExceedsMaxParts { .. } => "fan_in",
                    _ => "id",
                };
                let value = if field == "id" {
                    j.id.to_string()
                } else {
                    j.fan_in.to_string()
                };
                invalid(&format!("ps.job[{i}].{field}"), value, e)
            })?;
            jobs.push(PsJob {
                job: j.id,
                fan_in: j.fan_in,
                options,
            });
        }
        let report_ms = self.report_interval_ms.unwrap_or(1000);
        Ok(PsSettings {
            config,
            switch,
            bind,
            jobs,
            report_interval: (report_ms > 0).then(|| Duration::from_millis(report_ms)),
            duration: self.duration_s.map(Duration::from_secs),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use esa_core::job::SlotMapping;

    fn parse(text: &str) -> Result<ConfigFile, ConfigError> {
        ConfigFile::parse(text, Path::new("test.toml"))
    }

    const FULL: &str = r#"
        [worker]
        switch = "10.0.0.254"
        bind = "127.0.0.1:0"
        job = 3
        worker_id = 1
        fan_in = 4
        lanes = 64
        window = 32
        exponent = -4
        rto_initial_us = 500
        rto_min_us = 100
        rto_max_us = 8000
        max_retries = 9
        policy = "las"
        aging_interval_us = 0
        mode = "switchml"
        slot_mask = 63
        average = true
        start_seq = 100

        [train]
        iterations = 3
        elements = 1000

        [ps]
        switch = "127.0.0.1:9000"
        result_cache = 16
        report_interval_ms = 0

        [[ps.job]]
        id = 3
        fan_in = 4

        [[ps.job]]
        id = 4
        fan_in = 2
        mode = "atp"
    "#;

    #[test]
    fn a_full_file_resolves() {
        let file = parse(FULL).unwrap();
        let w = file.worker.unwrap().resolve().unwrap();
        let c = &w.options.core;
        assert_eq!(w.options.switch, "10.0.0.254:17747".parse().unwrap());
        assert_eq!(w.bind, "127.0.0.1:0".parse().unwrap());
        assert_eq!(
            (c.job, c.worker_id, c.fan_in, c.lanes, c.window),
            (3, 1, 4, 64, 32)
        );
        assert_eq!(
            (c.exponent, c.rto_initial_us, c.rto_max_us, c.max_retries),
            (-4, 500, 8000, 9)
        );
        assert_eq!(c.rto_min_us, Some(100));
        assert_eq!(
            c.policy,
            Policy::Las {
                aging_interval_us: 0
            }
        );
        assert_eq!((c.slot_mapping, c.slot_mask), (SlotMapping::Direct, 63));
        assert_eq!(c.result_cache, 64, "two windows: switchml is self-clocked");
        assert!(w.options.average);
        assert_eq!(c.first_seq, 100);
        let t = file.train.unwrap().resolve().unwrap();
        assert_eq!(
            (t.iterations, t.elements, t.seed, t.verify),
            (3, 1000, 1, true)
        );
        let ps = file.ps.unwrap().resolve().unwrap();
        assert_eq!(ps.config.result_cache, 16);
        assert_eq!(ps.report_interval, None);
        assert_eq!(ps.bind, default_bind());
        assert_eq!(
            ps.jobs,
            vec![
                PsJob {
                    job: 3,
                    fan_in: 4,
                    options: JobOptions {
                        forward_results: false,
                        ..JobOptions::default()
                    }
                },
                PsJob {
                    job: 4,
                    fan_in: 2,
                    options: JobOptions {
                        forward_results: true,
                        ..JobOptions::default()
                    }
                },
            ]
        );
    }

    #[test]
    fn defaults_are_the_documented_ones() {
        let w = WorkerSection {
            switch: Some("127.0.0.1:1".into()),
            job: Some(1),
            worker_id: Some(0),
            fan_in: Some(2),
            ..WorkerSection::default()
        }
        .resolve()
        .unwrap();
        let c = &w.options.core;
        assert_eq!(w.bind, "0.0.0.0:17747".parse().unwrap());
        assert_eq!((c.lanes, c.window, c.exponent), (32, 64, 16));
        assert_eq!(
            (c.rto_initial_us, c.rto_max_us, c.max_retries),
            (1000, 64000, 50)
        );
        assert_eq!(c.rto_min_us, None, "the floor is rto_initial_us");
        assert_eq!(
            (c.result_cache, c.slot_mask, c.policy),
            (256, 4095, Policy::Fcfs)
        );
        assert_eq!((w.options.average, c.first_seq), (false, 0));
        let t = TrainSection::default().resolve().unwrap();
        assert_eq!(
            (t.iterations, t.elements, t.linger),
            (10, 1 << 18, Duration::from_secs(1))
        );
    }

    #[test]
    fn flags_override_the_file() {
        let file = parse(FULL).unwrap().worker.unwrap();
        let flags = WorkerSection {
            job: Some(5),
            policy: Some("static:7".into()),
            ..WorkerSection::default()
        };
        let c = file.overlay(&flags).resolve().unwrap().options.core;
        assert_eq!(
            (c.job, c.worker_id, c.policy),
            (5, 1, Policy::Static { priority: 7 })
        );
    }

    fn message(e: ConfigError) -> String {
        e.to_string()
    }

    #[test]
    fn bad_files_name_the_key() {
        let unknown = message(parse("[worker]\nwindw = 3\n").unwrap_err());
        assert!(unknown.contains("windw"), "{unknown}");
        let range = message(parse("[worker]\nfan_in = 300\n").unwrap_err());
        assert!(
            range.contains("fan_in") && range.contains("line 2"),
            "{range}"
        );
        let typed = message(parse("[ps]\nlanes = \"many\"\n").unwrap_err());
        assert!(typed.contains("lanes"), "{typed}");
        let section = message(parse("[wroker]\n").unwrap_err());
        assert!(section.contains("wroker"), "{section}");
    }

    fn worker(extra: &str) -> Result<WorkerSettings, ConfigError> {
        let text = format!(
            "[worker]\nswitch = \"127.0.0.1:1\"\njob = 2\nfan_in = 4\nworker_id = 0\n{extra}"
        );
        parse(&text).unwrap().worker.unwrap().resolve()
    }

    fn invalid_key(r: Result<WorkerSettings, ConfigError>) -> String {
        match r {
            Err(ConfigError::Invalid { key, .. }) => key,
            other => panic!("expected an invalid key, got {other:?}"),
        }
    }

    #[test]
    fn bad_values_name_the_key_and_the_reason() {
        let e = parse("[worker]\nswitch = \"127.0.0.1:1\"\njob = 2\nfan_in = 4\n")
            .unwrap()
            .worker
            .unwrap()
            .resolve()
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "missing `worker.worker_id`: set it in the config file or with --worker-id"
        );
        let e = worker("bind = \"nowhere:x\"\n").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("`worker.bind` = nowhere:x: not an address"),
            "{e}"
        );
        assert_eq!(invalid_key(worker("policy = \"lifo\"\n")), "worker.policy");
        assert_eq!(invalid_key(worker("mode = \"p4\"\n")), "worker.mode");
        assert_eq!(invalid_key(worker("window = 0\n")), "worker.window");
        assert_eq!(invalid_key(worker("lanes = 65\n")), "worker.lanes");
        assert_eq!(invalid_key(worker("slot_mask = 100\n")), "worker.slot_mask");
        assert_eq!(
            invalid_key(worker("rto_initial_us = 0\n")),
            "worker.rto_initial_us"
        );
        assert_eq!(
            invalid_key(worker("rto_max_us = 10\n")),
            "worker.rto_max_us"
        );
        assert_eq!(
            invalid_key(worker("rto_min_us = 100000\n")),
            "worker.rto_min_us"
        );
        assert_eq!(invalid_key(worker("exponent = 100\n")), "worker.exponent");
        let e = parse("[worker]\nswitch = \"127.0.0.1:1\"\njob = 2\nfan_in = 4\nworker_id = 4\n")
            .unwrap()
            .worker
            .unwrap()
            .resolve()
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "`worker.worker_id` = 4: worker id 4 is not below the fan-in 4"
        );
    }

    #[test]
    fn bad_ps_jobs_name_the_entry() {
        let ps = |jobs: &str| {
            parse(&format!("[ps]\nswitch = \"127.0.0.1:1\"\n{jobs}"))
                .unwrap()
                .ps
                .unwrap()
                .resolve()
        };
        assert!(matches!(
            ps(""),
            Err(ConfigError::Missing { key: "ps.job", .. })
        ));
        let e =
            ps("[[ps.job]]\nid = 1\nfan_in = 2\n[[ps.job]]\nid = 2\nfan_in = 2\nmode = \"x\"\n")
                .unwrap_err();
        assert!(e.to_string().starts_with("`ps.job[1].mode` = x"), "{e}");
        let e = ps("[[ps.job]]\nid = 1\nfan_in = 0\n").unwrap_err();
        assert!(e.to_string().starts_with("`ps.job[0].fan_in` = 0"), "{e}");
        let e = ps("[[ps.job]]\nid = 0\nfan_in = 2\n").unwrap_err();
        assert!(e.to_string().starts_with("`ps.job[0].id` = 0"), "{e}");
        let e = ps("[[ps.job]]\nid = 1\nfan_in = 2\n[[ps.job]]\nid = 1\nfan_in = 3\n").unwrap_err();
        assert!(e.to_string().contains("already served"), "{e}");
    }

    #[test]
    fn job_flags_parse() {
        assert_eq!(
            "3:4:atp".parse::<PsJobSection>(),
            Ok(PsJobSection {
                id: 3,
                fan_in: 4,
                mode: Some("atp".into())
            })
        );
        assert_eq!(
            "3:4".parse::<PsJobSection>(),
            Ok(PsJobSection {
                id: 3,
                fan_in: 4,
                mode: None
            })
        );
        for bad in ["3", "x:4", "3:4:atp:1", ""] {
            assert!(bad.parse::<PsJobSection>().is_err(), "{bad}");
        }
    }
}
