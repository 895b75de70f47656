//! Checks shared by the testbed's end-to-end tests.

use esa_testbed::{Experiment, ExperimentReport, JobReport, RunOptions, run_experiment};

/// Runs every variant of `e` without progress lines; every job of every
/// variant verified.
pub fn run_verified(e: &Experiment) -> ExperimentReport {
    let options = RunOptions {
        progress: false,
        ..RunOptions::default()
    };
    let report = run_experiment(e, &options).unwrap();
    assert!(report.all_verified(), "{}", report.table());
    report
}

/// Every job of a one-variant run finished all its iterations without an
/// error, verified, aggregated something in the switch, and completed
/// every chunk somewhere (switch or PS) at least once.
pub fn assert_every_job_finished(jobs: &[JobReport], experiment: &Experiment) {
    assert_eq!(jobs.len(), experiment.jobs.len());
    for (job, spec) in jobs.iter().zip(&experiment.jobs) {
        assert_eq!(job.error, None, "{}", job.name);
        assert_eq!(job.iterations_done, spec.iterations, "{}", job.name);
        assert!(job.verified, "{}", job.name);
        assert!(job.jct_ms > 0.0, "{}", job.name);
        assert!(
            job.chunks_in_switch > 0,
            "{}: nothing aggregated in the switch",
            job.name
        );
        assert!(
            job.chunks_in_switch + job.chunks_at_ps >= job.chunks_total,
            "{}: {} in switch + {} at PS < {}",
            job.name,
            job.chunks_in_switch,
            job.chunks_at_ps,
            job.chunks_total
        );
    }
}
