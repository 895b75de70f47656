//! The retransmission timeout from measured round trips (RFC 6298).
//!
//! A worker feeds [`RttEstimator::sample`] the time from a chunk's first
//! transmission to its accepted `RESULT`, only for chunks never resent
//! (Karn's rule: a result of a resent chunk may answer either copy). The
//! estimator keeps the smoothed round trip `SRTT` and its variation
//! `RTTVAR` and gives `RTO = SRTT + max(G, 4·RTTVAR)`, bounded to
//! `min..=max`; before the first sample the RTO is the configured initial
//! one. Times are microseconds and integer; the clock granularity `G` is
//! 1 µs. Backing off on timeouts is the caller's (per chunk).
//!
//! [`Rto`] is a worker's retransmission settings, by where the hosts run.

/// Clock granularity `G` in microseconds.
const GRANULARITY_US: u64 = 1;

/// A worker's retransmission settings (`WorkerConfig`'s `rto_*` and
/// `max_retries`), by where the hosts run. Correctness never depends on
/// them, only how soon a loss is repaired and a dead peer reported; a
/// timeout far below the round trip resends for nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rto {
    /// The timeout before the first round trip is measured, µs.
    pub initial_us: u64,
    /// The floor of the measured timeout, µs; `None`: `initial_us`, so the
    /// timeout only adapts upward.
    pub min_us: Option<u64>,
    /// The ceiling, µs; a chunk's timeout doubles per resend up to it.
    pub max_us: u64,
    /// Resends of one chunk before the all-reduce fails.
    pub retries: u32,
}

impl Rto {
    /// A switch whose round trips are well below a millisecond: 1 ms at
    /// first, then measured, up to 64 ms; 50 resends (`esa worker`'s
    /// defaults).
    pub const DEFAULT: Rto = Rto {
        initial_us: 1_000,
        min_us: None,
        max_us: 64_000,
        retries: 50,
    };

    /// Hosts and the model switch as threads sharing two cores.
    pub const THREADS: Rto = Rto {
        initial_us: 2_000,
        min_us: None,
        max_us: 20_000,
        retries: 400,
    };

    /// esa-switch (p4sim) on a shared machine: round trips of
    /// milliseconds; the timeout adapts upward.
    pub const SOFTWARE_SWITCH: Rto = Rto {
        initial_us: 20_000,
        min_us: None,
        max_us: 200_000,
        retries: 200,
    };

    /// An experiment's emulated switch (esa-switch or BMv2) on a loaded
    /// machine that also runs every job's hosts: as
    /// [`Rto::SOFTWARE_SWITCH`], with backoff up to half a second.
    pub const EXPERIMENT: Rto = Rto {
        max_us: 500_000,
        ..Rto::SOFTWARE_SWITCH
    };
}

/// RFC 6298 `SRTT` / `RTTVAR` and the RTO they give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RttEstimator {
    srtt_us: Option<u64>,
    rttvar_us: u64,
    rto_us: u64,
    min_us: u64,
    max_us: u64,
}

impl RttEstimator {
    /// An estimator without samples: the RTO is `initial_us` until the
    /// first sample, then stays within `min_us..=max_us` (a `max_us` below
    /// `min_us` is raised to it).
    pub fn new(initial_us: u64, min_us: u64, max_us: u64) -> RttEstimator {
        RttEstimator {
            srtt_us: None,
            rttvar_us: 0,
            rto_us: initial_us,
            min_us,
            max_us: max_us.max(min_us),
        }
    }

    /// The timeout for a chunk sent now.
    pub fn rto_us(&self) -> u64 {
        self.rto_us
    }

    /// The smoothed round trip, once there is a sample.
    pub fn srtt_us(&self) -> Option<u64> {
        self.srtt_us
    }

    /// The round-trip variation (0 before the first sample).
    pub fn rttvar_us(&self) -> u64 {
        self.rttvar_us
    }

    /// Takes the round trip of a chunk that was sent once (RFC 6298 §2.2,
    /// §2.3) and recomputes the RTO.
    pub fn sample(&mut self, rtt_us: u64) {
        let srtt = match self.srtt_us {
            None => {
                self.rttvar_us = rtt_us / 2;
                rtt_us
            }
            Some(srtt) => {
                // β = 1/4, α = 1/8; RTTVAR first, from the old SRTT.
                let delta = srtt.abs_diff(rtt_us);
                self.rttvar_us = self.rttvar_us.saturating_mul(3).saturating_add(delta) / 4;
                srtt.saturating_mul(7).saturating_add(rtt_us) / 8
            }
        };
        self.srtt_us = Some(srtt);
        let rto = srtt.saturating_add(GRANULARITY_US.max(self.rttvar_us.saturating_mul(4)));
        self.rto_us = rto.max(self.min_us).min(self.max_us);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_rto_until_the_first_sample() {
        let e = RttEstimator::new(1_000, 200, 64_000);
        assert_eq!((e.rto_us(), e.srtt_us(), e.rttvar_us()), (1_000, None, 0));
    }

    #[test]
    fn first_and_later_samples_follow_rfc_6298() {
        let mut e = RttEstimator::new(1_000, 10, 1_000_000);
        e.sample(400);
        // SRTT = R, RTTVAR = R/2, RTO = SRTT + 4·RTTVAR.
        assert_eq!(
            (e.srtt_us(), e.rttvar_us(), e.rto_us()),
            (Some(400), 200, 1_200)
        );
        e.sample(800);
        // RTTVAR = 3/4·200 + 1/4·|400 − 800| = 250; SRTT = 7/8·400 + 1/8·800 = 450.
        assert_eq!(
            (e.srtt_us(), e.rttvar_us(), e.rto_us()),
            (Some(450), 250, 1_450)
        );
        // Steady round trips shrink the variation towards 0 and the RTO
        // towards SRTT + G.
        for _ in 0..200 {
            e.sample(450);
        }
        assert_eq!(
            (e.srtt_us(), e.rttvar_us(), e.rto_us()),
            (Some(450), 0, 451)
        );
    }

    #[test]
    fn the_rto_stays_within_its_bounds() {
        let mut e = RttEstimator::new(1_000, 300, 5_000);
        e.sample(10);
        assert_eq!(e.rto_us(), 300, "floor");
        e.sample(1_000_000);
        assert_eq!(e.rto_us(), 5_000, "ceiling");
        // A round trip that no clock produces does not overflow.
        e.sample(u64::MAX);
        assert_eq!(e.rto_us(), 5_000);
        assert!(e.srtt_us().is_some());
        // Bounds the wrong way round do not panic: the floor wins.
        let mut odd = RttEstimator::new(50, 100, 10);
        odd.sample(1);
        assert_eq!(odd.rto_us(), 100);
    }

    #[test]
    fn a_jump_in_round_trips_raises_the_rto_at_once() {
        let mut e = RttEstimator::new(1_000, 1_000, 200_000);
        for _ in 0..50 {
            e.sample(100);
        }
        assert_eq!(e.rto_us(), 1_000, "small round trips sit at the floor");
        // A loaded software switch: round trips of 20 ms. The variation term
        // lifts the RTO above the new round trip with the first sample.
        e.sample(20_000);
        assert!(e.rto_us() > 20_000, "{}", e.rto_us());
    }
}
