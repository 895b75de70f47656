//! The parameter-server runtime: esa-core's
//! [`ParameterServer`](CorePs) state machine over a [`Transport`].
//!
//! It serves one or many jobs. Whatever the switch hands over (`FALLBACK`,
//! `EVICTED`, `FLUSH`, passing `RESULT`s) goes to the state machine; the
//! `RESULT`s and `QUERY`s it produces go back to the switch, which
//! multicasts them to the job's group. A job in `atp` mode is added with
//! [`JobOptions::forward_results`] set.

use crate::clock::Clock;
use crate::error::HostError;
use crate::transport::{Datagram, Transport, TransportStats};
use esa_core::constants::esa_payload_len;
use esa_core::ps::{JobOptions, ParameterServer as CorePs, PsConfig, PsJobStats, PsStats};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::transport::{MAX_WAIT, RECV_BATCH};

/// How much of a job's traffic the parameter server had to aggregate.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FallbackVolume {
    /// The job.
    pub job: u16,
    /// Parts received: `FALLBACK` + `EVICTED` + `FLUSH`.
    pub parts: u64,
    /// Of which `FALLBACK` (single contributions the switch did not
    /// aggregate).
    pub fallback_parts: u64,
    /// Of which `EVICTED` (partial sums preempted or reclaimed).
    pub evicted_parts: u64,
    /// Of which `FLUSH` (partial sums handed over on a resend).
    pub flush_parts: u64,
    /// ESA payload bytes of those parts.
    pub bytes: u64,
    /// Chunks the PS completed itself.
    pub chunks_completed: u64,
    /// Cached results sent again for late resends.
    pub results_resent: u64,
    /// `QUERY`s sent to the group.
    pub queries_sent: u64,
}

/// A parameter server over a transport.
#[derive(Debug)]
pub struct ParameterServer<T: Transport> {
    core: CorePs,
    transport: T,
    switch: SocketAddr,
    clock: Clock,
    rx: Vec<Datagram>,
    tx: Vec<Datagram>,
}

impl<T: Transport> ParameterServer<T> {
    /// A parameter server with no jobs, sending to `switch`.
    pub fn new(
        config: PsConfig,
        switch: SocketAddr,
        transport: T,
    ) -> Result<ParameterServer<T>, HostError> {
        Ok(ParameterServer {
            core: CorePs::new(config).map_err(HostError::PsConfig)?,
            transport,
            switch,
            clock: Clock::new(),
            rx: Vec::with_capacity(RECV_BATCH),
            tx: Vec::new(),
        })
    }

    /// Starts serving `job` of `fan_in` workers.
    pub fn add_job(&mut self, job: u16, fan_in: u8, options: JobOptions) -> Result<(), HostError> {
        self.core
            .add_job_with(job, fan_in, options)
            .map_err(HostError::PsConfig)
    }

    /// The state machine (counters, cached results).
    pub fn core(&self) -> &CorePs {
        &self.core
    }

    /// The transport's local address.
    pub fn local_addr(&self) -> SocketAddr {
        self.transport.local_addr()
    }

    /// The transport's counters.
    pub fn transport_stats(&self) -> TransportStats {
        self.transport.stats()
    }

    /// Counters of packets that belong to no served job.
    pub fn stats(&self) -> &PsStats {
        self.core.stats()
    }

    /// Counters of `job`, if served.
    pub fn job_stats(&self, job: u16) -> Option<&PsJobStats> {
        self.core.job_stats(job)
    }

    /// The fallback volume of `job`, if served.
    pub fn fallback_volume(&self, job: u16) -> Option<FallbackVolume> {
        let s = self.core.job_stats(job)?;
        let parts = s.fallback_parts + s.evicted_parts + s.flush_parts;
        Some(FallbackVolume {
            job,
            parts,
            fallback_parts: s.fallback_parts,
            evicted_parts: s.evicted_parts,
            flush_parts: s.flush_parts,
            bytes: parts * esa_payload_len(self.core.config().lanes) as u64,
            chunks_completed: s.results_completed,
            results_resent: s.results_resent,
            queries_sent: s.queries_sent,
        })
    }

    /// Receives and answers for at most about `max_wait`; returns the
    /// datagrams handled. Bad packets are counted by the state machine and
    /// otherwise ignored.
    pub fn step(&mut self, max_wait: Duration) -> Result<usize, HostError> {
        let end = Instant::now() + max_wait;
        let mut handled = 0;
        loop {
            let n = self.transport.recv_batch(&mut self.rx, RECV_BATCH)?;
            if n > 0 {
                let now = self.clock.now_us();
                for d in self.rx.drain(..) {
                    let _ = self.core.handle_payload(&d.payload, now);
                }
                handled += n;
                while let Some(payload) = self.core.poll_transmit() {
                    self.tx.push(Datagram {
                        peer: self.switch,
                        payload,
                    });
                }
                self.transport.send_batch(&mut self.tx)?;
                continue;
            }
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() || handled > 0 {
                return Ok(handled);
            }
            self.transport.wait(left)?;
        }
    }

    /// Serves until `stop` becomes true, calling `report` about every
    /// `report_every` (if given) with the server.
    pub fn run(
        &mut self,
        stop: &AtomicBool,
        report_every: Option<Duration>,
        mut report: impl FnMut(&Self),
    ) -> Result<(), HostError> {
        let mut next_report = report_every.map(|d| Instant::now() + d);
        while !stop.load(Ordering::Relaxed) {
            self.step(MAX_WAIT)?;
            if let (Some(at), Some(every)) = (next_report, report_every)
                && Instant::now() >= at
            {
                report(self);
                next_report = Some(at + every);
            }
        }
        Ok(())
    }
}
