//! `experiments/loss.toml`: 1 % of the frames on host links are lost;
//! every result must still be the exact sum, the losses recovered by
//! retransmission.

use std::path::Path;

use esa_testbed::{Experiment, LossLinks, RunOptions, run_experiment};

fn run_and_check(experiment: &Experiment) {
    let options = RunOptions {
        progress: false,
        ..RunOptions::default()
    };
    let report = run_experiment(experiment, &options).unwrap();
    let table = report.table();
    print!("{table}");
    // The column counts slots lost either way, and says so: under ATP,
    // which never preempts, they are all stale reclaims.
    let header = table.lines().next().unwrap();
    assert!(
        header.contains(" lost ") && !header.contains("evicted"),
        "{header}"
    );
    assert!(table.contains("(lost: slots the job lost mid-aggregation, preempted or reclaimed"));
    for job in report.jobs().filter(|j| j.mode == "atp") {
        assert_eq!(job.preemptions, 0, "{} / {}", job.variant, job.name);
    }
    for job in report.jobs() {
        assert!(
            job.verified,
            "{} / {}: {:?}",
            job.variant, job.name, job.error
        );
        assert_eq!(job.wrong_elements, 0);
    }
    let lost: u64 = report.jobs().map(|j| j.frames_lost).sum();
    let resent: u64 = report.jobs().map(|j| j.retransmissions).sum();
    // Thousands of frames cross the links: some are lost, and lost DATA or
    // RESULTs are only recovered by resending.
    assert!(lost > 0, "no frame lost");
    assert!(resent > 0, "{lost} frames lost but nothing resent");
}

fn loss_experiment() -> Experiment {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("experiments/loss.toml");
    let experiment = Experiment::load(&path).unwrap();
    assert_eq!(experiment.switch.loss, 0.01);
    assert_eq!(experiment.switch.loss_links, LossLinks::All);
    experiment
}

/// Loss on the workers' links only.
#[test]
fn results_verify_under_one_percent_loss_on_worker_links() {
    let mut experiment = loss_experiment();
    experiment.switch.loss_links = LossLinks::Workers;
    run_and_check(&experiment);
}

/// Loss on the parameter servers' links only.
#[test]
fn results_verify_under_one_percent_loss_on_ps_links() {
    let mut experiment = loss_experiment();
    experiment.switch.loss_links = LossLinks::ParameterServers;
    run_and_check(&experiment);
}

/// Loss on every link, as `loss.toml` runs it. A RESULT lost both toward
/// one worker and toward the PS is recovered from another worker's result
/// cache (the PS's `QUERY`); this hung about half the runs until a worker's
/// chunks in flight were bounded to what those caches hold.
#[test]
fn results_verify_under_one_percent_loss_on_every_link() {
    run_and_check(&loss_experiment());
}
