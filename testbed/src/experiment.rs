//! The experiment file: the switch, the jobs and what to compare.
//!
//! Parsing is strict (`deny_unknown_fields`): a misspelt key is an error
//! that names it and its line. [`Experiment::load`] also checks every value
//! and resolves model profiles, so a loaded experiment can run.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use esa_controller::config_file::read_config;
use esa_core::constants::{MAX_FAN_IN, MAX_JOB_ID, MAX_PRIORITY};
use esa_core::job::Mode;
use esa_core::policy::Policy;
use esa_host::transport::TransportChoice;
use serde::Deserialize;

use crate::error::TestbedError;
use crate::topology::{Placement, PlacementPolicy, Topology};
use crate::train::TrainSpec;

/// Largest number of hosts (workers and PSes) in one experiment: a host
/// per switch port, ports 1..=[`MAX_PORT`](esa_controller::topology::MAX_PORT).
pub const MAX_HOSTS: usize = esa_controller::topology::MAX_PORT as usize;

/// A built-in model profile. Two sets of numbers:
///
/// - the emulator's (`gradient_elems`, `compute_ms`): about 1/1024 of the
///   real parameter count, so that a run on the software switch on a laptop
///   takes seconds, with compute times chosen to keep a similar
///   compute/communication balance (not measured). Experiments without a
///   `scale` key use these.
/// - the real model's (`real_params`, `real_compute_ms`), with `source`
///   saying where each comes from. `scale = s` gives a job
///   `round(real_params × s)` elements and `real_compute_ms × s` of compute.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Profile {
    /// Name used in experiment files.
    pub name: &'static str,
    /// Emulator: gradient elements (float32) per iteration.
    pub gradient_elems: usize,
    /// Emulator: compute time per iteration, milliseconds.
    pub compute_ms: u64,
    /// The real model's parameter count (one float32 gradient element each).
    pub real_params: u64,
    /// Forward and backward time of one iteration on one GPU, milliseconds,
    /// at the batch size `source` states.
    pub real_compute_ms: f64,
    /// Where `real_params` and `real_compute_ms` come from.
    pub source: &'static str,
}

// Parameter counts: counted from the architectures' layer shapes (the
// torchvision layouts for the CNNs, 1000 classes; HuggingFace
// `bert-base-uncased` with its pooler; HuggingFace `gpt2` with the output
// layer tied to the token embedding) by testbed/scripts/count_params.py;
// they equal the counts the torchvision documentation and the HuggingFace
// model cards give.
//
// CNN compute times: Justin Johnson's cnn-benchmarks
// (github.com/jcjohnson/cnn-benchmarks, README), forward + backward of one
// batch of 16 images 224×224 in Torch, fp32, on a GTX 1080 Ti with cuDNN
// 5.1.10 (the "Total (ms)" column): AlexNet 13.89, VGG-16 128.14,
// ResNet-50 101.21, ResNet-101 154.26.
//
// GPT-2 small: nanoGPT's README (github.com/karpathy/nanoGPT, "efficiency
// notes"): torch.compile cut GPT-2 124M's iteration time "from ~250ms / iter
// to 135ms / iter" on an A100 (its bench.py: 1024-token sequences, batch 8
// to 12 depending on the version, fp16/bf16 autocast). Forward, backward and
// optimizer step.
//
// BERT-base: no published single-GPU per-iteration time was found for the
// same setups; an ESTIMATE: the same tokens per iteration as GPT-2's 135 ms,
// scaled by the parameter ratio (training FLOPs ≈ 6 × params × tokens):
// 135 × 109,482,240 / 124,439,808 = 118.8 ms. A cross-check from another
// source: NVIDIA DeepLearningExamples, PyTorch/LanguageModeling/BERT
// README, BERT-large pre-training on 1 A100 80GB, TF32, sequence 128: 317
// sequences/s; scaled by parameters (335 M / 109.5 M = 3.06) that is about
// 970 sequences/s for BERT-base, so the same 12,288 tokens (96 × 128) take
// 96 / 970 = 99 ms, within 20 % of the estimate.
//
// The new profiles' emulator numbers: gradient_elems = real_params / 1024
// rounded; compute_ms from the real time by the ratio of the nearest
// existing profile: CNNs by resnet50's 30 / 101.21 (resnet101: 154.26 ×
// 0.2964 = 45.7 -> 46; alexnet: 13.89 × 0.2964 = 4.1 -> 4), gpt2-small by
// bert-base's 80 / 118.8 (135 × 0.673 = 90.9 -> 91).

/// The built-in profiles.
pub const PROFILES: [Profile; 6] = [
    Profile {
        name: "resnet50",
        gradient_elems: 25_000,
        compute_ms: 30,
        real_params: 25_557_032,
        real_compute_ms: 101.21,
        source: "params: torchvision resnet50, counted from layer shapes; compute: \
                 jcjohnson/cnn-benchmarks ResNet-50, GTX 1080 Ti, cuDNN 5.1.10, batch 16, \
                 fp32, forward+backward total 101.21 ms",
    },
    Profile {
        name: "vgg16",
        gradient_elems: 135_000,
        compute_ms: 60,
        real_params: 138_357_544,
        real_compute_ms: 128.14,
        source: "params: torchvision vgg16, counted from layer shapes; compute: \
                 jcjohnson/cnn-benchmarks VGG-16, GTX 1080 Ti, cuDNN 5.1.10, batch 16, fp32, \
                 forward+backward total 128.14 ms",
    },
    Profile {
        name: "bert-base",
        gradient_elems: 107_000,
        compute_ms: 80,
        real_params: 109_482_240,
        real_compute_ms: 118.8,
        source: "params: HuggingFace bert-base-uncased (with pooler), counted from layer \
                 shapes; compute: ESTIMATE, no citable single-GPU time found: gpt2-small's \
                 135 ms (nanoGPT, A100) at the same tokens per iteration x 109.48 M / 124.44 M \
                 params = 118.8 ms",
    },
    Profile {
        name: "resnet101",
        gradient_elems: 43_505,
        compute_ms: 46,
        real_params: 44_549_160,
        real_compute_ms: 154.26,
        source: "params: torchvision resnet101, counted from layer shapes; compute: \
                 jcjohnson/cnn-benchmarks ResNet-101, GTX 1080 Ti, cuDNN 5.1.10, batch 16, \
                 fp32, forward+backward total 154.26 ms",
    },
    Profile {
        name: "alexnet",
        gradient_elems: 59_669,
        compute_ms: 4,
        real_params: 61_100_840,
        real_compute_ms: 13.89,
        source: "params: torchvision alexnet, counted from layer shapes; compute: \
                 jcjohnson/cnn-benchmarks AlexNet (BVLC), GTX 1080 Ti, cuDNN 5.1.10, batch 16, \
                 fp32, forward+backward total 13.89 ms",
    },
    Profile {
        name: "gpt2-small",
        gradient_elems: 121_523,
        compute_ms: 91,
        real_params: 124_439_808,
        real_compute_ms: 135.0,
        source: "params: HuggingFace gpt2 (124 M, output layer tied to the embedding), counted \
                 from layer shapes; compute: karpathy/nanoGPT README efficiency notes, \
                 135 ms/iter with torch.compile on an A100, 1024-token sequences \
                 (bench.py batch 8-12), mixed precision",
    },
];

/// Looks a profile up by name.
pub fn profile(name: &str) -> Option<Profile> {
    PROFILES.iter().copied().find(|p| p.name == name)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    name: Option<String>,
    #[serde(default = "default_seed")]
    seed: u64,
    scale: Option<f64>,
    switch: SwitchSection,
    fabric: Option<FabricSection>,
    #[serde(default)]
    jobs: Vec<JobSection>,
    workload: Option<WorkloadSection>,
    compare: Option<CompareSection>,
    topology: Option<TopologySection>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TopologySection {
    racks: u16,
    hosts_per_rack: u16,
    spines: u16,
    oversubscription: Option<f64>,
    uplink_gbps: Option<f64>,
    placement: Option<String>,
    max_racks_per_job: Option<u16>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FabricSection {
    kind: Option<String>,
    transport: Option<String>,
    link_gbps: Option<f64>,
    propagation_us: Option<f64>,
    host_gbps: Option<f64>,
    ps_service_ns: Option<u64>,
    bundle: Option<u32>,
    compute_jitter: Option<f64>,
}

/// One number, or a list to choose from.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct WorkloadSection {
    arrivals: Option<String>,
    trace: Option<PathBuf>,
    jobs: Option<usize>,
    load: Option<f64>,
    models: Option<Vec<String>>,
    workers: Option<OneOrMany<u8>>,
    iterations: Option<OneOrMany<u32>>,
    window: Option<usize>,
}

fn default_seed() -> u64 {
    1
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SwitchSection {
    lanes: usize,
    pool_slots: u32,
    program: Option<PathBuf>,
    arch: Option<String>,
    #[serde(default)]
    loss: f64,
    #[serde(default = "default_loss_links")]
    loss_links: String,
    stale_after_ms: Option<u64>,
}

fn default_loss_links() -> String {
    "all".into()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TrainSection {
    #[serde(default = "default_features")]
    features: usize,
    #[serde(default = "default_classes")]
    classes: usize,
    #[serde(default = "default_samples")]
    samples: usize,
    #[serde(default = "default_learning_rate")]
    learning_rate: f64,
}

fn default_features() -> usize {
    32
}

fn default_classes() -> usize {
    4
}

fn default_samples() -> usize {
    2048
}

fn default_learning_rate() -> f64 {
    0.5
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct JobSection {
    name: String,
    arrival_ms: Option<u64>,
    arrival_us: Option<u64>,
    workers: u8,
    model: Option<String>,
    gradient_elems: Option<usize>,
    compute_ms: Option<u64>,
    compute_us: Option<u64>,
    iterations: u32,
    #[serde(default = "default_mode")]
    mode: String,
    #[serde(default = "default_policy")]
    policy: String,
    priority: Option<u8>,
    slots: Option<u32>,
    slot_base: Option<u32>,
    window: Option<usize>,
    train: Option<TrainSection>,
}

fn default_mode() -> String {
    "esa".into()
}

fn default_policy() -> String {
    "fcfs".into()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CompareSection {
    variants: Vec<String>,
    second_level: Option<Vec<bool>>,
}

pub use esa_p4::Arch;

/// The switch: what the P4 program is compiled with.
#[derive(Debug, Clone, PartialEq)]
pub struct SwitchSpec {
    /// `[switch] arch`: `v1model` (default) or `tna`; picks the program
    /// when `program` is not given.
    pub arch: Arch,
    /// Value lanes per packet (`ESA_LANES`): 4, 8, 16, 32 or 64.
    pub lanes: usize,
    /// Aggregator slots (`ESA_POOL_SLOTS`), a power of two.
    pub pool_slots: u32,
    /// The P4 program; `None`: `p4/v1model/esa.p4` (`arch = "tna"`:
    /// `p4/tna/esa.p4`) of this source tree.
    pub program: Option<PathBuf>,
    /// Probability that a frame on a host's link is lost, each direction
    /// (seeded from the experiment's seed and the port).
    pub loss: f64,
    /// Which hosts' links lose frames.
    pub loss_links: LossLinks,
    /// The switch's stale bound in milliseconds (an untouched slot older
    /// than this may be reclaimed); `None`: the program's default, 10 ms.
    pub stale_after_ms: Option<u64>,
}

impl SwitchSpec {
    /// The loss probability of a worker's (`ps` false) or a PS's link.
    pub fn link_loss(&self, ps: bool) -> f64 {
        if self.loss_links.covers(ps) {
            self.loss
        } else {
            0.0
        }
    }
}

/// Which host links `loss` applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LossLinks {
    /// Every worker's and every parameter server's link.
    All,
    /// Workers' links only.
    Workers,
    /// Parameter servers' links only.
    ParameterServers,
}

impl LossLinks {
    /// Whether a worker's (`ps` false) or a PS's link loses frames.
    pub fn covers(self, ps: bool) -> bool {
        match self {
            LossLinks::All => true,
            LossLinks::Workers => !ps,
            LossLinks::ParameterServers => ps,
        }
    }
}

/// One training job.
#[derive(Debug, Clone, PartialEq)]
pub struct JobSpec {
    /// Unique name.
    pub name: String,
    /// When the job arrives (is admitted), microseconds from the start of
    /// the run (`arrival_ms` or `arrival_us` in the file).
    pub arrival_us: u64,
    /// Number of workers, 2..=32.
    pub workers: u8,
    /// The profile named, if any.
    pub model: Option<String>,
    /// Gradient elements per iteration.
    pub gradient_elems: usize,
    /// Compute time per iteration, microseconds (`compute_ms` or
    /// `compute_us` in the file, else the profile's, see [`Experiment::scale`]).
    pub compute_us: u64,
    /// Iterations (one all-reduce each).
    pub iterations: u32,
    /// Sharing mode.
    pub mode: Mode,
    /// Priority policy of the workers.
    pub policy: Policy,
    /// Priority class: the highest priority the switch lets the job use.
    pub priority: u8,
    /// switchml: slot count (None: an equal share of the pool).
    pub slots: Option<u32>,
    /// switchml: first slot (None: the controller picks).
    pub slot_base: Option<u32>,
    /// Chunks outstanding per worker.
    pub window: usize,
    /// Train a real model instead of summing synthetic gradients.
    pub train: Option<TrainSpec>,
}

impl JobSpec {
    /// Chunks of one all-reduce.
    pub fn chunks_per_iteration(&self, lanes: usize) -> u64 {
        esa_core::job::chunks(self.gradient_elems, lanes)
    }
}

/// A mode (and optionally a policy) every job runs under in one variant.
#[derive(Debug, Clone, PartialEq)]
pub struct Variant {
    /// As written: `esa`, `esa/srpt`, `atp`, `switchml`...
    pub label: String,
    /// The mode, `None`: each job's own.
    pub mode: Option<Mode>,
    /// The policy, `None`: each job's own.
    pub policy: Option<Policy>,
    /// Aggregate in the switch; `false` for the `none` variant, the
    /// host-only baseline where every packet goes to the job's PS (the sim
    /// fabric only).
    pub in_network: bool,
    /// With a `[topology]`: jobs across racks aggregate at the spine too
    /// (the second level). Without it the racks aggregate and the job's PS
    /// adds their partials (docs/protocol.md §9.6).
    pub second_level: bool,
}

impl Variant {
    /// Parses `MODE` or `MODE/POLICY` (`esa/srpt`, `atp`, `switchml`), or
    /// `none` (no in-network aggregation).
    pub fn parse(text: &str) -> Result<Variant, String> {
        if text == "none" {
            return Ok(Variant {
                label: text.to_string(),
                mode: None,
                policy: None,
                in_network: false,
                second_level: true,
            });
        }
        let (mode, policy) = match text.split_once('/') {
            Some((m, p)) => (m, Some(p)),
            None => (text, None),
        };
        let mode: Mode = mode.parse().map_err(|_| {
            format!("variant {text:?}: unknown mode {mode:?} (esa, atp, switchml, or none)")
        })?;
        let policy = policy
            .map(|p| {
                p.parse::<Policy>()
                    .map_err(|e| format!("variant {text:?}: {e}"))
            })
            .transpose()?;
        Ok(Variant {
            label: text.to_string(),
            mode: Some(mode),
            policy,
            in_network: true,
            second_level: true,
        })
    }

    /// The jobs as given.
    pub fn as_given() -> Variant {
        Variant {
            label: "as given".into(),
            mode: None,
            policy: None,
            in_network: true,
            second_level: true,
        }
    }

    /// This variant without the second level, labelled `LABEL (one
    /// level)`.
    pub fn one_level(&self) -> Variant {
        Variant {
            label: format!("{} (one level)", self.label),
            second_level: false,
            ..self.clone()
        }
    }
}

/// A checked experiment.
#[derive(Debug, Clone, PartialEq)]
pub struct Experiment {
    /// Name (the file's `name`, else its stem).
    pub name: String,
    /// Seed of the synthetic gradients.
    pub seed: u64,
    /// The switch.
    pub switch: SwitchSpec,
    /// The jobs: the `[[jobs]]` in file order, then the `[workload]`'s in
    /// arrival order.
    pub jobs: Vec<JobSpec>,
    /// The variants to run; one (`as given`) without `[compare]`.
    pub variants: Vec<Variant>,
    /// The fabric the file asks for (`[fabric]`; default in-process) and
    /// the simulator's parameters.
    pub fabric: FabricSpec,
    /// The model scale the profile jobs were resolved with: the file's
    /// `scale`, else 1.0 (real sizes) for the sim fabric, else `None`: the
    /// emulator's profile numbers.
    pub scale: Option<f64>,
    /// Racks under spines (`[topology]`); `None`:
    /// every host behind one switch.
    pub topology: Option<Topology>,
    /// With a topology, where each job runs (indexed like `jobs`); empty
    /// without.
    pub placements: Vec<Placement>,
}

/// Where an experiment's hosts run: `[fabric] kind` in the file and `esa
/// run --fabric` alike. The emulator fabrics are [`crate::fabric`]'s; the
/// sim fabric is [`crate::virtual_time`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FabricKind {
    /// Threads on in-memory switch ports (the default).
    #[default]
    InProcess,
    /// A network namespace per host (root).
    Netns,
    /// The virtual-time cluster simulator.
    Sim,
}

impl FabricKind {
    /// Every fabric.
    pub const ALL: [FabricKind; 3] = [FabricKind::InProcess, FabricKind::Netns, FabricKind::Sim];

    /// `inprocess`, `netns` or `sim`, as in experiment files and on the
    /// command line.
    pub const fn name(self) -> &'static str {
        match self {
            FabricKind::InProcess => "inprocess",
            FabricKind::Netns => "netns",
            FabricKind::Sim => "sim",
        }
    }
}

impl std::str::FromStr for FabricKind {
    type Err = String;
    fn from_str(s: &str) -> Result<FabricKind, String> {
        FabricKind::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| format!("{s:?}: must be inprocess, netns or sim"))
    }
}

impl std::fmt::Display for FabricKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The simulated network (`[fabric]` with `kind = "sim"`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimParams {
    /// Every host link's rate, both directions, Gbit/s.
    pub link_gbps: f64,
    /// One-way propagation delay per link, ns.
    pub propagation_ns: u64,
    /// Cap on each host's send rate, Gbit/s (default: `link_gbps`).
    pub host_gbps: f64,
    /// The parameter server's time per packet it handles, ns.
    pub ps_service_ns: u64,
    /// Real packets per simulated packet: a power of two, 1 = packet level.
    pub bundle: u32,
    /// Stragglers: each worker's compute time per iteration is longer by a
    /// uniform `0..=compute_jitter` × the job's compute time.
    pub compute_jitter: f64,
}

impl Default for SimParams {
    /// 100 Gbit/s links and hosts, 1 µs propagation, 10 ns per PS packet
    /// (a PS that keeps up with its link, as ATP's DPDK one does: a
    /// 32-lane packet takes 16.8 ns at 100 Gbit/s), bundles of 64 packets,
    /// stragglers up to 5 % of the compute time.
    fn default() -> SimParams {
        SimParams {
            link_gbps: 100.0,
            propagation_ns: 1_000,
            host_gbps: 100.0,
            ps_service_ns: 10,
            bundle: 64,
            compute_jitter: 0.05,
        }
    }
}

/// The `[fabric]` section.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FabricSpec {
    /// Which fabric.
    pub kind: FabricKind,
    /// The hosts' transport on the netns fabric (`transport = "udp"`, the
    /// default, `"xdp"` or `"auto"`).
    pub transport: TransportChoice,
    /// The simulator's parameters (defaults unless `kind` is `Sim`).
    pub sim: SimParams,
}

fn invalid(message: impl Into<String>) -> TestbedError {
    TestbedError::Invalid(message.into())
}

impl Experiment {
    /// Reads and checks an experiment file. A relative `program` or
    /// `workload.trace` is relative to the file.
    pub fn load(path: &Path) -> Result<Experiment, TestbedError> {
        Experiment::load_as(path, None)
    }

    /// [`Experiment::load`], with the fabric given on the command line
    /// (`esa run --fabric sim`) in place of the file's `[fabric] kind`: it
    /// decides the default scale and whether the 510-host limit applies.
    pub fn load_as(path: &Path, fabric: Option<FabricKind>) -> Result<Experiment, TestbedError> {
        let text = read_config(path).map_err(|error| TestbedError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        let stem = path
            .file_stem()
            .map_or_else(|| "experiment".into(), |s| s.to_string_lossy().into_owned());
        let dir = path.parent().unwrap_or(Path::new("."));
        let mut e = Experiment::parse_in(&text, &stem, dir, fabric).map_err(|e| match e {
            TestbedError::Parse { message, .. } => TestbedError::Parse {
                path: path.display().to_string(),
                message,
            },
            other => other,
        })?;
        if let Some(program) = &mut e.switch.program
            && program.is_relative()
        {
            *program = dir.join(&*program);
        }
        Ok(e)
    }

    /// Checks `fabric.transport` against the fabric and the loss, after it
    /// was set in place of the file's (`esa run --transport`).
    pub fn check_transport(&self) -> Result<(), TestbedError> {
        check_transport(&self.fabric, &self.switch, &Lines(""))
    }

    /// Parses and checks experiment text; `default_name` names it when the
    /// text does not. A `workload.trace` is relative to the current
    /// directory.
    pub fn parse(text: &str, default_name: &str) -> Result<Experiment, TestbedError> {
        Experiment::parse_in(text, default_name, Path::new("."), None)
    }

    /// [`Experiment::parse`] with a trace relative to `dir` and the fabric
    /// optionally given in place of the file's (see [`Experiment::load_as`]).
    pub fn parse_in(
        text: &str,
        default_name: &str,
        dir: &Path,
        fabric_override: Option<FabricKind>,
    ) -> Result<Experiment, TestbedError> {
        let file: File = toml::from_str(text).map_err(|e| TestbedError::Parse {
            path: default_name.to_string(),
            message: e.to_string(),
        })?;
        let lines = Lines(text);
        let switch = check_switch(file.switch, &lines)?;
        let mut fabric = match file.fabric {
            Some(f) => check_fabric(f, fabric_override, &lines)?,
            None => FabricSpec::default(),
        };
        if let Some(kind) = fabric_override {
            fabric.kind = kind;
        }
        check_transport(&fabric, &switch, &lines)?;
        if let Some(s) = file.scale
            && !(s > 0.0 && s <= 1.0)
        {
            return Err(invalid(format!(
                "scale{} = {s}: must be above 0 and at most 1",
                lines.mention(Table::Top, "scale")
            )));
        }
        let scale = file
            .scale
            .or((fabric.kind == FabricKind::Sim).then_some(1.0));
        let topology = match file.topology {
            Some(t) => Some(check_topology(t, &fabric, &lines)?),
            None => None,
        };
        let ctx = JobContext {
            switch: &switch,
            scale,
            max_elems: max_gradient_elems(fabric.kind),
            // A job across racks has up to 32 workers per rack; how many
            // racks it may span is the topology's check, below.
            max_workers: if topology.is_some() {
                u8::MAX
            } else {
                MAX_FAN_IN
            },
        };
        if file.jobs.is_empty() && file.workload.is_none() {
            return Err(invalid(
                "no [[jobs]] and no [workload]: an experiment needs at least one job",
            ));
        }
        let mut names = BTreeSet::new();
        let mut jobs = Vec::new();
        for (i, j) in file.jobs.into_iter().enumerate() {
            let job = check_job(j, i, &ctx, &lines)?;
            if !names.insert(job.name.clone()) {
                return Err(invalid(format!("jobs: name {:?} used twice", job.name)));
            }
            jobs.push(job);
        }
        if let Some(w) = file.workload {
            let seed = file.seed;
            for job in workload_jobs(w, &ctx, &fabric, seed, dir, &lines)? {
                if let Err(why) = check_name(&job.name) {
                    return Err(invalid(format!(
                        "workload: job name {}: {why}",
                        shown(&job.name)
                    )));
                }
                if job.iterations == 0 || job.iterations > MAX_ITERATIONS {
                    return Err(invalid(format!(
                        "workload: job {:?}: {} iterations, must be 1..={MAX_ITERATIONS}",
                        job.name, job.iterations
                    )));
                }
                if !names.insert(job.name.clone()) {
                    return Err(invalid(format!(
                        "workload: job name {:?} is also a [[jobs]] name",
                        job.name
                    )));
                }
                jobs.push(job);
            }
        }
        if jobs.len() > usize::from(MAX_JOB_ID) {
            return Err(invalid(format!(
                "{} jobs: at most {MAX_JOB_ID} (job ids are 12 bits)",
                jobs.len()
            )));
        }
        let variants = match file.compare {
            None => vec![Variant::as_given()],
            Some(c) => {
                if c.variants.is_empty() {
                    return Err(invalid("compare.variants is empty"));
                }
                let mut out = Vec::new();
                for v in &c.variants {
                    out.push(Variant::parse(v).map_err(|e| {
                        invalid(format!(
                            "compare.variants{}: {e}",
                            lines.mention(Table::Compare, "variants")
                        ))
                    })?);
                }
                match c.second_level {
                    None => out,
                    Some(levels) => with_levels(&out, &levels, topology.is_some(), &lines)?,
                }
            }
        };
        let placements = match &topology {
            None => vec![],
            Some(t) => {
                let link = crate::workload::LinkModel {
                    lanes: switch.lanes,
                    link_gbps: fabric.sim.link_gbps,
                    propagation_ns: fabric.sim.propagation_ns,
                };
                t.place(&jobs, file.seed, &link).map_err(|e| {
                    invalid(format!(
                        "topology{}: {e}",
                        lines.mention(Table::Topology, "max_racks_per_job")
                    ))
                })?
            }
        };
        let name = file.name.unwrap_or_else(|| default_name.to_string());
        if let Err(why) = check_name(&name) {
            return Err(invalid(format!(
                "name{} = {}: {why} (without `name`, the file's name is used)",
                lines.mention(Table::Top, "name"),
                shown(&name)
            )));
        }
        let e = Experiment {
            name,
            seed: file.seed,
            switch,
            jobs,
            variants,
            fabric,
            scale,
            topology,
            placements,
        };
        let hosts = e.hosts();
        if let Some(t) = &e.topology {
            // Every job's workers and PS get ports of their own, beside the
            // ToR-spine links' two ends.
            let ports = 2 * usize::from(t.racks) * usize::from(t.spines) + hosts;
            if ports > usize::from(u16::MAX) {
                return Err(invalid(format!(
                    "[topology]{}: {} racks x {} spines and {hosts} hosts (workers + one PS per \
                     job) need {ports} switch ports; the simulator numbers at most 65535",
                    lines.mention(Table::Topology, ""),
                    t.racks,
                    t.spines
                )));
            }
        }
        if fabric.kind != FabricKind::Sim && hosts > MAX_HOSTS {
            return Err(invalid(format!(
                "{hosts} hosts (workers + one PS per job): at most {MAX_HOSTS} fit on the switch \
                 (the sim fabric has no such limit)"
            )));
        }
        Ok(e)
    }

    /// Hosts the experiment needs: every job's workers and one PS per job.
    pub fn hosts(&self) -> usize {
        self.jobs.iter().map(|j| usize::from(j.workers) + 1).sum()
    }

    /// The jobs as they run under `variant`: mode and policy replaced, and
    /// switchml jobs without a range given an equal share of the pool.
    pub fn jobs_for(&self, variant: &Variant) -> Vec<JobSpec> {
        let mut jobs = self.jobs.clone();
        for j in &mut jobs {
            if let Some(m) = variant.mode {
                j.mode = m;
                if !m.has_own_slots() {
                    j.slots = None;
                    j.slot_base = None;
                }
            }
            if let Some(p) = variant.policy {
                j.policy = p;
            }
        }
        let share = equal_share(self.switch.pool_slots, jobs.len());
        for j in &mut jobs {
            if j.mode.has_own_slots() && j.slots.is_none() {
                j.slots = Some(share);
                // Bases picked by the controller; ranges of jobs that do not
                // overlap in time are reused.
                j.slot_base = None;
            }
        }
        jobs
    }
}

/// `variants` under `compare.second_level`: each with the second level
/// (as it is) and without ([`Variant::one_level`]), in the order the list
/// gives; `none`, which aggregates nowhere, once.
fn with_levels(
    variants: &[Variant],
    levels: &[bool],
    topology: bool,
    lines: &Lines<'_>,
) -> Result<Vec<Variant>, TestbedError> {
    let at = format!(
        "compare.second_level{}",
        lines.mention(Table::Compare, "second_level")
    );
    if !topology {
        return Err(invalid(format!(
            "{at}: needs a [topology] (one switch has one level)"
        )));
    }
    if levels.is_empty() || (levels.len() == 2 && levels[0] == levels[1]) || levels.len() > 2 {
        return Err(invalid(format!(
            "{at} = {levels:?}: give [true], [false], [true, false] or [false, true]"
        )));
    }
    let mut out = vec![];
    for v in variants {
        if !v.in_network {
            out.push(v.clone());
            continue;
        }
        for &second in levels {
            out.push(if second { v.clone() } else { v.one_level() });
        }
    }
    Ok(out)
}

/// The largest power of two `n` jobs can each have of the pool.
fn equal_share(pool_slots: u32, n: usize) -> u32 {
    let n = u32::try_from(n.max(1))
        .unwrap_or(u32::MAX)
        .next_power_of_two();
    (pool_slots / n).max(1)
}

/// A table of the experiment file, to find where a key is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Table {
    /// Keys before the first table header.
    Top,
    Switch,
    Fabric,
    Workload,
    /// The `[[jobs]]` entry of this index.
    Job(usize),
    Compare,
    Topology,
}

/// The experiment's text, to name the line of a key in value errors (toml
/// names it for syntax and type errors).
struct Lines<'a>(&'a str);

impl Lines<'_> {
    /// The 1-based line where `key` (`name` or `sub.name`) of `table` is
    /// written, or else the line of the table's header.
    fn find(&self, table: Table, key: &str) -> Option<usize> {
        let (sub, name) = match key.split_once('.') {
            Some((sub, name)) => (Some(sub), name),
            None => (None, key),
        };
        let mut jobs_seen = 0usize;
        let mut here: Option<Table> = Some(Table::Top);
        let mut in_sub: Option<String> = None;
        let mut header = None;
        let mut inline_sub = None;
        for (n, raw) in self.0.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.starts_with('[') {
                let inner = line.trim_matches(|c| c == '[' || c == ']').trim();
                in_sub = None;
                here = match inner {
                    "switch" => Some(Table::Switch),
                    "fabric" => Some(Table::Fabric),
                    "workload" => Some(Table::Workload),
                    "compare" => Some(Table::Compare),
                    "topology" => Some(Table::Topology),
                    "jobs" if line.starts_with("[[") => {
                        jobs_seen += 1;
                        Some(Table::Job(jobs_seen - 1))
                    }
                    other => match (here, other.strip_prefix("jobs.")) {
                        (Some(Table::Job(i)), Some(s)) => {
                            in_sub = Some(s.to_string());
                            Some(Table::Job(i))
                        }
                        _ => None,
                    },
                };
                if here == Some(table) && in_sub.is_none() {
                    header = Some(n + 1);
                }
                continue;
            }
            if here != Some(table) {
                continue;
            }
            let Some((k, _)) = line.split_once('=') else {
                continue;
            };
            let k = k.trim();
            match (sub, in_sub.as_deref()) {
                (None, None) if k == name => return Some(n + 1),
                (Some(s), Some(t)) if s == t && k == name => return Some(n + 1),
                (Some(s), None) if k == s => inline_sub = Some(n + 1),
                _ => {}
            }
        }
        inline_sub.or(header)
    }

    /// ` (line N)` for `key` of `table`, or nothing.
    fn mention(&self, table: Table, key: &str) -> String {
        self.find(table, key)
            .map(|n| format!(" (line {n})"))
            .unwrap_or_default()
    }
}

fn check_switch(s: SwitchSection, lines: &Lines<'_>) -> Result<SwitchSpec, TestbedError> {
    let at = |key: &str| format!("switch.{key}{}", lines.mention(Table::Switch, key));
    if !s.pool_slots.is_power_of_two() || s.pool_slots > 1 << 16 {
        return Err(invalid(format!(
            "{} = {}: must be a power of two up to 65536",
            at("pool_slots"),
            s.pool_slots
        )));
    }
    if !(0.0..=0.5).contains(&s.loss) {
        return Err(invalid(format!(
            "{} = {}: must be a probability from 0 to 0.5",
            at("loss"),
            s.loss
        )));
    }
    if let Some(ms) = s.stale_after_ms
        && !(1..=3_600_000).contains(&ms)
    {
        return Err(invalid(format!(
            "{} = {ms}: must be 1 to 3600000 (an hour)",
            at("stale_after_ms")
        )));
    }
    let loss_links = match s.loss_links.as_str() {
        "all" => LossLinks::All,
        "workers" => LossLinks::Workers,
        "ps" => LossLinks::ParameterServers,
        other => {
            return Err(invalid(format!(
                "{} = {other:?}: must be all, workers or ps",
                at("loss_links")
            )));
        }
    };
    let arch = match s.arch.as_deref() {
        None => Arch::V1model,
        Some(name) => name
            .parse::<Arch>()
            .map_err(|_| invalid(format!("{} = {name:?}: must be v1model or tna", at("arch"))))?,
    };
    arch.check_lanes(s.lanes)
        .map_err(|e| invalid(format!("{} = {}: {e}", at("lanes"), s.lanes)))?;
    Ok(SwitchSpec {
        arch,
        lanes: s.lanes,
        pool_slots: s.pool_slots,
        program: s.program,
        loss: s.loss,
        loss_links,
        stale_after_ms: s.stale_after_ms,
    })
}

/// `[fabric]`; `kind_override` (the command line's fabric) replaces `kind`
/// when deciding whether the simulator's keys are allowed.
fn check_fabric(
    f: FabricSection,
    kind_override: Option<FabricKind>,
    lines: &Lines<'_>,
) -> Result<FabricSpec, TestbedError> {
    let at = |key: &str| format!("fabric.{key}{}", lines.mention(Table::Fabric, key));
    let file_kind = match &f.kind {
        None => FabricKind::default(),
        Some(k) => k
            .parse::<FabricKind>()
            .map_err(|e| invalid(format!("{} = {e}", at("kind"))))?,
    };
    let kind = kind_override.unwrap_or(file_kind);
    let transport = match &f.transport {
        None => TransportChoice::default(),
        Some(t) => t
            .parse::<TransportChoice>()
            .map_err(|e| invalid(format!("{} = {e}", at("transport"))))?,
    };
    let given = [
        ("link_gbps", f.link_gbps.is_some()),
        ("propagation_us", f.propagation_us.is_some()),
        ("host_gbps", f.host_gbps.is_some()),
        ("ps_service_ns", f.ps_service_ns.is_some()),
        ("bundle", f.bundle.is_some()),
        ("compute_jitter", f.compute_jitter.is_some()),
    ];
    if kind != FabricKind::Sim
        && let Some((key, _)) = given.iter().find(|(_, g)| *g)
    {
        return Err(invalid(format!(
            "{}: a simulator setting, only with kind = \"sim\" (kind is {kind})",
            at(key)
        )));
    }
    let d = SimParams::default();
    let rate = |key: &str, v: Option<f64>, default: f64| match v {
        None => Ok(default),
        Some(g) if g > 0.0 && g <= 10_000.0 => Ok(g),
        Some(g) => Err(invalid(format!(
            "{} = {g}: must be above 0 and at most 10000 (Gbit/s)",
            at(key)
        ))),
    };
    let link_gbps = rate("link_gbps", f.link_gbps, d.link_gbps)?;
    let host_gbps = rate("host_gbps", f.host_gbps, link_gbps)?;
    let propagation_ns = match f.propagation_us {
        None => d.propagation_ns,
        Some(us) if (0.0..=1_000_000.0).contains(&us) => (us * 1000.0).round() as u64,
        Some(us) => {
            return Err(invalid(format!(
                "{} = {us}: must be 0 to 1000000 (a second)",
                at("propagation_us")
            )));
        }
    };
    let ps_service_ns = f.ps_service_ns.unwrap_or(d.ps_service_ns);
    if ps_service_ns > 1_000_000_000 {
        return Err(invalid(format!(
            "{} = {ps_service_ns}: at most 1000000000 (a second)",
            at("ps_service_ns")
        )));
    }
    let bundle = f.bundle.unwrap_or(d.bundle);
    if !bundle.is_power_of_two() || bundle > 1 << 16 {
        return Err(invalid(format!(
            "{} = {bundle}: must be a power of two from 1 (packet level) to 65536",
            at("bundle")
        )));
    }
    let compute_jitter = f.compute_jitter.unwrap_or(d.compute_jitter);
    if !(0.0..=1.0).contains(&compute_jitter) {
        return Err(invalid(format!(
            "{} = {compute_jitter}: must be a fraction of the compute time, 0 to 1",
            at("compute_jitter")
        )));
    }
    Ok(FabricSpec {
        kind,
        transport,
        sim: SimParams {
            link_gbps,
            propagation_ns,
            host_gbps,
            ps_service_ns,
            bundle,
            compute_jitter,
        },
    })
}

/// Most racks, spines and hosts per rack a `[topology]` may have (the
/// simulator numbers every port of the fabric in 16 bits).
const MAX_RACKS: u16 = 1024;
const MAX_SPINES: u16 = 64;
const MAX_HOSTS_PER_RACK: u16 = 256;

/// Racks a job spans at most unless `max_racks_per_job` says otherwise
/// (issue 41's cluster: jobs across up to 8 racks).
const DEFAULT_MAX_RACKS_PER_JOB: u16 = 8;

/// `[topology]`: the uplinks' rate from `oversubscription` (default 1: a
/// rack's uplinks carry all its hosts' links) or `uplink_gbps`, which only
/// the sim fabric models: the emulated fabrics' links run as fast as the
/// machine moves frames, so either there is refused rather than ignored.
fn check_topology(
    t: TopologySection,
    fabric: &FabricSpec,
    lines: &Lines<'_>,
) -> Result<Topology, TestbedError> {
    let at = |key: &str| format!("topology.{key}{}", lines.mention(Table::Topology, key));
    if fabric.kind != FabricKind::Sim {
        let rate = [
            ("oversubscription", t.oversubscription),
            ("uplink_gbps", t.uplink_gbps),
        ];
        if let Some((key, _)) = rate.iter().find(|(_, value)| value.is_some()) {
            return Err(invalid(format!(
                "{}: link rates are modelled on the sim fabric only; the {} fabric's links run \
                 as fast as this machine moves frames (remove it, or give [fabric] kind = \
                 \"sim\")",
                at(key),
                fabric.kind
            )));
        }
    }
    let bounded = |key: &str, value: u16, max: u16| {
        if (1..=max).contains(&value) {
            Ok(value)
        } else {
            Err(invalid(format!("{} = {value}: must be 1..={max}", at(key))))
        }
    };
    let racks = bounded("racks", t.racks, MAX_RACKS)?;
    let spines = bounded("spines", t.spines, MAX_SPINES)?;
    let hosts_per_rack = bounded("hosts_per_rack", t.hosts_per_rack, MAX_HOSTS_PER_RACK)?;
    let max_racks_per_job = bounded(
        "max_racks_per_job",
        t.max_racks_per_job.unwrap_or(DEFAULT_MAX_RACKS_PER_JOB),
        u16::from(MAX_FAN_IN),
    )?;
    let placement = match &t.placement {
        None => PlacementPolicy::Packed,
        Some(p) => p
            .parse()
            .map_err(|e| invalid(format!("{} = {e}", at("placement"))))?,
    };
    let uplink_gbps = match (t.oversubscription, t.uplink_gbps) {
        (Some(_), Some(_)) => {
            return Err(invalid(format!(
                "{}: give `oversubscription` or `uplink_gbps`, not both",
                at("uplink_gbps")
            )));
        }
        (None, Some(g)) if g > 0.0 && g <= 100_000.0 => g,
        (None, Some(g)) => {
            return Err(invalid(format!(
                "{} = {g}: must be above 0 and at most 100000 (Gbit/s per ToR-spine link)",
                at("uplink_gbps")
            )));
        }
        (ratio, None) => {
            let ratio = ratio.unwrap_or(1.0);
            if !(0.01..=1000.0).contains(&ratio) {
                return Err(invalid(format!(
                    "{} = {ratio}: must be 0.01 to 1000 (a rack's hosts' capacity over its \
                     uplinks')",
                    at("oversubscription")
                )));
            }
            f64::from(hosts_per_rack) * fabric.sim.link_gbps / ratio / f64::from(spines)
        }
    };
    Ok(Topology {
        racks,
        hosts_per_rack,
        spines,
        uplink_gbps,
        placement,
        max_racks_per_job,
    })
}

/// `[fabric] transport`: AF_XDP needs hosts on interfaces of their own
/// (the netns fabric), and bypasses the nftables rules that inject
/// `switch.loss` there.
fn check_transport(
    fabric: &FabricSpec,
    switch: &SwitchSpec,
    lines: &Lines<'_>,
) -> Result<(), TestbedError> {
    if fabric.transport == TransportChoice::Udp {
        return Ok(());
    }
    let at = format!(
        "fabric.transport{}",
        lines.mention(Table::Fabric, "transport")
    );
    let transport = fabric.transport;
    if fabric.kind != FabricKind::Netns {
        return Err(invalid(format!(
            "{at} = \"{transport}\": AF_XDP is for hosts on interfaces of their own, only \
             on the netns fabric (the fabric is {})",
            fabric.kind
        )));
    }
    if switch.loss > 0.0 {
        return Err(invalid(format!(
            "{at} = \"{transport}\": switch.loss is injected by nftables, which AF_XDP \
             bypasses; use transport = \"udp\" with loss"
        )));
    }
    Ok(())
}

/// The `[workload]`'s jobs, in arrival order.
fn workload_jobs(
    w: WorkloadSection,
    ctx: &JobContext<'_>,
    fabric: &FabricSpec,
    seed: u64,
    dir: &Path,
    lines: &Lines<'_>,
) -> Result<Vec<JobSpec>, TestbedError> {
    use crate::workload::{LinkModel, PoissonSpec, job_name, parse_trace_up_to};
    let at = |key: &str| format!("workload.{key}{}", lines.mention(Table::Workload, key));
    // A message from the workload module starts with the key it is about.
    let keyed = |msg: String| {
        let key = msg.split([' ', ':']).next().unwrap_or("").to_string();
        invalid(format!("{}{}", at(&key), &msg[key.len()..]))
    };
    let window = w.window.unwrap_or(32);
    if window == 0 || window > 4096 {
        return Err(invalid(format!(
            "{} = {window}: must be 1..=4096",
            at("window")
        )));
    }
    let rows = match (&w.arrivals, &w.trace) {
        (Some(_), Some(_)) => {
            return Err(invalid(format!(
                "{}: give `arrivals = \"poisson\"` or `trace`, not both",
                at("trace")
            )));
        }
        (None, None) => {
            return Err(invalid(format!(
                "{}: give `arrivals = \"poisson\"` or `trace = \"FILE.csv\"`",
                at("arrivals")
            )));
        }
        (None, Some(trace)) => {
            let poisson_only = [
                ("jobs", w.jobs.is_some()),
                ("load", w.load.is_some()),
                ("models", w.models.is_some()),
                ("workers", w.workers.is_some()),
                ("iterations", w.iterations.is_some()),
            ];
            if let Some((key, _)) = poisson_only.iter().find(|(_, g)| *g) {
                return Err(invalid(format!(
                    "{}: only with arrivals = \"poisson\" (a trace gives each job's)",
                    at(key)
                )));
            }
            let path = if trace.is_relative() {
                dir.join(trace)
            } else {
                trace.clone()
            };
            let text = read_config(&path).map_err(|error| TestbedError::Io {
                path: path.clone(),
                error,
            })?;
            let mut rows = parse_trace_up_to(&text, &path.display().to_string(), ctx.max_workers)
                .map_err(|e| invalid(format!("{}: {e}", at("trace"))))?;
            let n = rows.len();
            for (i, r) in rows.iter_mut().enumerate() {
                r.name.get_or_insert_with(|| job_name(i, n));
            }
            rows.sort_by_key(|r| r.arrival_us);
            rows
        }
        (Some(kind), None) => {
            if kind != "poisson" {
                return Err(invalid(format!(
                    "{} = {kind:?}: must be \"poisson\" (or give `trace`)",
                    at("arrivals")
                )));
            }
            let jobs = w
                .jobs
                .ok_or_else(|| invalid(format!("{}: missing (how many jobs)", at("jobs"))))?;
            let load = w
                .load
                .ok_or_else(|| invalid(format!("{}: missing (offered load)", at("load"))))?;
            let mut models = Vec::new();
            match &w.models {
                None => models.extend(PROFILES.iter().map(|p| p.name)),
                Some(names) => {
                    for m in names {
                        let p = profile(m).ok_or_else(|| {
                            keyed(format!(
                                "models: unknown profile {m:?} (known: {})",
                                PROFILES.map(|p| p.name).join(", ")
                            ))
                        })?;
                        models.push(p.name);
                    }
                }
            }
            let workers = match &w.workers {
                None => vec![8],
                Some(OneOrMany::One(n)) => vec![*n],
                Some(OneOrMany::Many(list)) => list.clone(),
            };
            let iterations = match &w.iterations {
                None => (20, 20),
                Some(OneOrMany::One(n)) => (*n, *n),
                Some(OneOrMany::Many(v)) if v.len() == 2 => (v[0], v[1]),
                Some(OneOrMany::Many(v)) => {
                    return Err(invalid(format!(
                        "{} = {v:?}: give a number or [min, max]",
                        at("iterations")
                    )));
                }
            };
            let spec = PoissonSpec {
                jobs,
                load,
                pool_slots: ctx.switch.pool_slots,
                window,
                models,
                workers,
                iterations,
                scale: ctx.scale,
                link: LinkModel {
                    lanes: ctx.switch.lanes,
                    link_gbps: fabric.sim.link_gbps,
                    propagation_ns: fabric.sim.propagation_ns,
                },
                seed,
            };
            spec.generate_up_to(ctx.max_workers).map_err(keyed)?
        }
    };
    let mut out = Vec::with_capacity(rows.len());
    for r in rows {
        let Some(p) = profile(&r.model) else {
            return Err(invalid(format!(
                "{}: unknown model {:?}",
                at("trace"),
                r.model
            )));
        };
        let (gradient_elems, compute_us) = crate::workload::profile_cost(&p, ctx.scale);
        if gradient_elems > ctx.max_elems {
            return Err(invalid(format!(
                "{}: {} at this scale has {gradient_elems} gradient elements, more than the \
                 {} this fabric allows; lower `scale` or use the sim fabric",
                at(if w.trace.is_some() { "trace" } else { "models" }),
                p.name,
                ctx.max_elems
            )));
        }
        out.push(JobSpec {
            name: r.name.unwrap_or_default(),
            arrival_us: r.arrival_us,
            workers: r.workers,
            model: Some(p.name.to_string()),
            gradient_elems,
            compute_us,
            iterations: r.iterations,
            mode: Mode::Esa,
            policy: Policy::Fcfs,
            priority: MAX_PRIORITY,
            slots: None,
            slot_base: None,
            window,
            train: None,
        });
    }
    Ok(out)
}

/// What every job is resolved against.
struct JobContext<'a> {
    switch: &'a SwitchSpec,
    scale: Option<f64>,
    max_elems: usize,
    /// Workers a job may have: 32 on one switch, 255 across racks.
    max_workers: u8,
}

/// Largest gradient per job: 16 Mi elements on the emulator fabrics (memory
/// and time on one machine), 256 Mi in the simulator (real models; chunk
/// numbers stay within 28 bits at every lane count).
fn max_gradient_elems(kind: FabricKind) -> usize {
    match kind {
        FabricKind::Sim => 1 << 28,
        FabricKind::InProcess | FabricKind::Netns => 16 << 20,
    }
}

/// Largest compute time per iteration, µs (ten minutes).
const MAX_COMPUTE_US: u64 = 600_000_000;

/// The most iterations a job may run: a million all-reduces of the
/// smallest gradient already take about a day on esa-switch
/// ([`crate::estimate`]).
pub const MAX_ITERATIONS: u32 = 1_000_000;

/// The longest experiment or job name: names go into file and folder
/// names, host names and every report line.
pub const MAX_NAME_LEN: usize = 64;

/// Checks an experiment or job name: 1 to [`MAX_NAME_LEN`] letters,
/// digits, '-' and '_'.
fn check_name(name: &str) -> Result<(), String> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if name.is_empty() || name.len() > MAX_NAME_LEN || !name.chars().all(allowed) {
        return Err(format!(
            "use 1 to {MAX_NAME_LEN} letters, digits, '-' and '_'"
        ));
    }
    Ok(())
}

/// A name as an error shows it: quoted, and cut after
/// [`MAX_NAME_LEN`] characters.
fn shown(name: &str) -> String {
    match name.char_indices().nth(MAX_NAME_LEN) {
        Some((cut, _)) => format!("{:?}... ({} bytes)", &name[..cut], name.len()),
        None => format!("{name:?}"),
    }
}

fn check_job(
    j: JobSection,
    index: usize,
    ctx: &JobContext<'_>,
    lines: &Lines<'_>,
) -> Result<JobSpec, TestbedError> {
    let switch = ctx.switch;
    let at = |key: &str| {
        format!(
            "jobs[{index}] ({:?}).{key}{}",
            j.name,
            lines.mention(Table::Job(index), key)
        )
    };
    if let Err(why) = check_name(&j.name) {
        return Err(invalid(format!(
            "jobs[{index}].name{} = {}: {why}",
            lines.mention(Table::Job(index), "name"),
            shown(&j.name)
        )));
    }
    if j.workers < 2 || j.workers > ctx.max_workers {
        return Err(invalid(format!(
            "{} = {}: must be 2..={}",
            at("workers"),
            j.workers,
            ctx.max_workers
        )));
    }
    if j.iterations == 0 || j.iterations > MAX_ITERATIONS {
        return Err(invalid(format!(
            "{} = {}: must be 1..={MAX_ITERATIONS}",
            at("iterations"),
            j.iterations
        )));
    }
    let base = match &j.model {
        Some(m) => Some(profile(m).ok_or_else(|| {
            let known: Vec<&str> = PROFILES.iter().map(|p| p.name).collect();
            invalid(format!(
                "{} = {m:?}: unknown profile (known: {})",
                at("model"),
                known.join(", ")
            ))
        })?),
        None => None,
    };
    let train = match &j.train {
        None => None,
        Some(t) => Some(check_train(t, &at)?),
    };
    if train.is_some() && (j.model.is_some() || j.gradient_elems.is_some()) {
        return Err(invalid(format!(
            "{}: a training job's gradient is its model's parameters; drop `model` and `gradient_elems`",
            at("train")
        )));
    }
    let from_profile = base.map(|p| crate::workload::profile_cost(&p, ctx.scale));
    let gradient_elems = j
        .gradient_elems
        .or(from_profile.map(|(elems, _)| elems))
        .or(train.map(|t| t.params()))
        .ok_or_else(|| {
            invalid(format!(
                "{}: give `model` or `gradient_elems`",
                at("gradient_elems")
            ))
        })?;
    if gradient_elems == 0 || gradient_elems > ctx.max_elems {
        let why = if j.gradient_elems.is_none() && ctx.scale.is_some() {
            " (the model at `scale`; lower it, or use the sim fabric)"
        } else {
            ""
        };
        return Err(invalid(format!(
            "{} = {gradient_elems}: must be 1..={} on this fabric{why}",
            at("gradient_elems"),
            ctx.max_elems
        )));
    }
    if j.compute_ms.is_some() && j.compute_us.is_some() {
        return Err(invalid(format!(
            "{}: give `compute_ms` or `compute_us`, not both",
            at("compute_us")
        )));
    }
    let compute_us = match (j.compute_ms, j.compute_us) {
        (Some(ms), _) => ms.saturating_mul(1000),
        (None, Some(us)) => us,
        (None, None) => from_profile.map_or(0, |(_, us)| us),
    };
    if compute_us > MAX_COMPUTE_US {
        let key = if j.compute_ms.is_some() {
            "compute_ms"
        } else {
            "compute_us"
        };
        return Err(invalid(format!(
            "{} = {}: at most 600000 ms",
            at(key),
            j.compute_ms.unwrap_or(compute_us)
        )));
    }
    if j.arrival_ms.is_some() && j.arrival_us.is_some() {
        return Err(invalid(format!(
            "{}: give `arrival_ms` or `arrival_us`, not both",
            at("arrival_us")
        )));
    }
    let arrival_us = match (j.arrival_ms, j.arrival_us) {
        (Some(ms), _) => ms
            .checked_mul(1000)
            .ok_or_else(|| invalid(format!("{} = {ms}: too large", at("arrival_ms"))))?,
        (None, Some(us)) => us,
        (None, None) => 0,
    };
    let mode: Mode = j.mode.parse().map_err(|_| {
        invalid(format!(
            "{} = {:?}: must be esa, atp or switchml",
            at("mode"),
            j.mode
        ))
    })?;
    let policy: Policy = j
        .policy
        .parse()
        .map_err(|e| invalid(format!("{}: {e}", at("policy"))))?;
    let priority = j.priority.unwrap_or(MAX_PRIORITY);
    if priority > MAX_PRIORITY {
        return Err(invalid(format!(
            "{} = {priority}: must be 0..={MAX_PRIORITY}",
            at("priority")
        )));
    }
    if !mode.has_own_slots() && (j.slots.is_some() || j.slot_base.is_some()) {
        return Err(invalid(format!(
            "{}: a slot range is for switchml jobs only",
            at("slots")
        )));
    }
    if let Some(n) = j.slots
        && (!n.is_power_of_two() || n > switch.pool_slots)
    {
        return Err(invalid(format!(
            "{} = {n}: must be a power of two up to the pool ({})",
            at("slots"),
            switch.pool_slots
        )));
    }
    if j.slot_base.is_some() && j.slots.is_none() {
        return Err(invalid(format!("{}: needs `slots`", at("slot_base"))));
    }
    let window = j.window.unwrap_or(32);
    if window == 0 || window > 4096 {
        return Err(invalid(format!(
            "{} = {window}: must be 1..=4096",
            at("window")
        )));
    }
    Ok(JobSpec {
        name: j.name,
        arrival_us,
        workers: j.workers,
        model: j.model,
        gradient_elems,
        compute_us,
        iterations: j.iterations,
        mode,
        policy,
        priority,
        slots: j.slots,
        slot_base: j.slot_base,
        window,
        train,
    })
}

fn check_train(t: &TrainSection, at: &dyn Fn(&str) -> String) -> Result<TrainSpec, TestbedError> {
    if t.features == 0 || t.features > 4096 {
        return Err(invalid(format!(
            "{} = {}: must be 1..=4096",
            at("train.features"),
            t.features
        )));
    }
    if t.classes < 2 || t.classes > 256 {
        return Err(invalid(format!(
            "{} = {}: must be 2..=256",
            at("train.classes"),
            t.classes
        )));
    }
    if t.samples == 0 || t.samples > 1 << 20 {
        return Err(invalid(format!(
            "{} = {}: must be 1..=1048576",
            at("train.samples"),
            t.samples
        )));
    }
    if !(t.learning_rate > 0.0 && t.learning_rate <= 100.0) {
        return Err(invalid(format!(
            "{} = {}: must be above 0 and at most 100",
            at("train.learning_rate"),
            t.learning_rate
        )));
    }
    Ok(TrainSpec {
        features: t.features,
        classes: t.classes,
        samples: t.samples,
        learning_rate: t.learning_rate,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[switch]
lanes = 32
pool_slots = 256

[[jobs]]
name = "a"
workers = 2
model = "resnet50"
iterations = 2

[[jobs]]
name = "b"
arrival_ms = 100
workers = 3
gradient_elems = 1000
compute_ms = 5
iterations = 1
mode = "switchml"
slots = 64

[compare]
variants = ["esa/srpt", "atp", "switchml"]
"#;

    #[test]
    fn switch_arch_picks_the_program_and_checks_the_lanes() {
        let e = Experiment::parse(GOOD, "good").unwrap();
        assert_eq!(e.switch.arch, Arch::V1model);
        let tna = GOOD.replace("pool_slots = 256", "pool_slots = 256\narch = \"tna\"");
        let e = Experiment::parse(&tna, "tna").unwrap();
        assert_eq!(e.switch.arch, Arch::Tna);
        assert!(crate::run::program_path(&e).ends_with("p4/tna/esa.p4"));
        let bad = GOOD.replace("pool_slots = 256", "pool_slots = 256\narch = \"psa\"");
        let err = Experiment::parse(&bad, "bad").unwrap_err().to_string();
        assert!(
            err.contains("switch.arch") && err.contains("v1model or tna"),
            "{err}"
        );
        let wide = tna.replace("lanes = 32", "lanes = 64");
        let err = Experiment::parse(&wide, "wide").unwrap_err().to_string();
        assert!(
            err.contains("switch.lanes") && err.contains("4, 8, 16 or 32"),
            "{err}"
        );
    }

    #[test]
    fn names_iterations_and_files_are_bounded() {
        let refused = |text: &str| Experiment::parse(text, "x").unwrap_err().to_string();
        let long = "n".repeat(MAX_NAME_LEN + 1);
        let e = refused(&GOOD.replace("name = \"a\"", &format!("name = \"{long}\"")));
        assert!(
            e.contains("jobs[0].name (line 7) = \"nnnn")
                && e.contains("... (65 bytes): use 1 to 64 letters, digits, '-' and '_'"),
            "{e}"
        );
        let ok = "n".repeat(MAX_NAME_LEN);
        assert!(
            Experiment::parse(
                &GOOD.replace("name = \"a\"", &format!("name = \"{ok}\"")),
                "x"
            )
            .is_ok()
        );
        let e = refused(&format!("name = \"{long}\"\n{GOOD}"));
        assert!(e.starts_with("invalid experiment: name (line 1) = "), "{e}");
        assert!(
            e.contains("(without `name`, the file's name is used)"),
            "{e}"
        );
        let e = refused(&format!("name = \"../up\"\n{GOOD}"));
        assert!(e.contains("letters, digits"), "{e}");
        assert!(Experiment::parse(GOOD, "a stem with spaces").is_err());

        let e = refused(&GOOD.replace("iterations = 2", "iterations = 1000000000"));
        assert!(
            e.contains("jobs[0] (\"a\").iterations (line 10) = 1000000000: must be 1..=1000000"),
            "{e}"
        );

        // A file over the limit is refused before it is read whole.
        let dir = std::env::temp_dir().join(format!("esa-experiment-size-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let big = dir.join("big.toml");
        let padding = "#".repeat(esa_controller::config_file::MAX_CONFIG_BYTES as usize);
        std::fs::write(&big, format!("{GOOD}\n{padding}")).unwrap();
        let e = Experiment::load(&big).unwrap_err().to_string();
        assert!(e.contains("big.toml: larger than 1048576 bytes"), "{e}");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_good_file_parses() {
        let e = Experiment::parse(GOOD, "good").unwrap();
        assert_eq!(e.name, "good");
        assert_eq!(e.jobs.len(), 2);
        assert_eq!(e.jobs[0].gradient_elems, 25_000);
        assert_eq!(e.jobs[1].mode, Mode::SwitchMl);
        assert_eq!(e.variants.len(), 3);
        let sml = e.jobs_for(&e.variants[2]);
        assert_eq!(sml[0].slots, Some(128));
        assert_eq!(sml[1].slots, Some(64));
        let esa = e.jobs_for(&e.variants[0]);
        assert_eq!(esa[1].slots, None);
        assert!(matches!(esa[0].policy, Policy::Srpt { .. }));
    }

    #[test]
    fn an_unknown_key_is_named_with_its_line() {
        let text = GOOD.replace("iterations = 1\n", "iterations = 1\nitterations = 2\n");
        let err = Experiment::parse(&text, "x").unwrap_err().to_string();
        assert!(err.contains("itterations"), "{err}");
        assert!(err.contains("line"), "{err}");
    }

    #[test]
    fn a_mistyped_value_is_named_with_its_line() {
        let text = GOOD.replace("workers = 3", "workers = \"three\"");
        let err = Experiment::parse(&text, "x").unwrap_err().to_string();
        assert!(err.contains("workers"), "{err}");
        assert!(err.contains("line 15"), "{err}");
    }

    #[test]
    fn bad_values_are_refused_with_the_key_and_its_line() {
        for (from, to, key, line) in [
            ("lanes = 32", "lanes = 3", "switch.lanes", 3),
            (
                "pool_slots = 256",
                "pool_slots = 100",
                "switch.pool_slots",
                4,
            ),
            (
                "pool_slots = 256",
                "pool_slots = 256\nloss = 0.9",
                "switch.loss",
                5,
            ),
            (
                "pool_slots = 256",
                "pool_slots = 256\nstale_after_ms = 0",
                "switch.stale_after_ms",
                5,
            ),
            (
                "pool_slots = 256",
                "pool_slots = 256\nloss_links = \"hosts\"",
                "switch.loss_links",
                5,
            ),
            ("workers = 3", "workers = 1", "jobs[1] (\"b\").workers", 15),
            (
                "model = \"resnet50\"",
                "model = \"gpt\"",
                "jobs[0] (\"a\").model",
                9,
            ),
            ("slots = 64", "slots = 48", "jobs[1] (\"b\").slots", 20),
            (
                "mode = \"switchml\"",
                "mode = \"ring\"",
                "jobs[1] (\"b\").mode",
                19,
            ),
        ] {
            let err = Experiment::parse(&GOOD.replace(from, to), "x")
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(&format!("{key} (line {line})")),
                "{key}: {err}"
            );
        }
    }

    #[test]
    fn training_settings_are_checked_with_their_line() {
        let text = GOOD.replace("model = \"resnet50\"\n", "").replace(
            "iterations = 2\n",
            "iterations = 2\n[jobs.train]\nfeatures = 8\nclasses = 1\n",
        );
        let err = Experiment::parse(&text, "x").unwrap_err().to_string();
        assert!(
            err.contains("jobs[0] (\"a\").train.classes (line 12)"),
            "{err}"
        );
        let text = GOOD.replace("model = \"resnet50\"\n", "train = { features = 8 }\n");
        let e = Experiment::parse(&text, "x").unwrap();
        let t = e.jobs[0].train.unwrap();
        assert_eq!((t.features, t.classes), (8, 4));
        assert_eq!(e.jobs[0].gradient_elems, 4 * 9);
        let text = GOOD.replace("iterations = 2\n", "iterations = 2\ntrain = {}\n");
        let err = Experiment::parse(&text, "x").unwrap_err().to_string();
        assert!(err.contains("train (line 11)"), "{err}");
    }

    #[test]
    fn bad_values_are_refused_with_the_key() {
        for (from, to, key) in [
            ("lanes = 32", "lanes = 3", "switch.lanes"),
            ("pool_slots = 256", "pool_slots = 100", "switch.pool_slots"),
            ("workers = 3", "workers = 1", "workers"),
            ("model = \"resnet50\"", "model = \"gpt\"", "model"),
            ("slots = 64", "slots = 48", "slots"),
            ("mode = \"switchml\"", "mode = \"ring\"", "mode"),
        ] {
            let err = Experiment::parse(&GOOD.replace(from, to), "x")
                .unwrap_err()
                .to_string();
            assert!(err.contains(key), "{key}: {err}");
        }
        let err = Experiment::parse(&GOOD.replace("\"atp\"", "\"atp/best\""), "x")
            .unwrap_err()
            .to_string();
        assert!(err.contains("compare.variants"), "{err}");
    }

    #[test]
    fn profiles_keep_the_emulator_numbers_and_have_sources() {
        let emu: Vec<(&str, usize, u64)> = PROFILES
            .iter()
            .map(|p| (p.name, p.gradient_elems, p.compute_ms))
            .collect();
        assert_eq!(
            emu[..3],
            [
                ("resnet50", 25_000, 30),
                ("vgg16", 135_000, 60),
                ("bert-base", 107_000, 80)
            ]
        );
        for name in ["resnet101", "alexnet", "gpt2-small"] {
            let p = profile(name).unwrap();
            // The new profiles' emulator size: real_params / 1024, rounded.
            assert_eq!(
                p.gradient_elems as u64,
                (p.real_params as f64 / 1024.0).round() as u64,
                "{name}"
            );
        }
        for p in PROFILES {
            assert!(
                p.real_compute_ms > 0.0 && !p.source.is_empty(),
                "{}",
                p.name
            );
        }
    }

    #[test]
    fn scale_resolves_profile_jobs_and_explicit_values_win() {
        let e = Experiment::parse(&format!("scale = 0.5\n{GOOD}"), "x").unwrap();
        assert_eq!(e.scale, Some(0.5));
        // 25,557,032 × 0.5; compute 101.21 ms × 0.5 = 50.605 ms.
        assert_eq!(e.jobs[0].gradient_elems, 12_778_516);
        assert_eq!(e.jobs[0].compute_us, 50_605);
        // Job b gives its own numbers.
        assert_eq!(
            (e.jobs[1].gradient_elems, e.jobs[1].compute_us),
            (1000, 5000)
        );
        // No scale: the emulator's numbers, in µs.
        let e = Experiment::parse(GOOD, "x").unwrap();
        assert_eq!(e.scale, None);
        assert_eq!(
            (e.jobs[0].gradient_elems, e.jobs[0].compute_us),
            (25_000, 30_000)
        );
        // A tiny scale keeps at least one element, and sub-ms compute.
        let e = Experiment::parse(&format!("scale = 1e-9\n{GOOD}"), "x").unwrap();
        assert_eq!((e.jobs[0].gradient_elems, e.jobs[0].compute_us), (1, 0));
        let e = Experiment::parse(&format!("scale = 0.001\n{GOOD}"), "x").unwrap();
        assert_eq!(e.jobs[0].compute_us, 101);
        // Real sizes do not fit the emulator's limit...
        let err = Experiment::parse(&format!("scale = 1.0\n{GOOD}"), "x")
            .unwrap_err()
            .to_string();
        assert!(err.contains("jobs[0] (\"a\").gradient_elems"), "{err}");
        assert!(err.contains("scale"), "{err}");
        // ...but do on the sim fabric, where the default scale is 1.
        let sim = format!("{GOOD}\n[fabric]\nkind = \"sim\"\n");
        let e = Experiment::parse(&sim, "x").unwrap();
        assert_eq!(e.scale, Some(1.0));
        assert_eq!(e.jobs[0].gradient_elems, 25_557_032);
        assert_eq!(e.jobs[0].compute_us, 101_210);
        // The command line's fabric decides too.
        let e = Experiment::parse_in(GOOD, "x", Path::new("."), Some(FabricKind::Sim)).unwrap();
        assert_eq!((e.fabric.kind, e.scale), (FabricKind::Sim, Some(1.0)));
    }

    #[test]
    fn times_in_microseconds_and_milliseconds() {
        let text = GOOD
            .replace("compute_ms = 5", "compute_us = 250")
            .replace("arrival_ms = 100", "arrival_us = 1500");
        let e = Experiment::parse(&text, "x").unwrap();
        assert_eq!((e.jobs[1].compute_us, e.jobs[1].arrival_us), (250, 1500));
        let e = Experiment::parse(GOOD, "x").unwrap();
        assert_eq!(
            (e.jobs[1].compute_us, e.jobs[1].arrival_us),
            (5000, 100_000)
        );
        for (from, to, key, line) in [
            (
                "compute_ms = 5",
                "compute_ms = 5\ncompute_us = 5",
                "jobs[1] (\"b\").compute_us",
                18,
            ),
            (
                "arrival_ms = 100",
                "arrival_ms = 100\narrival_us = 5",
                "jobs[1] (\"b\").arrival_us",
                15,
            ),
            (
                "compute_ms = 5",
                "compute_ms = 600001",
                "jobs[1] (\"b\").compute_ms",
                17,
            ),
        ] {
            let err = Experiment::parse(&GOOD.replace(from, to), "x")
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(&format!("{key} (line {line})")),
                "{key}: {err}"
            );
        }
    }

    const FABRIC: &str = "\n[fabric]\nkind = \"sim\"\nlink_gbps = 40.0\npropagation_us = 2.5\n\
                          ps_service_ns = 300\nbundle = 16\n";

    #[test]
    fn the_hosts_transport() {
        let netns = |extra: &str| format!("{GOOD}[fabric]\nkind = \"netns\"\n{extra}");
        let e = Experiment::parse(&netns(""), "x").unwrap();
        assert_eq!(e.fabric.transport, TransportChoice::Udp);
        for (text, choice) in [
            ("xdp", TransportChoice::Xdp),
            ("auto", TransportChoice::Auto),
        ] {
            let e = Experiment::parse(&netns(&format!("transport = \"{text}\"\n")), "x").unwrap();
            assert_eq!(e.fabric.transport, choice);
        }
        let err = |text: &str| Experiment::parse(text, "x").unwrap_err().to_string();
        let unknown = err(&netns("transport = \"dpdk\"\n"));
        assert!(unknown.contains("fabric.transport"), "{unknown}");
        let in_process = err(&format!("{GOOD}[fabric]\ntransport = \"xdp\"\n"));
        assert!(
            in_process.contains("only on the netns fabric"),
            "{in_process}"
        );
        let lossy =
            err(&netns("transport = \"auto\"\n").replacen("[switch]", "[switch]\nloss = 0.01", 1));
        assert!(lossy.contains("nftables"), "{lossy}");
    }

    #[test]
    fn the_fabric_section() {
        let e = Experiment::parse(GOOD, "x").unwrap();
        assert_eq!(e.fabric, FabricSpec::default());
        assert_eq!(e.fabric.kind, FabricKind::InProcess);
        let e = Experiment::parse(&format!("{GOOD}{FABRIC}"), "x").unwrap();
        assert_eq!(
            e.fabric,
            FabricSpec {
                kind: FabricKind::Sim,
                transport: TransportChoice::Udp,
                sim: SimParams {
                    link_gbps: 40.0,
                    propagation_ns: 2500,
                    host_gbps: 40.0,
                    ps_service_ns: 300,
                    bundle: 16,
                    compute_jitter: 0.05,
                },
            }
        );
        let e = Experiment::parse(&format!("{GOOD}[fabric]\nkind = \"netns\"\n"), "x").unwrap();
        assert_eq!(e.fabric.kind, FabricKind::Netns);
        let base = format!("{GOOD}{FABRIC}");
        // The [fabric] header is on line 25 of `base`, kind on 26.
        for (from, to, key, line) in [
            ("kind = \"sim\"", "kind = \"ns3\"", "fabric.kind", 26),
            (
                "link_gbps = 40.0",
                "link_gbps = 0.0",
                "fabric.link_gbps",
                27,
            ),
            (
                "propagation_us = 2.5",
                "propagation_us = -1.0",
                "fabric.propagation_us",
                28,
            ),
            ("bundle = 16", "bundle = 12", "fabric.bundle", 30),
            (
                "bundle = 16",
                "bundle = 16\nhost_gbps = -3.0",
                "fabric.host_gbps",
                31,
            ),
            (
                "kind = \"sim\"",
                "kind = \"inprocess\"",
                "fabric.link_gbps",
                27,
            ),
        ] {
            let err = Experiment::parse(&base.replace(from, to), "x")
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(&format!("{key} (line {line})")),
                "{key}: {err}"
            );
        }
        let err = Experiment::parse(
            &base.replace("ps_service_ns = 300", "ps_service_ns = 2000000000"),
            "x",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("fabric.ps_service_ns (line 29)"), "{err}");
        // Simulator keys without kind = "sim": an error, unless the command
        // line asks for the sim fabric.
        let text = base.replace("kind = \"sim\"\n", "");
        let err = Experiment::parse(&text, "x").unwrap_err().to_string();
        assert!(err.contains("fabric.link_gbps (line 26)"), "{err}");
        let e = Experiment::parse_in(&text, "x", Path::new("."), Some(FabricKind::Sim)).unwrap();
        assert_eq!(e.fabric.sim.bundle, 16);
        let err = Experiment::parse_in(&base, "x", Path::new("."), Some(FabricKind::Netns))
            .unwrap_err()
            .to_string();
        assert!(err.contains("fabric.link_gbps (line 27)"), "{err}");
        let err = Experiment::parse(&format!("{GOOD}[fabric]\nbundel = 4\n"), "x")
            .unwrap_err()
            .to_string();
        assert!(err.contains("bundel") && err.contains("line 2"), "{err}");
        let err = Experiment::parse(&format!("scale = 1.5\n{GOOD}"), "x")
            .unwrap_err()
            .to_string();
        assert!(err.contains("scale (line 1)"), "{err}");
    }

    #[test]
    fn the_host_limit_is_for_emulator_fabrics_only() {
        let mut text = String::from("[switch]\nlanes = 32\npool_slots = 256\n");
        for i in 0..20 {
            text.push_str(&format!(
                "[[jobs]]\nname = \"j{i}\"\nworkers = 32\ngradient_elems = 64\niterations = 1\n"
            ));
        }
        let err = Experiment::parse(&text, "x").unwrap_err().to_string();
        assert!(err.contains("660 hosts"), "{err}");
        let e = Experiment::parse(&format!("{text}[fabric]\nkind = \"sim\"\n"), "x").unwrap();
        assert_eq!(e.hosts(), 660);
    }

    const WORKLOAD: &str = "[switch]\nlanes = 32\npool_slots = 4096\n\n[workload]\n\
        arrivals = \"poisson\"\njobs = 64\nload = 0.6\n\
        models = [\"resnet50\", \"vgg16\", \"bert-base\", \"resnet101\", \"alexnet\", \"gpt2-small\"]\n\
        workers = 8\niterations = [10, 30]\nwindow = 16\n\n[fabric]\nkind = \"sim\"\n";

    #[test]
    fn a_poisson_workload_generates_jobs() {
        let e = Experiment::parse(WORKLOAD, "x").unwrap();
        assert_eq!(e.jobs.len(), 64);
        assert_eq!(e.jobs[0].name, "j001");
        assert_eq!(e.jobs[63].name, "j064");
        assert_eq!(e.jobs[0].arrival_us, 0);
        assert!(
            e.jobs
                .windows(2)
                .all(|w| w[0].arrival_us <= w[1].arrival_us)
        );
        assert!(e.jobs.iter().all(|j| j.workers == 8 && j.window == 16));
        assert!(e.jobs.iter().all(|j| (10..=30).contains(&j.iterations)));
        assert_eq!(e.hosts(), 64 * 9);
        // Real sizes (sim: scale 1).
        let j = &e.jobs[0];
        let p = profile(j.model.as_deref().unwrap()).unwrap();
        assert_eq!(j.gradient_elems as u64, p.real_params);
        // The same seed gives the same jobs; another seed other ones.
        assert_eq!(Experiment::parse(WORKLOAD, "x").unwrap().jobs, e.jobs);
        let other = Experiment::parse(&format!("seed = 2\n{WORKLOAD}"), "x").unwrap();
        assert_ne!(other.jobs, e.jobs);
        // [[jobs]] come first, and a clashing name is refused.
        let text = format!(
            "{WORKLOAD}[[jobs]]\nname = \"a\"\nworkers = 2\nmodel = \"alexnet\"\niterations = 1\n"
        );
        let e = Experiment::parse(&text, "x").unwrap();
        assert_eq!((e.jobs.len(), e.jobs[0].name.as_str()), (65, "a"));
        let err = Experiment::parse(&text.replace("name = \"a\"", "name = \"j007\""), "x")
            .unwrap_err()
            .to_string();
        assert!(err.contains("j007"), "{err}");
        // The worker list and a single iteration count.
        let e = Experiment::parse(
            &WORKLOAD
                .replace("workers = 8", "workers = [2, 4]")
                .replace("iterations = [10, 30]", "iterations = 5"),
            "x",
        )
        .unwrap();
        assert!(e.jobs.iter().all(|j| j.iterations == 5));
        assert!(e.jobs.iter().any(|j| j.workers == 2) && e.jobs.iter().any(|j| j.workers == 4));
    }

    #[test]
    fn workload_errors_name_the_key_and_line() {
        for (from, to, key, line) in [
            (
                "arrivals = \"poisson\"",
                "arrivals = \"uniform\"",
                "workload.arrivals",
                6,
            ),
            ("load = 0.6", "load = 0.0", "workload.load", 8),
            ("jobs = 64", "jobs = 0", "workload.jobs", 7),
            ("\"alexnet\"", "\"lenet\"", "workload.models", 9),
            ("workers = 8", "workers = 1", "workload.workers", 10),
            ("workers = 8", "workers = [2, 64]", "workload.workers", 10),
            (
                "iterations = [10, 30]",
                "iterations = [30, 10]",
                "workload.iterations",
                11,
            ),
            (
                "iterations = [10, 30]",
                "iterations = [1, 2, 3]",
                "workload.iterations",
                11,
            ),
            ("window = 16", "window = 0", "workload.window", 12),
            ("jobs = 64\n", "", "workload.jobs", 5),
            (
                "arrivals = \"poisson\"",
                "arrivals = \"poisson\"\ntrace = \"t.csv\"",
                "workload.trace",
                7,
            ),
        ] {
            let err = Experiment::parse(&WORKLOAD.replace(from, to), "x")
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(&format!("{key} (line {line})")),
                "{key}: {err}"
            );
        }
        // Real sizes do not fit an emulator fabric.
        let text = format!(
            "scale = 1.0\n{}",
            WORKLOAD.replace("kind = \"sim\"", "kind = \"inprocess\"")
        );
        let err = Experiment::parse(&text, "x").unwrap_err().to_string();
        assert!(err.contains("workload.models (line 10)"), "{err}");
        // A trace excludes the Poisson keys.
        let text = WORKLOAD.replace("arrivals = \"poisson\"", "trace = \"t.csv\"");
        let err = Experiment::parse(&text, "x").unwrap_err().to_string();
        assert!(err.contains("workload.jobs (line 7)"), "{err}");
    }

    const RACKS: &str = "[switch]\nlanes = 32\npool_slots = 1024\n\n[fabric]\nkind = \"sim\"\n\n\
        [topology]\nracks = 16\nhosts_per_rack = 32\nspines = 4\noversubscription = 2.0\n\
        placement = \"spread\"\n\n[[jobs]]\nname = \"a\"\nworkers = 64\nmodel = \"alexnet\"\n\
        iterations = 1\n\n[compare]\nvariants = [\"esa\", \"atp\", \"none\"]\n\
        second_level = [true, false]\n";

    #[test]
    fn the_topology_section() {
        let e = Experiment::parse(RACKS, "x").unwrap();
        assert_eq!(
            e.topology,
            Some(Topology {
                racks: 16,
                hosts_per_rack: 32,
                spines: 4,
                // 32 hosts × 100 Gbit/s / 2, over 4 spines.
                uplink_gbps: 400.0,
                placement: PlacementPolicy::Spread,
                max_racks_per_job: 8,
            })
        );
        let t = e.topology.as_ref().unwrap();
        assert_eq!(t.oversubscription(e.fabric.sim.link_gbps), 2.0);
        // A job of 64 workers across 8 racks (spread: 8 each).
        assert_eq!(e.placements.len(), 1);
        assert_eq!(
            e.placements[0].racks,
            (0..8).map(|r| (r, 8)).collect::<Vec<_>>()
        );
        // Each variant with and without the second level; none once.
        let labels: Vec<(&str, bool)> = e
            .variants
            .iter()
            .map(|v| (v.label.as_str(), v.second_level))
            .collect();
        assert_eq!(
            labels,
            [
                ("esa", true),
                ("esa (one level)", false),
                ("atp", true),
                ("atp (one level)", false),
                ("none", true)
            ]
        );
        let e =
            Experiment::parse(&RACKS.replace("second_level = [true, false]\n", ""), "x").unwrap();
        assert!(e.variants.iter().all(|v| v.second_level) && e.variants.len() == 3);
        // The link given as Gbit/s; the defaults: packed, 8 racks per job,
        // oversubscription 1.
        let text = RACKS
            .replace("oversubscription = 2.0", "uplink_gbps = 250.0")
            .replace("placement = \"spread\"\n", "max_racks_per_job = 2\n");
        let t = Experiment::parse(&text, "x").unwrap().topology.unwrap();
        assert_eq!(
            (t.uplink_gbps, t.placement, t.max_racks_per_job),
            (250.0, PlacementPolicy::Packed, 2)
        );
        let text = RACKS.replace("oversubscription = 2.0\n", "");
        let t = Experiment::parse(&text, "x").unwrap().topology.unwrap();
        assert_eq!(t.uplink_gbps, 800.0);
    }

    #[test]
    fn topology_errors_name_the_key_and_line() {
        // [topology] is on line 8, racks on 9.
        for (from, to, key, line) in [
            ("racks = 16", "racks = 0", "topology.racks", 9),
            ("racks = 16", "racks = 1025", "topology.racks", 9),
            (
                "hosts_per_rack = 32",
                "hosts_per_rack = 0",
                "topology.hosts_per_rack",
                10,
            ),
            ("spines = 4", "spines = 65", "topology.spines", 11),
            (
                "oversubscription = 2.0",
                "oversubscription = 0.0",
                "topology.oversubscription",
                12,
            ),
            (
                "oversubscription = 2.0",
                "oversubscription = 2.0\nuplink_gbps = 100.0",
                "topology.uplink_gbps",
                13,
            ),
            (
                "oversubscription = 2.0",
                "uplink_gbps = -1.0",
                "topology.uplink_gbps",
                12,
            ),
            ("\"spread\"", "\"ring\"", "topology.placement", 13),
            (
                "placement = \"spread\"",
                "max_racks_per_job = 33",
                "topology.max_racks_per_job",
                13,
            ),
            // A job larger than 2 racks of 32 can hold.
            (
                "placement = \"spread\"",
                "max_racks_per_job = 1",
                "topology",
                13,
            ),
            (
                "second_level = [true, false]",
                "second_level = [true, true]",
                "compare.second_level",
                23,
            ),
        ] {
            let err = Experiment::parse(&RACKS.replace(from, to), "x")
                .unwrap_err()
                .to_string();
            assert!(
                err.contains(&format!("{key} (line {line})")),
                "{key}: {err}"
            );
        }
        let err = Experiment::parse(
            &RACKS
                .replace("racks = 16", "racks = 1024")
                .replace("spines = 4", "spines = 64"),
            "x",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("[topology] (line 8): 1024 racks x 64 spines and 65 hosts")
                && err.contains("need 131137 switch ports"),
            "{err}"
        );
        let err = Experiment::parse(&RACKS.replace("spines = 4", "spine = 4"), "x")
            .unwrap_err()
            .to_string();
        assert!(err.contains("spine") && err.contains("line 11"), "{err}");
        let err = Experiment::parse(
            &RACKS.replace("placement = \"spread\"", "max_racks_per_job = 1"),
            "x",
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("\"a\" has 64 workers, more than the 32 a job can have"),
            "{err}"
        );
    }

    #[test]
    fn link_rates_are_for_the_sim_fabric_and_the_second_level_for_a_topology() {
        let netns = RACKS.replace("kind = \"sim\"", "kind = \"netns\"");
        let err = Experiment::parse(&netns, "x").unwrap_err().to_string();
        assert!(
            err.contains("topology.oversubscription (line 12): link rates are modelled on the sim")
                && err.contains("the netns fabric's links"),
            "{err}"
        );
        // The command line's fabric decides.
        assert!(Experiment::parse_in(&netns, "x", Path::new("."), Some(FabricKind::Sim)).is_ok());
        let err = Experiment::parse_in(RACKS, "x", Path::new("."), Some(FabricKind::InProcess))
            .unwrap_err()
            .to_string();
        assert!(err.contains("the inprocess fabric's links"), "{err}");
        let rate = |line: &str| {
            let text = netns.replace("oversubscription = 2.0\n", line);
            Experiment::parse(&text, "x").map_err(|e| e.to_string())
        };
        let err = rate("uplink_gbps = 100\n").unwrap_err();
        assert!(err.contains("topology.uplink_gbps (line 12)"), "{err}");
        // Racks under spines without a rate run emulated.
        let e = rate("").unwrap();
        assert_eq!(e.topology.as_ref().map(|t| t.racks), Some(16));
        // Without a topology: jobs of at most 32 workers, one level.
        let flat = |text: &str| {
            let start = text.find("[topology]").unwrap();
            let end = text.find("[[jobs]]").unwrap();
            format!("{}{}", &text[..start], &text[end..])
        };
        let err = Experiment::parse(&flat(RACKS), "x")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("jobs[0] (\"a\").workers (line 10) = 64: must be 2..=32"),
            "{err}"
        );
        let text = flat(RACKS).replace("workers = 64", "workers = 8");
        let err = Experiment::parse(&text, "x").unwrap_err().to_string();
        assert!(
            err.contains("compare.second_level (line 16): needs a [topology]"),
            "{err}"
        );
    }

    #[test]
    fn a_workload_across_racks_may_have_jobs_of_more_than_32_workers() {
        let text = WORKLOAD
            .replace("workers = 8", "workers = [8, 64]")
            .replace("pool_slots = 4096", "pool_slots = 32768");
        let err = Experiment::parse(&text, "x").unwrap_err().to_string();
        assert!(err.contains("workload.workers (line 10)"), "{err}");
        let racks = format!("{text}\n[topology]\nracks = 16\nhosts_per_rack = 32\nspines = 4\n");
        let e = Experiment::parse(&racks, "x").unwrap();
        assert!(e.jobs.iter().any(|j| j.workers == 64));
        assert_eq!(e.placements.len(), 64);
        // Packed: 64 workers take two racks of 32 when two are free.
        for (p, j) in e.placements.iter().zip(&e.jobs) {
            let n: usize = p.racks.iter().map(|&(_, w)| usize::from(w)).sum();
            assert_eq!(n, usize::from(j.workers));
        }
    }
}
