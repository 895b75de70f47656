//! Priority policies (`docs/protocol.md` §6.4).
//!
//! A policy turns a job's progress into the 4-bit priority stamped on each
//! chunk when it is first sent. Larger wins; the switch clamps it to the job's
//! `max_priority` and preempts only strictly lower priorities.

use crate::constants::MAX_PRIORITY;
use std::fmt;
use std::str::FromStr;

/// What a policy looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PolicyInput {
    /// Now, in microseconds.
    pub now_us: u64,
    /// When the job started.
    pub start_us: u64,
    /// Chunks the job has completed so far (attained service).
    pub chunks_done: u64,
    /// Chunks the job will send in all, when known.
    pub chunks_total: Option<u64>,
    /// When the job last completed a chunk in the switch.
    pub last_switch_completion_us: Option<u64>,
}

/// A priority policy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// First come, first served: every job has priority 0, so nobody preempts
    /// (ATP's behaviour on an ESA switch).
    Fcfs,
    /// A fixed priority class.
    Static {
        /// The class, 0..=15.
        priority: u8,
    },
    /// Shortest remaining processing time: fewer chunks left, higher priority.
    Srpt {
        /// Aging period; 0 disables aging.
        aging_interval_us: u64,
    },
    /// Least attained service: fewer chunks done, higher priority.
    Las {
        /// Aging period; 0 disables aging.
        aging_interval_us: u64,
    },
}

/// Default aging period: one level per 50 ms without an in-switch completion.
pub const DEFAULT_AGING_INTERVAL_US: u64 = 50_000;

/// Maps an amount of work in chunks to 0..=15 on a log scale: one level per
/// factor of four, so 1 chunk is level 0 and 2³⁰ chunks level 15.
fn work_level(chunks: u64) -> u8 {
    let level = (chunks + 1).ilog2() / 2;
    level.min(u32::from(MAX_PRIORITY)) as u8
}

impl Policy {
    /// The priority of the next chunk.
    #[inline]
    pub fn priority(&self, input: &PolicyInput) -> u8 {
        let (base, aging) = match *self {
            Policy::Fcfs => return 0,
            Policy::Static { priority } => return priority.min(MAX_PRIORITY),
            Policy::Srpt { aging_interval_us } => {
                // Without a known total, SRPT cannot rank the job: middle class.
                let base = match input.chunks_total {
                    Some(total) => {
                        MAX_PRIORITY - work_level(total.saturating_sub(input.chunks_done))
                    }
                    None => MAX_PRIORITY / 2,
                };
                (base, aging_interval_us)
            }
            Policy::Las { aging_interval_us } => (
                MAX_PRIORITY - work_level(input.chunks_done),
                aging_interval_us,
            ),
        };
        if aging == 0 {
            return base;
        }
        let since = input.last_switch_completion_us.unwrap_or(input.start_us);
        let boost = input.now_us.saturating_sub(since) / aging;
        (u64::from(base) + boost).min(u64::from(MAX_PRIORITY)) as u8
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Policy::Fcfs => write!(f, "fcfs"),
            Policy::Static { priority } => write!(f, "static:{priority}"),
            Policy::Srpt { aging_interval_us } => write_aging(f, "srpt", *aging_interval_us),
            Policy::Las { aging_interval_us } => write_aging(f, "las", *aging_interval_us),
        }
    }
}

/// `name`, followed by the aging period when it is not the default.
fn write_aging(f: &mut fmt::Formatter<'_>, name: &str, aging_us: u64) -> fmt::Result {
    match aging_us {
        DEFAULT_AGING_INTERVAL_US => write!(f, "{name}"),
        us if us % 1000 == 0 => write!(f, "{name}:aging_ms={}", us / 1000),
        us => write!(f, "{name}:aging_us={us}"),
    }
}

/// A policy name that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown priority policy {0:?}: expected fcfs, static:<0-15>, srpt or las \
     (srpt and las take an aging period: srpt:aging_ms=<N>, 0 turns aging off)"
)]
pub struct ParsePolicyError(pub String);

impl FromStr for Policy {
    type Err = ParsePolicyError;

    /// `fcfs`, `static:N`, `srpt` or `las`; the latter two take the default
    /// aging period, or the one given as `:aging_ms=N` (or `:aging_us=N`),
    /// where 0 turns aging off.
    fn from_str(s: &str) -> Result<Policy, ParsePolicyError> {
        let err = || ParsePolicyError(s.to_string());
        let (name, aging) = match s.split_once(':') {
            Some((name @ ("srpt" | "las"), aging)) => {
                let (unit_us, n) = if let Some(n) = aging.strip_prefix("aging_ms=") {
                    (1000, n)
                } else if let Some(n) = aging.strip_prefix("aging_us=") {
                    (1, n)
                } else {
                    return Err(err());
                };
                let n: u64 = n.parse().map_err(|_| err())?;
                (name, n.checked_mul(unit_us).ok_or_else(err)?)
            }
            _ => (s, DEFAULT_AGING_INTERVAL_US),
        };
        match name {
            "fcfs" => Ok(Policy::Fcfs),
            "srpt" => Ok(Policy::Srpt {
                aging_interval_us: aging,
            }),
            "las" => Ok(Policy::Las {
                aging_interval_us: aging,
            }),
            _ => {
                let n = s.strip_prefix("static:").ok_or_else(err)?;
                let priority: u8 = n.parse().map_err(|_| err())?;
                if priority > MAX_PRIORITY {
                    return Err(err());
                }
                Ok(Policy::Static { priority })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(done: u64, total: Option<u64>) -> PolicyInput {
        PolicyInput {
            chunks_done: done,
            chunks_total: total,
            ..PolicyInput::default()
        }
    }

    #[test]
    fn fcfs_and_static() {
        assert_eq!(Policy::Fcfs.priority(&input(5, Some(10))), 0);
        assert_eq!(Policy::Static { priority: 7 }.priority(&input(0, None)), 7);
        assert_eq!(
            Policy::Static { priority: 99 }.priority(&input(0, None)),
            15
        );
    }

    #[test]
    fn srpt_prefers_less_remaining() {
        let p = Policy::Srpt {
            aging_interval_us: 0,
        };
        let short = p.priority(&input(0, Some(10)));
        let long = p.priority(&input(0, Some(1_000_000)));
        assert!(short > long, "{short} vs {long}");
        assert_eq!(p.priority(&input(10, Some(10))), 15);
        assert_eq!(p.priority(&input(0, Some(3))), 14);
        assert_eq!(p.priority(&input(0, None)), 7);
    }

    #[test]
    fn las_prefers_less_attained() {
        let p = Policy::Las {
            aging_interval_us: 0,
        };
        assert_eq!(p.priority(&input(0, None)), 15);
        assert!(p.priority(&input(100, None)) > p.priority(&input(100_000, None)));
        assert_eq!(p.priority(&input(u64::MAX - 1, None)), 0);
    }

    #[test]
    fn aging_lifts_a_starving_job_to_the_top() {
        let p = Policy::Las {
            aging_interval_us: 1000,
        };
        let mut i = input(1 << 20, None);
        let base = p.priority(&i);
        assert_eq!(base, 5);
        i.now_us = 3_500;
        assert_eq!(p.priority(&i), base + 3);
        i.last_switch_completion_us = Some(3_000);
        assert_eq!(p.priority(&i), base);
        i.now_us = 1_000_000_000;
        assert_eq!(p.priority(&i), 15);
    }

    #[test]
    fn parse_and_display() {
        for s in [
            "fcfs",
            "static:3",
            "srpt",
            "las",
            "srpt:aging_ms=0",
            "las:aging_ms=2000",
            "srpt:aging_us=1500",
        ] {
            assert_eq!(s.parse::<Policy>().unwrap().to_string(), s);
        }
        assert_eq!(
            "srpt:aging_ms=0".parse::<Policy>(),
            Ok(Policy::Srpt {
                aging_interval_us: 0
            })
        );
        assert_eq!(
            "las:aging_us=50000".parse::<Policy>().unwrap().to_string(),
            "las"
        );
        for bad in [
            "",
            "static:16",
            "static:x",
            "lifo",
            "static",
            "srpt:",
            "srpt:aging=5",
            "srpt:aging_ms=-1",
            "srpt:aging_ms=18446744073709551615",
            "fcfs:aging_ms=1",
            "static:aging_ms=1",
        ] {
            assert!(bad.parse::<Policy>().is_err(), "{bad}");
        }
    }
}
