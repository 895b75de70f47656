//! The experiment file: the switch, the jobs and what to compare.
//!
//! Parsing is strict (`deny_unknown_fields`): a misspelt key is an error
//! that names it and its line. [`Experiment::load`] also checks every value
//! and resolves model profiles, so a loaded experiment can run.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use esa_core::constants::{MAX_FAN_IN, MAX_PRIORITY};
use esa_core::policy::Policy;
use esa_core::pool::Mode;
use serde::Deserialize;

use crate::error::TestbedError;
use crate::train::TrainSpec;

/// Largest number of hosts (workers and PSes) in one experiment: switch
/// ports 1..=510.
pub const MAX_HOSTS: usize = 510;

/// A built-in model profile: gradient size and compute time per iteration,
/// scaled down (about 1/1024 of the real parameter count) so that a run on
/// the software switch on a laptop takes seconds, with the models' relative
/// sizes and compute/communication balance kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    /// Name used in experiment files.
    pub name: &'static str,
    /// Gradient elements (float32) per iteration.
    pub gradient_elems: usize,
    /// Compute time per iteration, milliseconds.
    pub compute_ms: u64,
    /// The real model's parameter count, for the record.
    pub real_params: u64,
}

/// The built-in profiles.
pub const PROFILES: [Profile; 3] = [
    Profile {
        name: "resnet50",
        gradient_elems: 25_000,
        compute_ms: 30,
        real_params: 25_600_000,
    },
    Profile {
        name: "vgg16",
        gradient_elems: 135_000,
        compute_ms: 60,
        real_params: 138_000_000,
    },
    Profile {
        name: "bert-base",
        gradient_elems: 107_000,
        compute_ms: 80,
        real_params: 110_000_000,
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
    switch: SwitchSection,
    #[serde(default)]
    jobs: Vec<JobSection>,
    compare: Option<CompareSection>,
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
    #[serde(default)]
    arrival_ms: u64,
    workers: u8,
    model: Option<String>,
    gradient_elems: Option<usize>,
    compute_ms: Option<u64>,
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
}

/// The switch: what the P4 program is compiled with.
#[derive(Debug, Clone, PartialEq)]
pub struct SwitchSpec {
    /// Value lanes per packet (`ESA_LANES`): 4, 8, 16, 32 or 64.
    pub lanes: usize,
    /// Aggregator slots (`ESA_POOL_SLOTS`), a power of two.
    pub pool_slots: u32,
    /// The P4 program; `None`: `p4/v1model/esa.p4` of this source tree.
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
    /// When the job arrives (is admitted), from the start of the run.
    pub arrival_ms: u64,
    /// Number of workers, 2..=32.
    pub workers: u8,
    /// The profile named, if any.
    pub model: Option<String>,
    /// Gradient elements per iteration.
    pub gradient_elems: usize,
    /// Compute time per iteration, milliseconds.
    pub compute_ms: u64,
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
        self.gradient_elems.div_ceil(lanes.max(1)) as u64
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
}

impl Variant {
    /// Parses `MODE` or `MODE/POLICY` (`esa/srpt`, `atp`, `switchml`).
    pub fn parse(text: &str) -> Result<Variant, String> {
        let (mode, policy) = match text.split_once('/') {
            Some((m, p)) => (m, Some(p)),
            None => (text, None),
        };
        let mode: Mode = mode
            .parse()
            .map_err(|_| format!("variant {text:?}: unknown mode {mode:?} (esa, atp, switchml)"))?;
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
        })
    }

    /// The jobs as given.
    pub fn as_given() -> Variant {
        Variant {
            label: "as given".into(),
            mode: None,
            policy: None,
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
    /// The jobs, in file order.
    pub jobs: Vec<JobSpec>,
    /// The variants to run; one (`as given`) without `[compare]`.
    pub variants: Vec<Variant>,
}

fn invalid(message: impl Into<String>) -> TestbedError {
    TestbedError::Invalid(message.into())
}

impl Experiment {
    /// Reads and checks an experiment file. A relative `program` is
    /// relative to the file.
    pub fn load(path: &Path) -> Result<Experiment, TestbedError> {
        let text = std::fs::read_to_string(path).map_err(|error| TestbedError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        let stem = path
            .file_stem()
            .map_or_else(|| "experiment".into(), |s| s.to_string_lossy().into_owned());
        let mut e = Experiment::parse(&text, &stem).map_err(|e| match e {
            TestbedError::Parse { message, .. } => TestbedError::Parse {
                path: path.display().to_string(),
                message,
            },
            other => other,
        })?;
        if let Some(program) = &mut e.switch.program
            && program.is_relative()
        {
            let dir = path.parent().unwrap_or(Path::new("."));
            *program = dir.join(&*program);
        }
        Ok(e)
    }

    /// Parses and checks experiment text; `default_name` names it when the
    /// text does not.
    pub fn parse(text: &str, default_name: &str) -> Result<Experiment, TestbedError> {
        let file: File = toml::from_str(text).map_err(|e| TestbedError::Parse {
            path: default_name.to_string(),
            message: e.to_string(),
        })?;
        let lines = Lines(text);
        let switch = check_switch(file.switch, &lines)?;
        if file.jobs.is_empty() {
            return Err(invalid("no [[jobs]]: an experiment needs at least one job"));
        }
        let mut names = BTreeSet::new();
        let mut jobs = Vec::new();
        for (i, j) in file.jobs.into_iter().enumerate() {
            let job = check_job(j, i, &switch, &lines)?;
            if !names.insert(job.name.clone()) {
                return Err(invalid(format!("jobs: name {:?} used twice", job.name)));
            }
            jobs.push(job);
        }
        let hosts: usize = jobs.iter().map(|j| usize::from(j.workers) + 1).sum();
        if hosts > MAX_HOSTS {
            return Err(invalid(format!(
                "{hosts} hosts (workers + one PS per job): at most {MAX_HOSTS} fit on the switch"
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
                out
            }
        };
        Ok(Experiment {
            name: file.name.unwrap_or_else(|| default_name.to_string()),
            seed: file.seed,
            switch,
            jobs,
            variants,
        })
    }

    /// The jobs as they run under `variant`: mode and policy replaced, and
    /// switchml jobs without a range given an equal share of the pool.
    pub fn jobs_for(&self, variant: &Variant) -> Vec<JobSpec> {
        let mut jobs = self.jobs.clone();
        for j in &mut jobs {
            if let Some(m) = variant.mode {
                j.mode = m;
                if m != Mode::SwitchMl {
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
            if j.mode == Mode::SwitchMl && j.slots.is_none() {
                j.slots = Some(share);
                // Bases picked by the controller; ranges of jobs that do not
                // overlap in time are reused.
                j.slot_base = None;
            }
        }
        jobs
    }
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
    Switch,
    /// The `[[jobs]]` entry of this index.
    Job(usize),
    Compare,
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
        let mut here: Option<Table> = None;
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
                    "compare" => Some(Table::Compare),
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
    if ![4, 8, 16, 32, 64].contains(&s.lanes) {
        return Err(invalid(format!(
            "{} = {}: must be 4, 8, 16, 32 or 64",
            at("lanes"),
            s.lanes
        )));
    }
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
    Ok(SwitchSpec {
        lanes: s.lanes,
        pool_slots: s.pool_slots,
        program: s.program,
        loss: s.loss,
        loss_links,
        stale_after_ms: s.stale_after_ms,
    })
}

fn check_job(
    j: JobSection,
    index: usize,
    switch: &SwitchSpec,
    lines: &Lines<'_>,
) -> Result<JobSpec, TestbedError> {
    let at = |key: &str| {
        format!(
            "jobs[{index}] ({:?}).{key}{}",
            j.name,
            lines.mention(Table::Job(index), key)
        )
    };
    if j.name.is_empty()
        || !j
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(invalid(format!(
            "jobs[{index}].name{} = {:?}: use letters, digits, '-' and '_'",
            lines.mention(Table::Job(index), "name"),
            j.name
        )));
    }
    if j.workers < 2 || j.workers > MAX_FAN_IN {
        return Err(invalid(format!(
            "{} = {}: must be 2..={MAX_FAN_IN}",
            at("workers"),
            j.workers
        )));
    }
    if j.iterations == 0 {
        return Err(invalid(format!(
            "{} = 0: must be at least 1",
            at("iterations")
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
    let gradient_elems = j
        .gradient_elems
        .or(base.map(|p| p.gradient_elems))
        .or(train.map(|t| t.params()))
        .ok_or_else(|| {
            invalid(format!(
                "{}: give `model` or `gradient_elems`",
                at("gradient_elems")
            ))
        })?;
    if gradient_elems == 0 || gradient_elems > 16 << 20 {
        return Err(invalid(format!(
            "{} = {gradient_elems}: must be 1..=16777216",
            at("gradient_elems")
        )));
    }
    let compute_ms = j.compute_ms.or(base.map(|p| p.compute_ms)).unwrap_or(0);
    if compute_ms > 600_000 {
        return Err(invalid(format!(
            "{} = {compute_ms}: at most 600000",
            at("compute_ms")
        )));
    }
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
    if mode != Mode::SwitchMl && (j.slots.is_some() || j.slot_base.is_some()) {
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
        arrival_ms: j.arrival_ms,
        workers: j.workers,
        model: j.model,
        gradient_elems,
        compute_ms,
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
}
