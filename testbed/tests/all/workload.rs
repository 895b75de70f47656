//! Experiment files with generated workloads, traces on disk, and the
//! shipped experiments' jobs (unchanged by profiles, scale and µs times).

use std::path::{Path, PathBuf};

use esa_testbed::experiment::{FabricKind, MAX_HOSTS};
use esa_testbed::workload::{LinkModel, PoissonSpec, parse_trace, write_trace};
use esa_testbed::{Experiment, TestbedError};

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("experiments")
        .join(name)
}

/// (name, gradient_elems, compute_us, arrival_us) of every job.
fn jobs(e: &Experiment) -> Vec<(String, usize, u64, u64)> {
    e.jobs
        .iter()
        .map(|j| (j.name.clone(), j.gradient_elems, j.compute_us, j.arrival_us))
        .collect()
}

fn own(v: &[(&str, usize, u64, u64)]) -> Vec<(String, usize, u64, u64)> {
    v.iter()
        .map(|&(n, g, c, a)| (n.to_string(), g, c, a))
        .collect()
}

#[test]
fn shipped_experiments_are_unchanged() {
    // The values these files gave before profiles gained real sizes and
    // times became microseconds (compute_ms × 1000, arrival_ms × 1000).
    let quick = Experiment::load(&shipped("quick.toml")).unwrap();
    assert_eq!(
        jobs(&quick),
        own(&[("a", 65536, 10_000, 0), ("b", 32768, 10_000, 50_000)])
    );
    let contention = Experiment::load(&shipped("contention.toml")).unwrap();
    assert_eq!(
        jobs(&contention),
        own(&[
            ("vgg", 135_000, 60_000, 0),
            ("bert", 107_000, 80_000, 100_000),
            ("resnet-a", 25_000, 30_000, 200_000),
            ("resnet-b", 25_000, 30_000, 300_000),
        ])
    );
    let bmv2 = Experiment::load(&shipped("contention-bmv2.toml")).unwrap();
    assert_eq!(
        jobs(&bmv2),
        own(&[
            ("vgg", 33_750, 60_000, 0),
            ("bert", 26_750, 80_000, 100_000),
            ("resnet-a", 6_250, 30_000, 200_000),
            ("resnet-b", 6_250, 30_000, 300_000),
        ])
    );
    let loss = Experiment::load(&shipped("loss.toml")).unwrap();
    assert_eq!(
        jobs(&loss),
        own(&[("a", 32768, 5_000, 0), ("b", 16384, 5_000, 30_000)])
    );
    let train = Experiment::load(&shipped("train.toml")).unwrap();
    assert_eq!(
        jobs(&train),
        own(&[
            ("softmax", 8 * 65, 0, 0),
            ("background", 32768, 5_000, 20_000)
        ])
    );
    for e in [&quick, &contention, &bmv2, &loss, &train] {
        assert_eq!(e.fabric.kind, FabricKind::InProcess, "{}", e.name);
        assert_eq!(e.scale, None, "{}", e.name);
        assert!(e.hosts() <= MAX_HOSTS);
    }
    // The same file on the sim fabric (as `esa run --fabric sim` loads it):
    // profile jobs at real size, explicit sizes unchanged.
    let sim = Experiment::load_as(&shipped("contention.toml"), Some(FabricKind::Sim)).unwrap();
    assert_eq!(sim.scale, Some(1.0));
    assert_eq!(
        jobs(&sim),
        own(&[
            ("vgg", 138_357_544, 128_140, 0),
            ("bert", 109_482_240, 118_800, 100_000),
            ("resnet-a", 25_557_032, 101_210, 200_000),
            ("resnet-b", 25_557_032, 101_210, 300_000),
        ])
    );
}

struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("esa-workload-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const POISSON: &str = r#"
seed = 9

[switch]
lanes = 32
pool_slots = 2048

[fabric]
kind = "sim"
link_gbps = 100.0
propagation_us = 1.0

[workload]
arrivals = "poisson"
jobs = 40
load = 0.7
models = ["vgg16", "resnet101", "gpt2-small"]
workers = [4, 8]
iterations = [5, 15]
window = 32
"#;

#[test]
fn a_generated_trace_runs_the_same_jobs_as_the_poisson_workload() {
    let dir = TempDir::new("same");
    let poisson = dir.0.join("poisson.toml");
    std::fs::write(&poisson, POISSON).unwrap();
    let from_poisson = Experiment::load(&poisson).unwrap();
    assert_eq!(from_poisson.jobs.len(), 40);

    // What `esa workload generate` writes for the same parameters.
    let spec = PoissonSpec {
        jobs: 40,
        load: 0.7,
        pool_slots: 2048,
        window: 32,
        models: vec!["vgg16", "resnet101", "gpt2-small"],
        workers: vec![4, 8],
        iterations: (5, 15),
        scale: Some(1.0),
        link: LinkModel {
            lanes: 32,
            link_gbps: 100.0,
            propagation_ns: 1000,
        },
        seed: 9,
    };
    let rows = spec.generate().unwrap();
    let csv = write_trace(&rows);
    assert_eq!(parse_trace(&csv, "gen.csv").unwrap(), rows);
    std::fs::create_dir_all(dir.0.join("traces")).unwrap();
    std::fs::write(dir.0.join("traces/gen.csv"), &csv).unwrap();
    let traced = POISSON.replace(
        "arrivals = \"poisson\"\njobs = 40\nload = 0.7\nmodels = [\"vgg16\", \"resnet101\", \"gpt2-small\"]\nworkers = [4, 8]\niterations = [5, 15]\n",
        "trace = \"traces/gen.csv\"\n",
    );
    assert_ne!(traced, POISSON);
    let traced_path = dir.0.join("traced.toml");
    std::fs::write(&traced_path, traced).unwrap();
    let from_trace = Experiment::load(&traced_path).unwrap();
    assert_eq!(from_trace.jobs, from_poisson.jobs);
}

#[test]
fn trace_files_are_relative_to_the_experiment_and_bad_rows_name_file_and_line() {
    let dir = TempDir::new("bad");
    let exp = dir.0.join("e.toml");
    std::fs::write(
        &exp,
        "[switch]\nlanes = 32\npool_slots = 64\n[workload]\ntrace = \"t.csv\"\nwindow = 8\n",
    )
    .unwrap();
    // Unnamed rows get j001... by their line order; jobs run in arrival order.
    std::fs::write(
        dir.0.join("t.csv"),
        "arrival_ms,model,workers,iterations\n5.5,alexnet,2,3\n0,resnet50,4,1\n",
    )
    .unwrap();
    let e = Experiment::load(&exp).unwrap();
    let got: Vec<(&str, u64, u8, u32, usize)> = e
        .jobs
        .iter()
        .map(|j| {
            (
                j.name.as_str(),
                j.arrival_us,
                j.workers,
                j.iterations,
                j.gradient_elems,
            )
        })
        .collect();
    assert_eq!(
        got,
        [("j002", 0, 4, 1, 25_000), ("j001", 5_500, 2, 3, 59_669)]
    );
    assert!(e.jobs.iter().all(|j| j.window == 8));

    std::fs::write(
        dir.0.join("t.csv"),
        "arrival_ms,model,workers,iterations\n0,alexnet,2,3\n1,alexnet,40,3\n",
    )
    .unwrap();
    let err = Experiment::load(&exp).unwrap_err().to_string();
    let file = dir.0.join("t.csv").display().to_string();
    assert!(
        err.contains(&format!("workload.trace (line 5): {file}:3: workers")),
        "{err}"
    );

    std::fs::remove_file(dir.0.join("t.csv")).unwrap();
    let err = Experiment::load(&exp).unwrap_err();
    assert!(matches!(err, TestbedError::Io { .. }), "{err}");
}
