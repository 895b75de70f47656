//! A job's switch counters over one run, as deltas.
//!
//! The switch's per-job counters are indexed by job id and never cleared:
//! a switch that outlives a run (an external one) still holds the last
//! run's counts for job 1 when the next run admits job 1 again. So a run
//! reads each job's counters when it admits the job, samples them while it
//! runs, reads them once more at the end, and reports what they grew by.
//!
//! The rule for a counter that went backwards: the switch reset it (it
//! restarted, or its pipeline was pushed again). What it had counted before
//! the reset is banked: the run keeps the growth it saw up to the last
//! reading before the reset and counts on from zero after it. What the
//! switch counted between that reading and the reset is lost, at most one
//! sampling interval's worth ([`SAMPLE_EVERY`]).

use std::collections::BTreeMap;
use std::time::Duration;

/// How often a running job's counters are read, which bounds what a reset
/// can take from the report.
pub const SAMPLE_EVERY: Duration = Duration::from_millis(500);

/// One job's counters since it was admitted: the growth banked so far and
/// the last reading, per counter name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CounterDeltas {
    counters: BTreeMap<String, Delta>,
}

/// One counter: the growth banked and the reading it was last seen at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Delta {
    grown: u64,
    last: u64,
}

impl CounterDeltas {
    /// Starting at `reading`, the counters when the job was admitted.
    pub fn starting_at<'a>(reading: impl IntoIterator<Item = (&'a str, u64)>) -> CounterDeltas {
        let counters = reading
            .into_iter()
            .map(|(name, last)| (name.to_string(), Delta { grown: 0, last }))
            .collect();
        CounterDeltas { counters }
    }

    /// Takes a later reading. A counter missing from the start counts from
    /// zero; one that went backwards was reset (the module's rule).
    pub fn observe<'a>(&mut self, reading: impl IntoIterator<Item = (&'a str, u64)>) {
        for (name, now) in reading {
            let delta = self.counters.entry(name.to_string()).or_default();
            delta.grown += match now.checked_sub(delta.last) {
                Some(grown) => grown,
                None => now,
            };
            delta.last = now;
        }
    }

    /// What every counter grew by since the start.
    pub fn deltas(&self) -> BTreeMap<String, u64> {
        self.counters
            .iter()
            .map(|(name, delta)| (name.clone(), delta.grown))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reading(completed: u64, preemptions: u64) -> [(&'static str, u64); 2] {
        [("completed", completed), ("preemptions", preemptions)]
    }

    fn deltas(completed: u64, preemptions: u64) -> BTreeMap<String, u64> {
        reading(completed, preemptions)
            .into_iter()
            .map(|(n, v)| (n.to_string(), v))
            .collect()
    }

    #[test]
    fn a_second_run_on_the_same_switch_reports_only_its_own_counts() {
        // The first run left job 1's counters at 10,240 and 3.
        let mut run = CounterDeltas::starting_at(reading(10_240, 3));
        run.observe(reading(15_000, 3));
        run.observe(reading(20_480, 5));
        assert_eq!(run.deltas(), deltas(10_240, 2));
    }

    #[test]
    fn counts_before_a_reset_are_banked() {
        let mut run = CounterDeltas::starting_at(reading(100, 0));
        run.observe(reading(600, 1));
        // The switch restarted: its counters start again from zero.
        run.observe(reading(40, 0));
        run.observe(reading(400, 2));
        assert_eq!(run.deltas(), deltas(500 + 400, 1 + 2));
    }

    #[test]
    fn a_counter_first_seen_late_counts_from_zero() {
        let mut run = CounterDeltas::starting_at([]);
        run.observe([("completed", 7)]);
        assert_eq!(run.deltas()["completed"], 7);
        assert_eq!(CounterDeltas::default().deltas(), BTreeMap::new());
    }
}
