//! A job's switch counters over one run, as deltas.
//!
//! A switch that outlives a run (an external one) still holds the last
//! run's counts for job 1 when the next run admits job 1 again. So a run
//! reads each job's counters when it admits the job, samples them while it
//! runs, reads them once more at the end, and reports what they grew by
//! ([`CounterDeltas`], shared with the controller, which banks counts across
//! a switch reset by the same rule).

use std::time::Duration;

pub use esa_controller::counters::CounterDeltas;

/// How often a running job's counters are read, which bounds what a reset
/// can take from the report.
pub const SAMPLE_EVERY: Duration = Duration::from_millis(500);
