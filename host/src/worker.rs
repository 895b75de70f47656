//! The worker runtime: esa-core's [`Worker`](CoreWorker) state machine
//! driven over a [`Transport`] with a real clock.
//!
//! [`Worker::allreduce`] blocks until every element holds the sum (or the
//! mean) of all workers of the job, or fails with an error that names what
//! it waited for. [`Worker::start_allreduce`] and [`Worker::poll_allreduce`]
//! do the same one bounded step at a time, for callers with their own loop.
//!
//! The worker accepts `RESULT`s and `QUERY`s from any source address: a
//! switch rewrites only the destination of what it forwards, so a `RESULT`
//! arrives with the source address of whichever host sent the packet that
//! completed the chunk. What protects the result is the state machine's
//! checks (job, full bitmap, count, exponent, seq outstanding), not the
//! source.

use crate::clock::Clock;
use crate::error::HostError;
use crate::transport::{Datagram, Transport, TransportStats};
use esa_core::constants::PS_WORKER_ID;
use esa_core::wire::{EsaPacket, EsaRepr, Flags, PacketType};
use esa_core::worker::{
    Worker as CoreWorker, WorkerConfig, WorkerError, WorkerEvent, WorkerStats, full_bitmap,
};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Datagrams taken from the transport per receive call.
const RECV_BATCH: usize = 256;

/// The longest single wait, so the shutdown flag is seen promptly.
const MAX_WAIT: Duration = Duration::from_millis(50);

/// Chunks per synthetic all-reduce when skipping to `start_seq`.
const FAST_FORWARD_CHUNKS: usize = 4096;

/// Settings of a worker runtime beyond the state machine's.
#[derive(Debug, Clone)]
pub struct WorkerOptions {
    /// The protocol state machine's settings (job, worker id, fan-in, lanes,
    /// window, exponent, RTO, policy...).
    pub core: WorkerConfig,
    /// Where `DATA` goes: the switch's address.
    pub switch: SocketAddr,
    /// Divide the sum by the fan-in (the mean) before returning it.
    pub average: bool,
    /// The seq of the job's next chunk, for a worker that (re)joins a job
    /// that has already run all-reduces; 0 for a fresh job. Every worker
    /// of a job must agree on it.
    pub start_seq: u16,
}

impl WorkerOptions {
    /// Options for `core` sending to `switch`: the sum, from seq 0.
    pub fn new(core: WorkerConfig, switch: SocketAddr) -> WorkerOptions {
        WorkerOptions {
            core,
            switch,
            average: false,
            start_seq: 0,
        }
    }
}

/// What one all-reduce did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllreduceStats {
    /// Elements of the tensor.
    pub elements: usize,
    /// Seq of the first chunk.
    pub seq_base: u16,
    /// Seqs used, overflow re-runs included.
    pub chunks: u64,
    /// Wall time from start to the last result.
    pub elapsed: Duration,
    /// `DATA` packets sent for the first time.
    pub data_sent: u64,
    /// Retransmissions.
    pub resends: u64,
    /// Results completed in the switch (or relayed by a worker).
    pub results_from_switch: u64,
    /// Results a parameter server completed.
    pub results_from_ps: u64,
    /// Valid results for chunks not outstanding (duplicates, late copies).
    pub duplicate_results: u64,
    /// Payloads rejected (malformed, other job, failed checks).
    pub invalid_packets: u64,
    /// Chunks re-run at a smaller exponent after an overflow.
    pub overflow_retries: u64,
    /// `QUERY`s answered from the result cache.
    pub queries_answered: u64,
    /// Datagrams the transport could not deliver.
    pub send_dropped: u64,
}

impl AllreduceStats {
    /// Bytes of float32 data summed per second of wall time.
    pub fn goodput_bytes_per_s(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            (self.elements * 4) as f64 / secs
        } else {
            0.0
        }
    }
}

#[derive(Debug)]
struct Run {
    elements: usize,
    chunks: usize,
    started: Instant,
    before: WorkerStats,
    transport_before: TransportStats,
}

/// Seqs skipped by `start_seq` hold made-up results in the state machine's
/// result cache; `QUERY`s for them must not be answered until real results
/// have pushed them out.
#[derive(Debug, Clone, Copy)]
struct SkippedSeqs {
    count: u16,
    /// Real results to accept before the cache is clean.
    until_results: u64,
}

/// A worker of one job over a transport.
#[derive(Debug)]
pub struct Worker<T: Transport> {
    core: CoreWorker,
    transport: T,
    switch: SocketAddr,
    average: bool,
    clock: Clock,
    shutdown: Option<Arc<AtomicBool>>,
    rx: Vec<Datagram>,
    tx: Vec<Datagram>,
    run: Option<Run>,
    /// An interrupted or abandoned all-reduce left the state machine busy.
    poisoned: bool,
    skipped: Option<SkippedSeqs>,
    /// The furthest seq seen ahead of this worker in a `QUERY`.
    query_ahead: Option<u16>,
}

impl<T: Transport> Worker<T> {
    /// A worker with validated options over `transport`.
    pub fn new(options: WorkerOptions, transport: T) -> Result<Worker<T>, HostError> {
        let mut core = CoreWorker::new(options.core).map_err(HostError::WorkerConfig)?;
        let skipped = fast_forward(&mut core, options.start_seq)?;
        Ok(Worker {
            core,
            transport,
            switch: options.switch,
            average: options.average,
            clock: Clock::new(),
            shutdown: None,
            rx: Vec::with_capacity(RECV_BATCH),
            tx: Vec::new(),
            run: None,
            poisoned: false,
            skipped,
            query_ahead: None,
        })
    }

    /// Makes blocking calls return [`HostError::Interrupted`] soon after
    /// `flag` becomes true.
    pub fn set_shutdown_flag(&mut self, flag: Arc<AtomicBool>) {
        self.shutdown = Some(flag);
    }

    /// The state machine's configuration.
    pub fn config(&self) -> &WorkerConfig {
        self.core.config()
    }

    /// The state machine's lifetime counters.
    pub fn stats(&self) -> &WorkerStats {
        self.core.stats()
    }

    /// The transport's counters.
    pub fn transport_stats(&self) -> TransportStats {
        self.transport.stats()
    }

    /// The seq the next all-reduce starts at.
    pub fn next_seq(&self) -> u16 {
        self.core.next_seq()
    }

    /// The transport's local address.
    pub fn local_addr(&self) -> SocketAddr {
        self.transport.local_addr()
    }

    /// Sums `data` with the other workers of the job, in place. Returns only
    /// when every element holds the sum (or the mean, with
    /// [`WorkerOptions::average`]); fails after the state machine's retry
    /// budget when results stop coming.
    pub fn allreduce(&mut self, data: &mut [f32]) -> Result<AllreduceStats, HostError> {
        self.start_allreduce(data)?;
        loop {
            if let Some(stats) = self.poll_allreduce(data, MAX_WAIT)? {
                return Ok(stats);
            }
        }
    }

    /// Starts an all-reduce of `data` and sends its first window; drive it
    /// with [`Worker::poll_allreduce`] on a buffer of the same length.
    pub fn start_allreduce(&mut self, data: &[f32]) -> Result<(), HostError> {
        if self.poisoned || self.run.is_some() {
            return Err(HostError::Busy);
        }
        let now = self.clock.now_us();
        self.core.start_allreduce(data, now).map_err(|e| match e {
            WorkerError::Busy => HostError::Busy,
            other => HostError::Allreduce {
                job: self.core.config().job,
                source: other,
            },
        })?;
        self.run = Some(Run {
            elements: data.len(),
            chunks: data.len().div_ceil(self.core.config().lanes),
            started: Instant::now(),
            before: self.core.stats().clone(),
            transport_before: self.transport.stats(),
        });
        self.query_ahead = None;
        let now = self.clock.now_us();
        self.flush(now)?;
        Ok(())
    }

    /// Drives the running all-reduce for at most about `max_wait`. Returns
    /// `Ok(Some(stats))` when it completed (then `data` holds the result),
    /// `Ok(None)` when it is still running, or the error that ended it.
    pub fn poll_allreduce(
        &mut self,
        data: &mut [f32],
        max_wait: Duration,
    ) -> Result<Option<AllreduceStats>, HostError> {
        let Some(run) = self.run.as_ref() else {
            return Err(HostError::Idle);
        };
        if run.elements != data.len() {
            return Err(HostError::LengthMismatch {
                expected: run.elements,
                found: data.len(),
            });
        }
        let step_end = Instant::now() + max_wait;
        loop {
            if self
                .shutdown
                .as_ref()
                .is_some_and(|f| f.load(Ordering::Relaxed))
            {
                self.abandon();
                return Err(HostError::Interrupted);
            }
            let now = self.clock.now_us();
            if self.core.poll_timeout().is_some_and(|t| t <= now) {
                self.core.handle_timeout(now);
            }
            self.flush(now)?;
            if let Some(done) = self.finish(data)? {
                return Ok(Some(done));
            }
            if self.receive(true)? > 0 {
                continue;
            }
            let now_instant = Instant::now();
            if now_instant >= step_end {
                return Ok(None);
            }
            let mut until = step_end.min(now_instant + MAX_WAIT);
            if let Some(t) = self.core.poll_timeout() {
                until = until.min(self.clock.instant_at(t));
            }
            self.transport
                .wait(until.saturating_duration_since(now_instant))?;
        }
    }

    /// Answers `QUERY`s from the result cache for `duration` without an
    /// all-reduce running: a worker that finished its last iteration keeps
    /// serving peers that lost a `RESULT`.
    pub fn serve_queries(&mut self, duration: Duration) -> Result<(), HostError> {
        let end = Instant::now() + duration;
        loop {
            if self
                .shutdown
                .as_ref()
                .is_some_and(|f| f.load(Ordering::Relaxed))
            {
                return Ok(());
            }
            self.receive(false)?;
            let now = self.clock.now_us();
            self.flush(now)?;
            let left = end.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            self.transport.wait(left.min(MAX_WAIT))?;
        }
    }

    /// Sends whatever the state machine has to send.
    fn flush(&mut self, now: u64) -> Result<(), HostError> {
        while let Some(payload) = self.core.poll_transmit(now) {
            self.tx.push(Datagram {
                peer: self.switch,
                payload,
            });
        }
        if !self.tx.is_empty() {
            self.transport.send_batch(&mut self.tx)?;
        }
        Ok(())
    }

    /// Hands what has arrived to the state machine; returns how many
    /// datagrams were read. With `check_behind`, packets proving the job is
    /// ahead of this worker end the all-reduce.
    fn receive(&mut self, check_behind: bool) -> Result<usize, HostError> {
        let n = self.transport.recv_batch(&mut self.rx, RECV_BATCH)?;
        if n == 0 {
            return Ok(0);
        }
        let now = self.clock.now_us();
        let mut rx = std::mem::take(&mut self.rx);
        let mut outcome = Ok(n);
        for d in rx.drain(..) {
            if check_behind && let Err(e) = self.check_behind(&d.payload) {
                outcome = Err(e);
                break;
            }
            if self.is_skipped_query(&d.payload) {
                continue;
            }
            // Errors are counted by the state machine (`invalid_packets`);
            // network input never ends the all-reduce by itself.
            let _ = self.core.handle_payload(&d.payload, now);
        }
        rx.clear();
        self.rx = rx;
        if outcome.is_err() {
            self.abandon();
        }
        outcome
    }

    /// A `RESULT` for a seq this worker has not sent proves that an earlier
    /// incarnation of this worker contributed to it: this one is behind. A
    /// `QUERY` further ahead than an overflow re-run could reach says the
    /// same.
    fn check_behind(&mut self, payload: &[u8]) -> Result<(), HostError> {
        let lanes = self.core.config().lanes;
        let Ok(packet) = EsaPacket::new_checked(payload, lanes) else {
            return Ok(());
        };
        let key = packet.key();
        let cfg = self.core.config();
        if key.job() != cfg.job || packet.version() != esa_core::constants::ESA_VERSION {
            return Ok(());
        }
        let own = self.core.next_seq();
        let ahead = key.seq().wrapping_sub(own);
        if ahead >= 1 << 15 {
            return Ok(());
        }
        let chunks = self.run.as_ref().map_or(0, |r| r.chunks);
        let behind = match PacketType::from_code(packet.type_code()) {
            Ok(PacketType::Result) => {
                packet.bitmap() == full_bitmap(cfg.fan_in) && packet.count() == cfg.fan_in
            }
            Ok(PacketType::Query) => {
                self.query_ahead = Some(key.seq());
                usize::from(ahead) >= chunks
            }
            _ => false,
        };
        if behind {
            return Err(HostError::BehindJob {
                job: cfg.job,
                worker_id: cfg.worker_id,
                job_seq: key.seq(),
                own_seq: own,
            });
        }
        Ok(())
    }

    fn is_skipped_query(&mut self, payload: &[u8]) -> bool {
        let Some(skipped) = self.skipped else {
            return false;
        };
        if self.core.stats().results_accepted >= skipped.until_results {
            self.skipped = None;
            return false;
        }
        let Ok(packet) = EsaPacket::new_checked(payload, self.core.config().lanes) else {
            return false;
        };
        packet.type_code() == PacketType::Query as u8 && packet.key().seq() < skipped.count
    }

    /// Handles the state machine's events; the completed result is copied
    /// into `data`.
    fn finish(&mut self, data: &mut [f32]) -> Result<Option<AllreduceStats>, HostError> {
        let Some(event) = self.core.poll_event() else {
            return Ok(None);
        };
        let run = self.run.take();
        let (job, fan_in) = (self.core.config().job, self.core.config().fan_in);
        match event {
            WorkerEvent::Completed { seq_base, chunks } => {
                let result = self.core.take_result().unwrap_or_default();
                if result.len() != data.len() {
                    // Cannot happen: the state machine returns the input's length.
                    return Err(HostError::LengthMismatch {
                        expected: data.len(),
                        found: result.len(),
                    });
                }
                data.copy_from_slice(&result);
                if self.average {
                    let n = f32::from(fan_in);
                    data.iter_mut().for_each(|x| *x /= n);
                }
                let now = self.core.stats();
                let t = self.transport.stats();
                let (before, t_before, started) = run.map_or_else(
                    || {
                        (
                            WorkerStats::default(),
                            TransportStats::default(),
                            Instant::now(),
                        )
                    },
                    |r| (r.before, r.transport_before, r.started),
                );
                Ok(Some(AllreduceStats {
                    elements: data.len(),
                    seq_base,
                    chunks,
                    elapsed: started.elapsed(),
                    data_sent: now.data_sent - before.data_sent,
                    resends: now.resends - before.resends,
                    results_from_switch: now.results_from_switch - before.results_from_switch,
                    results_from_ps: now.results_from_ps - before.results_from_ps,
                    duplicate_results: now.duplicate_results - before.duplicate_results,
                    invalid_packets: now.invalid_packets - before.invalid_packets,
                    overflow_retries: now.overflow_retries - before.overflow_retries,
                    queries_answered: now.queries_answered - before.queries_answered,
                    send_dropped: t.send_dropped - t_before.send_dropped,
                }))
            }
            WorkerEvent::Failed(WorkerError::ResultTimeout { job, seq, resends }) => {
                let mut hint = String::new();
                if let Some(ahead) = self.query_ahead {
                    hint = format!(
                        " (the job's parameter server asked about seq {ahead}, this worker is \
                         at seq {}: was it restarted without start_seq?)",
                        self.core.next_seq()
                    );
                }
                Err(HostError::NoResult {
                    job,
                    seq,
                    resends,
                    switch: self.switch,
                    hint,
                })
            }
            WorkerEvent::Failed(source) => Err(HostError::Allreduce { job, source }),
        }
    }

    /// Gives up on the running all-reduce. The state machine has no way to
    /// abandon one, so this worker cannot start another.
    fn abandon(&mut self) {
        if self.run.take().is_some() && self.core.is_busy() {
            self.poisoned = true;
        }
    }
}

/// Advances a fresh state machine's seq counter to `start_seq` by feeding
/// it made-up results for the skipped seqs, which never leave this process
/// (see [`SkippedSeqs`]).
fn fast_forward(core: &mut CoreWorker, start_seq: u16) -> Result<Option<SkippedSeqs>, HostError> {
    if start_seq == 0 {
        return Ok(None);
    }
    let cfg = core.config().clone();
    let job = cfg.job;
    let internal = |source: WorkerError| HostError::Allreduce { job, source };
    let mut left = usize::from(start_seq);
    while left > 0 {
        let chunks = left.min(FAST_FORWARD_CHUNKS);
        core.start_allreduce(&vec![0.0; chunks * cfg.lanes], 0)
            .map_err(internal)?;
        while let Some(payload) = core.poll_transmit(0) {
            let (sent, _) = EsaRepr::from_payload(&payload, cfg.lanes)
                .map_err(|e| internal(WorkerError::Malformed(e)))?;
            let result = EsaRepr {
                packet_type: PacketType::Result,
                flags: Flags::NONE,
                bitmap: full_bitmap(cfg.fan_in),
                count: cfg.fan_in,
                worker: PS_WORKER_ID,
                ..sent
            }
            .to_payload(&[], cfg.lanes);
            core.handle_payload(&result, 0).map_err(internal)?;
        }
        match core.poll_event() {
            Some(WorkerEvent::Completed { .. }) => {}
            Some(WorkerEvent::Failed(e)) => return Err(internal(e)),
            None => return Err(internal(WorkerError::Busy)),
        }
        core.take_result();
        left -= chunks;
    }
    Ok(Some(SkippedSeqs {
        count: start_seq,
        until_results: core.stats().results_accepted + cfg.result_cache as u64,
    }))
}
