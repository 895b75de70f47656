//! Monotonic microseconds for the state machines' `now_us`.

use std::time::Instant;

/// Microseconds since the clock was made.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Clock {
    start: Instant,
}

impl Clock {
    pub(crate) fn new() -> Clock {
        Clock {
            start: Instant::now(),
        }
    }

    pub(crate) fn now_us(&self) -> u64 {
        self.start.elapsed().as_micros() as u64
    }

    /// The instant that is `us` on this clock.
    pub(crate) fn instant_at(&self, us: u64) -> Instant {
        self.start + std::time::Duration::from_micros(us)
    }
}
