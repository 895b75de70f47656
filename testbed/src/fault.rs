//! Faults `esa run` injects while jobs run (`--fault`): the switch crashes
//! and comes back empty (`switch-restart@T[,down=D]`), or one host's link
//! goes down and up again (`link-down@T,port=P[,down=D]`, namespace
//! fabric). The run goes on as it would on real hardware: the controller
//! programs the switch again, hosts say hello again, workers resend, and
//! every job is still checked exactly; the report says when the fault
//! struck, how long it lasted and, for a restart, how long until the
//! controller had programmed the switch again.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use serde::Serialize;

/// What goes wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultKind {
    /// The switch crashes (program, entries and registers lost) and starts
    /// again on the same ports after `down`.
    SwitchRestart {
        /// How long the switch stays dark.
        down: Duration,
    },
    /// The link of the host on switch port `port` goes down, and up again
    /// after `down`.
    LinkDown {
        /// The switch port whose link goes down.
        port: u16,
        /// How long it stays down.
        down: Duration,
    },
}

/// A fault and when it strikes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    /// After the variant's start.
    pub at: Duration,
    /// What happens.
    pub kind: FaultKind,
}

/// How long the switch stays dark when `down` is not given.
pub const DEFAULT_DOWN: Duration = Duration::from_millis(500);

impl FromStr for Fault {
    type Err = String;

    /// `switch-restart@T[,down=D]` or `link-down@T,port=P[,down=D]`; times
    /// as `500ms`, `2s`, `1.5s` or bare seconds.
    fn from_str(s: &str) -> Result<Fault, String> {
        let usage = || {
            format!(
                "`{s}` is not a fault: expected switch-restart@T[,down=D] or \
                 link-down@T,port=P[,down=D]"
            )
        };
        let (kind, rest) = s.split_once('@').ok_or_else(usage)?;
        let mut parts = rest.split(',');
        let at = parse_duration(parts.next().ok_or_else(usage)?)?;
        let (mut down, mut port) = (DEFAULT_DOWN, None);
        for part in parts {
            match part.split_once('=') {
                Some(("down", d)) => down = parse_duration(d)?,
                Some(("port", p)) if kind == "link-down" => {
                    port = Some(
                        p.parse::<u16>()
                            .ok()
                            .filter(|p| (1..=esa_controller::topology::MAX_PORT).contains(p))
                            .ok_or_else(|| format!("`{p}` in `{s}` is not a host's switch port"))?,
                    );
                }
                _ => return Err(format!("`{part}` in `{s}`: not an option of {kind}")),
            }
        }
        let kind = match kind {
            "switch-restart" => FaultKind::SwitchRestart { down },
            "link-down" => FaultKind::LinkDown {
                port: port.ok_or_else(|| format!("`{s}`: link-down needs port=P"))?,
                down,
            },
            other => {
                return Err(format!(
                    "unknown fault `{other}`: the kinds are switch-restart and link-down"
                ));
            }
        };
        Ok(Fault { at, kind })
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            FaultKind::SwitchRestart { down } => write!(
                f,
                "switch-restart@{}ms,down={}ms",
                self.at.as_millis(),
                down.as_millis()
            ),
            FaultKind::LinkDown { port, down } => write!(
                f,
                "link-down@{}ms,port={port},down={}ms",
                self.at.as_millis(),
                down.as_millis()
            ),
        }
    }
}

/// `500ms`, `2s`, `1.5s` or `2` (seconds); at most an hour.
fn parse_duration(s: &str) -> Result<Duration, String> {
    let bad = || format!("`{s}` is not a duration (500ms, 2s, 1.5)");
    let (number, scale) = if let Some(ms) = s.strip_suffix("ms") {
        (ms, 1e-3)
    } else if let Some(secs) = s.strip_suffix('s') {
        (secs, 1.0)
    } else {
        (s, 1.0)
    };
    let value: f64 = number.trim().parse().map_err(|_| bad())?;
    let secs = value * scale;
    if !secs.is_finite() || !(0.0..=3600.0).contains(&secs) {
        return Err(format!("`{s}`: a fault's times are from 0 to an hour"));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// What happened when a fault struck, for the report.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct FaultReport {
    /// The fault as given (`switch-restart@2000ms,down=500ms`).
    pub fault: String,
    /// When it struck, ms after the variant's start.
    pub at_ms: f64,
    /// How long the switch was dark (from the crash until it served
    /// P4Runtime again) or the link down, ms.
    pub down_ms: f64,
    /// From the crash until the controller had pushed the pipeline and
    /// every job's entries again, ms: the stall every job saw at least
    /// (a restart only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reprogrammed_ms: Option<f64>,
    /// Why it did not strike or the switch did not come back.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl FaultReport {
    /// A report of `fault`, struck at `at` after `start`.
    pub(crate) fn struck(fault: &Fault, start: Instant, at: Instant) -> FaultReport {
        FaultReport {
            fault: fault.to_string(),
            at_ms: crate::run::ms(at - start),
            ..FaultReport::default()
        }
    }

    /// A fault that never struck: the run was over (or aborted) first.
    pub(crate) fn not_struck(fault: &Fault, why: &str) -> FaultReport {
        FaultReport {
            fault: fault.to_string(),
            error: Some(why.into()),
            ..FaultReport::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_faults_and_says_what_is_wrong() {
        assert_eq!(
            "switch-restart@2s".parse::<Fault>().unwrap(),
            Fault {
                at: Duration::from_secs(2),
                kind: FaultKind::SwitchRestart { down: DEFAULT_DOWN }
            }
        );
        let f: Fault = "switch-restart@1.5,down=250ms".parse().unwrap();
        assert_eq!(f.at, Duration::from_millis(1500));
        assert_eq!(
            f.kind,
            FaultKind::SwitchRestart {
                down: Duration::from_millis(250)
            }
        );
        assert_eq!(f.to_string(), "switch-restart@1500ms,down=250ms");
        let l: Fault = "link-down@2s,port=3,down=1s".parse().unwrap();
        assert_eq!(
            l.kind,
            FaultKind::LinkDown {
                port: 3,
                down: Duration::from_secs(1)
            }
        );
        assert_eq!(l.to_string(), "link-down@2000ms,port=3,down=1000ms");
        for (bad, says) in [
            ("switch-restart", "not a fault"),
            ("link-flap@1s", "unknown fault"),
            ("switch-restart@soon", "not a duration"),
            ("switch-restart@1s,up=2s", "not an option of switch-restart"),
            (
                "switch-restart@1s,port=2",
                "not an option of switch-restart",
            ),
            ("link-down@1s", "needs port=P"),
            ("link-down@1s,port=511", "not a host's switch port"),
            ("link-down@1s,port=0", "not a host's switch port"),
            ("switch-restart@-1s", "from 0 to an hour"),
            ("switch-restart@1e9", "from 0 to an hour"),
        ] {
            let err = bad.parse::<Fault>().unwrap_err();
            assert!(err.contains(says), "{bad}: {err}");
        }
    }
}
