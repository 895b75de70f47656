//! A job's switch counters as growth since a starting reading, across
//! resets: what the controller reports for each job (`JobStats`, `/metrics`)
//! and what a run of `esa run` reports for its own jobs
//! (`esa_testbed::counters`).
//!
//! The switch's per-job counters are indexed by job id and never cleared
//! while the switch runs; they start again from zero when it restarts or
//! its pipeline is pushed again. The rule for a counter that went
//! backwards: the switch reset it. What it had counted before the reset is
//! banked: the growth seen up to the last reading before the reset is kept
//! and counting goes on from zero after it. A reset the reader knows of
//! (the controller pushed the pipeline) is told with
//! [`CounterDeltas::reset`], so that a counter which has already climbed
//! past its old reading by the next read is not taken for one that grew.
//! What the switch counted between the last reading and the reset is lost:
//! at most one sampling interval's worth.

use std::collections::BTreeMap;

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

    /// The switch's counters were reset (its pipeline was pushed): every
    /// next reading counts from zero.
    pub fn reset(&mut self) {
        for delta in self.counters.values_mut() {
            delta.last = 0;
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
    fn a_known_reset_counts_from_zero_even_past_the_old_reading() {
        let mut run = CounterDeltas::starting_at(reading(0, 0));
        run.observe(reading(600, 1));
        run.reset();
        // By the next read the counter climbed past 600 again: without the
        // reset this would pass for 100 more.
        run.observe(reading(700, 1));
        assert_eq!(run.deltas(), deltas(600 + 700, 2));
    }

    #[test]
    fn a_counter_first_seen_late_counts_from_zero() {
        let mut run = CounterDeltas::starting_at([]);
        run.observe([("completed", 7)]);
        assert_eq!(run.deltas()["completed"], 7);
        assert_eq!(CounterDeltas::default().deltas(), BTreeMap::new());
    }
}
