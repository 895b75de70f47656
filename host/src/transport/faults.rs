//! A frame link that loses, duplicates and delays (so reorders) frames:
//! [`FaultyLink`], around any [`FrameLink`], with the rule the in-memory
//! network ([`super::MemNetwork`]) and the simulator also apply,
//! [`esa_core::faults::FaultConfig::apply`].

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use esa_core::faults::FaultConfig;
use esa_core::rng::Rng;

use super::{FrameLink, LinkClosed};

/// What fault-injecting links did, summed over every link that shares it.
#[derive(Debug, Default)]
pub struct FaultCounters {
    /// Frames lost.
    pub lost: AtomicU64,
    /// Extra copies made.
    pub duplicated: AtomicU64,
    /// Frames delivered after a frame that entered the link later.
    pub reordered: AtomicU64,
    /// Frames that crossed the link.
    pub delivered: AtomicU64,
}

impl FaultCounters {
    /// `(lost, duplicated, reordered, delivered)`.
    pub fn snapshot(&self) -> (u64, u64, u64, u64) {
        (
            self.lost.load(Ordering::Relaxed),
            self.duplicated.load(Ordering::Relaxed),
            self.reordered.load(Ordering::Relaxed),
            self.delivered.load(Ordering::Relaxed),
        )
    }
}

/// Frames held back until their delivery time, in the order they are due.
#[derive(Debug, Default)]
struct Delayed {
    heap: BinaryHeap<Reverse<(Instant, u64, Vec<u8>)>>,
    /// Entry order of the last frame let out.
    last_out: u64,
}

impl Delayed {
    fn next_due(&self) -> Option<Instant> {
        self.heap.peek().map(|Reverse((at, _, _))| *at)
    }

    /// The next frame due by `now`, counting it as reordered when a later
    /// frame already went out.
    fn pop_due(&mut self, now: Instant, counters: &FaultCounters) -> Option<Vec<u8>> {
        if self.next_due()? > now {
            return None;
        }
        let Reverse((_, order, frame)) = self.heap.pop()?;
        if order < self.last_out {
            counters.reordered.fetch_add(1, Ordering::Relaxed);
        }
        self.last_out = self.last_out.max(order);
        counters.delivered.fetch_add(1, Ordering::Relaxed);
        Some(frame)
    }
}

/// A [`FrameLink`] that loses, duplicates and delays (so reorders) frames
/// in both directions with [`FaultConfig`]'s rule.
#[derive(Debug)]
pub struct FaultyLink<L: FrameLink> {
    inner: L,
    faults: FaultConfig,
    rng: Rng,
    order: u64,
    outbound: Delayed,
    inbound: Delayed,
    counters: Arc<FaultCounters>,
}

impl<L: FrameLink> FaultyLink<L> {
    /// Wraps `inner`; `stream` separates the choices of links that share a
    /// seed. `counters` may be shared by many links.
    pub fn new(
        inner: L,
        faults: FaultConfig,
        stream: u64,
        counters: Arc<FaultCounters>,
    ) -> FaultyLink<L> {
        FaultyLink {
            inner,
            faults,
            rng: Rng::new(faults.seed ^ stream.wrapping_mul(0x9e37_79b9_7f4a_7c15)),
            order: 0,
            outbound: Delayed::default(),
            inbound: Delayed::default(),
            counters,
        }
    }

    /// Puts a frame through the injector into `outbound` or `inbound`.
    fn inject(&mut self, mut frame: Vec<u8>, outbound: bool) {
        let queue = if outbound {
            &mut self.outbound
        } else {
            &mut self.inbound
        };
        let now = Instant::now();
        let fate = self.faults.apply(&mut self.rng);
        self.counters
            .duplicated
            .fetch_add(u64::from(fate.duplicated), Ordering::Relaxed);
        self.counters
            .lost
            .fetch_add(u64::from(fate.lost), Ordering::Relaxed);
        // The copies are filled from the front; only a second one costs a
        // clone of the frame.
        let [first, second] = fate.delays;
        if let Some(delay) = first {
            let copy = if second.is_some() {
                frame.clone()
            } else {
                std::mem::take(&mut frame)
            };
            self.order += 1;
            queue.heap.push(Reverse((now + delay, self.order, copy)));
        }
        if let Some(delay) = second {
            self.order += 1;
            queue.heap.push(Reverse((now + delay, self.order, frame)));
        }
    }

    /// Sends every outbound frame that is due; pulls in every frame waiting
    /// on the inner link.
    fn pump(&mut self) -> Result<(), LinkClosed> {
        let now = Instant::now();
        while let Some(frame) = self.outbound.pop_due(now, &self.counters) {
            self.inner.send_frame(&frame)?;
        }
        while let Some(frame) = self.inner.try_recv_frame() {
            self.inject(frame, false);
        }
        Ok(())
    }
}

impl<L: FrameLink> FrameLink for FaultyLink<L> {
    fn send_frame(&mut self, frame: &[u8]) -> Result<(), LinkClosed> {
        self.inject(frame.to_vec(), true);
        self.pump()
    }

    fn try_recv_frame(&mut self) -> Option<Vec<u8>> {
        let _ = self.pump();
        self.inbound.pop_due(Instant::now(), &self.counters)
    }

    fn recv_frame_timeout(&mut self, timeout: Duration) -> Option<Vec<u8>> {
        let deadline = Instant::now() + timeout;
        loop {
            let _ = self.pump();
            let now = Instant::now();
            if let Some(frame) = self.inbound.pop_due(now, &self.counters) {
                return Some(frame);
            }
            if now >= deadline {
                return None;
            }
            let until = [self.inbound.next_due(), self.outbound.next_due()]
                .into_iter()
                .flatten()
                .fold(deadline, Instant::min);
            let wait = until.saturating_duration_since(now);
            if wait.is_zero() {
                continue;
            }
            if let Some(frame) = self.inner.recv_frame_timeout(wait) {
                self.inject(frame, false);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Both ends of a link in one: what is sent comes back.
    #[derive(Debug, Default)]
    struct Loopback(VecDeque<Vec<u8>>);

    impl FrameLink for Loopback {
        fn send_frame(&mut self, frame: &[u8]) -> Result<(), LinkClosed> {
            self.0.push_back(frame.to_vec());
            Ok(())
        }
        fn try_recv_frame(&mut self) -> Option<Vec<u8>> {
            self.0.pop_front()
        }
        fn recv_frame_timeout(&mut self, _: Duration) -> Option<Vec<u8>> {
            self.0.pop_front()
        }
    }

    fn drain(link: &mut FaultyLink<Loopback>) -> Vec<Vec<u8>> {
        let mut got = vec![];
        while let Some(f) = link.recv_frame_timeout(Duration::from_millis(20)) {
            got.push(f);
        }
        got
    }

    #[test]
    fn no_faults_pass_every_frame_once_in_order() {
        let counters = Arc::new(FaultCounters::default());
        let mut link = FaultyLink::new(
            Loopback::default(),
            FaultConfig::NONE,
            0,
            Arc::clone(&counters),
        );
        for i in 0..100u8 {
            link.send_frame(&[i]).unwrap();
        }
        let got = drain(&mut link);
        assert_eq!(got, (0..100u8).map(|i| vec![i]).collect::<Vec<_>>());
        // Each frame crossed twice: out, then back in.
        assert_eq!(counters.snapshot(), (0, 0, 0, 200));
    }

    #[test]
    fn loss_and_duplication_are_counted_and_add_up() {
        let counters = Arc::new(FaultCounters::default());
        let faults = FaultConfig {
            seed: 11,
            loss: 0.2,
            duplicate: 0.1,
            max_delay: Duration::from_millis(2),
        };
        let mut link = FaultyLink::new(Loopback::default(), faults, 3, Arc::clone(&counters));
        for i in 0..1000u16 {
            link.send_frame(&i.to_be_bytes()).unwrap();
        }
        let got = drain(&mut link);
        let (lost, duplicated, reordered, delivered) = counters.snapshot();
        assert!(lost > 0 && duplicated > 0 && reordered > 0);
        // Each copy made, on the way out and on the way back, is lost or
        // goes on: what comes back plus what was lost is what was sent
        // plus the extra copies.
        assert_eq!(got.len() as u64 + lost, 1000 + duplicated);
        assert!(delivered > got.len() as u64);
        assert!(got.iter().all(|f| f.len() == 2));
    }
}
