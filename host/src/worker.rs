//! The worker runtime: esa-core's [`Worker`](CoreWorker) state machine
//! driven over a [`Transport`] with a real clock.
//!
//! [`Worker::allreduce`] blocks until every element holds the sum (or the
//! mean) of all workers of the job, or fails with an error that names what
//! it waited for. [`Worker::start_allreduce`] and [`Worker::poll_allreduce`]
//! do the same one bounded step at a time, for callers with their own loop.
//!
//! With a key ([`WorkerOptions::integrity`]) every all-reduce keeps the
//! keyed checksums of what this worker sent and what it received
//! ([`AllreduceStats::checksums`]); the caller compares them across the job
//! (`esa_core::integrity`).
//!
//! The worker accepts `RESULT`s and `QUERY`s from any source address: a
//! switch rewrites only the destination of what it forwards, so a `RESULT`
//! arrives with the source address of whichever host sent the packet that
//! completed the chunk. What protects the result is the state machine's
//! checks (job, full bitmap, count, exponent, seq outstanding), not the
//! source.

use crate::clock::Clock;
use crate::error::HostError;
use crate::integrity::IntegrityKey;
use crate::transport::{MAX_WAIT, RECV_BATCH, Transport, TransportStats};
use esa_core::integrity::{Checksums, Coefficients};
use esa_core::worker::{Worker as CoreWorker, WorkerConfig, WorkerError, WorkerEvent, WorkerStats};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Payloads written per send call (one `sendmmsg` on Linux).
const TX_BATCH: usize = 64;

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
    /// The job's checksum key: with one, every all-reduce keeps its
    /// checksums ([`AllreduceStats::checksums`]). Every worker of the job
    /// needs the same key and the same sequence of all-reduces.
    pub integrity: Option<IntegrityKey>,
}

impl WorkerOptions {
    /// Options for `core` sending to `switch`: the sum. A worker that
    /// (re)joins a running job sets `core.first_seq`.
    pub fn new(core: WorkerConfig, switch: SocketAddr) -> WorkerOptions {
        WorkerOptions {
            core,
            switch,
            average: false,
            integrity: None,
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
    /// Probes sent at timeouts (not retransmissions).
    pub probes: u64,
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
    /// With [`WorkerOptions::integrity`]: the checksums of this worker's
    /// contribution and of the result it received, for the caller to
    /// compare across the job.
    pub checksums: Option<Checksums>,
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

/// The tensor of an all-reduce being started.
enum Input<'a> {
    /// Copied into the state machine's buffer.
    Copied(&'a [f32]),
    /// The caller's buffer, summed in place.
    Owned(Vec<f32>),
}

#[derive(Debug)]
struct Run {
    elements: usize,
    started: Instant,
    before: WorkerStats,
    transport_before: TransportStats,
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
    /// Up to [`TX_BATCH`] payloads back to back, written in place by the
    /// state machine and sent from here: reused, never reallocated.
    tx: Vec<u8>,
    run: Option<Run>,
    /// An interrupted or abandoned all-reduce left the state machine busy.
    poisoned: bool,
    integrity: Option<IntegrityKey>,
    /// Checked all-reduces started: the next one's coefficient stream.
    checked_rounds: u64,
    /// The running all-reduce's coefficients (storage reused).
    coefficients: Coefficients,
}

impl<T: Transport> Worker<T> {
    /// A worker with validated options over `transport`.
    pub fn new(options: WorkerOptions, transport: T) -> Result<Worker<T>, HostError> {
        let core = CoreWorker::new(options.core).map_err(HostError::WorkerConfig)?;
        let tx = vec![0; TX_BATCH * core.payload_len()];
        Ok(Worker {
            core,
            transport,
            switch: options.switch,
            average: options.average,
            clock: Clock::new(),
            shutdown: None,
            tx,
            run: None,
            poisoned: false,
            integrity: options.integrity,
            checked_rounds: 0,
            coefficients: Coefficients::default(),
        })
    }

    /// Makes blocking calls return [`HostError::Interrupted`] soon after
    /// `flag` becomes true.
    pub fn set_shutdown_flag(&mut self, flag: Arc<AtomicBool>) {
        self.shutdown = Some(flag);
    }

    /// Makes the next all-reduces return the mean instead of the sum (or
    /// the sum again): [`WorkerOptions::average`], for callers that choose
    /// per all-reduce.
    pub fn set_average(&mut self, average: bool) {
        self.average = average;
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

    /// [`Worker::allreduce`] on a buffer the worker takes and gives back
    /// holding the sum (or the mean): the state machine quantizes straight
    /// from it and writes each chunk's sum into it
    /// ([`CoreWorker::start_allreduce_owned`]), so the tensor is not copied
    /// in or out. On an error the buffer is dropped.
    pub fn allreduce_owned(
        &mut self,
        data: Vec<f32>,
    ) -> Result<(Vec<f32>, AllreduceStats), HostError> {
        self.start(Input::Owned(data))?;
        loop {
            if let Some(stats) = self.poll(None, MAX_WAIT)? {
                let mut sum = self.core.take_result().unwrap_or_default();
                self.average_in_place(&mut sum);
                return Ok((sum, stats));
            }
        }
    }

    /// Starts an all-reduce of `data` and sends its first window; drive it
    /// with [`Worker::poll_allreduce`] on a buffer of the same length.
    pub fn start_allreduce(&mut self, data: &[f32]) -> Result<(), HostError> {
        self.start(Input::Copied(data))
    }

    fn start(&mut self, data: Input<'_>) -> Result<(), HostError> {
        if self.poisoned || self.run.is_some() {
            return Err(HostError::Busy);
        }
        let elements = match &data {
            Input::Copied(data) => data.len(),
            Input::Owned(data) => data.len(),
        };
        let now = self.clock.now_us();
        let started = match &self.integrity {
            Some(key) => {
                let chunks = elements.div_ceil(self.core.config().lanes);
                key.coefficients(
                    self.checked_rounds,
                    chunks,
                    self.core.config().lanes,
                    &mut self.coefficients,
                );
                self.checked_rounds += 1;
                match data {
                    Input::Copied(data) => {
                        self.core
                            .start_checked_allreduce(data, now, &self.coefficients)
                    }
                    Input::Owned(data) => self
                        .core
                        .start_checked_allreduce_owned(data, now, &self.coefficients)
                        .map_err(|refused| refused.error),
                }
            }
            None => match data {
                Input::Copied(data) => self.core.start_allreduce(data, now),
                Input::Owned(data) => self
                    .core
                    .start_allreduce_owned(data, now)
                    .map_err(|refused| refused.error),
            },
        };
        started.map_err(|e| match e {
            WorkerError::Busy => HostError::Busy,
            other => HostError::Allreduce {
                job: self.core.config().job,
                source: other,
            },
        })?;
        self.run = Some(Run {
            elements,
            started: Instant::now(),
            before: self.core.stats().clone(),
            transport_before: self.transport.stats(),
        });
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
        self.poll(Some(data), max_wait)
    }

    /// [`Worker::poll_allreduce`]; the result is copied into `data`, or
    /// left in the state machine without one.
    fn poll(
        &mut self,
        mut data: Option<&mut [f32]>,
        max_wait: Duration,
    ) -> Result<Option<AllreduceStats>, HostError> {
        let Some(run) = self.run.as_ref() else {
            return Err(HostError::Idle);
        };
        if let Some(data) = data.as_ref().filter(|d| d.len() != run.elements) {
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
            if let Some(done) = self.finish(data.as_deref_mut())? {
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

    /// Sends whatever the state machine has to send, in batches written
    /// straight into the reused transmit buffer.
    fn flush(&mut self, now: u64) -> Result<(), HostError> {
        let len = self.core.payload_len();
        loop {
            let filled = self
                .core
                .poll_transmit_batch_into(now, &mut self.tx)
                .map_err(|source| HostError::Allreduce {
                    job: self.core.config().job,
                    source,
                })?;
            if filled == 0 {
                return Ok(());
            }
            self.transport
                .send_packed(self.switch, &self.tx[..filled * len], len)?;
            if filled < TX_BATCH {
                return Ok(());
            }
        }
    }

    /// Hands what has arrived to the state machine, straight from the
    /// transport's receive buffer; returns how many datagrams were read.
    /// With `check_behind`, packets proving the job is ahead of this
    /// worker end the all-reduce.
    fn receive(&mut self, check_behind: bool) -> Result<usize, HostError> {
        let now = self.clock.now_us();
        let core = &mut self.core;
        let mut behind = None;
        let n = self
            .transport
            .recv_each(RECV_BATCH, &mut |_, payload: &[u8]| {
                if behind.is_some() {
                    return;
                }
                if check_behind && let Some(b) = core.check_behind(payload) {
                    behind = Some(b);
                    return;
                }
                // Errors are counted by the state machine
                // (`invalid_packets`); network input never ends the
                // all-reduce by itself.
                let _ = core.handle_payload(payload, now);
            })?;
        if let Some(b) = behind {
            self.abandon();
            return Err(HostError::BehindJob {
                job: self.core.config().job,
                worker_id: self.core.config().worker_id,
                job_seq: b.job_seq,
                own_seq: b.own_seq,
            });
        }
        Ok(n)
    }

    /// Divides `data` by the fan-in with [`WorkerOptions::average`].
    fn average_in_place(&self, data: &mut [f32]) {
        if self.average {
            let n = f32::from(self.core.config().fan_in);
            data.iter_mut().for_each(|x| *x /= n);
        }
    }

    /// Handles the state machine's events; the completed result is copied
    /// into `data`, if given (else it stays for `CoreWorker::take_result`).
    fn finish(&mut self, data: Option<&mut [f32]>) -> Result<Option<AllreduceStats>, HostError> {
        let Some(event) = self.core.poll_event() else {
            return Ok(None);
        };
        let run = self.run.take();
        let job = self.core.config().job;
        match event {
            WorkerEvent::Completed { seq_base, chunks } => {
                // Read in place, not taken: the next all-reduce reuses the
                // buffer.
                let result = self.core.result().unwrap_or_default();
                let elements = result.len();
                if let Some(data) = data {
                    if result.len() != data.len() {
                        // Cannot happen: the state machine returns the input's length.
                        return Err(HostError::LengthMismatch {
                            expected: data.len(),
                            found: result.len(),
                        });
                    }
                    data.copy_from_slice(result);
                    self.average_in_place(data);
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
                    elements,
                    seq_base,
                    chunks,
                    elapsed: started.elapsed(),
                    data_sent: now.data_sent - before.data_sent,
                    resends: now.resends - before.resends,
                    probes: now.probes - before.probes,
                    results_from_switch: now.results_from_switch - before.results_from_switch,
                    results_from_ps: now.results_from_ps - before.results_from_ps,
                    duplicate_results: now.duplicate_results - before.duplicate_results,
                    invalid_packets: now.invalid_packets - before.invalid_packets,
                    overflow_retries: now.overflow_retries - before.overflow_retries,
                    queries_answered: now.queries_answered - before.queries_answered,
                    send_dropped: t.send_dropped - t_before.send_dropped,
                    checksums: self.core.checksums(),
                }))
            }
            WorkerEvent::Failed(WorkerError::ResultTimeout {
                job,
                seq,
                timeouts,
                resends,
            }) => {
                let mut hint = String::new();
                if let Some(ahead) = self.core.query_ahead() {
                    hint = format!(
                        " (the job's parameter server asked about seq {ahead}, this worker is \
                         at seq {}: was it restarted without start_seq \
                         (WorkerConfig::first_seq)?)",
                        self.core.next_seq()
                    );
                }
                Err(HostError::NoResult {
                    job,
                    seq,
                    timeouts,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::TransportError;
    use crate::transport::Datagram;
    use std::collections::{HashSet, VecDeque};

    /// A one-worker job's switch in the transport itself: every `DATA` comes
    /// straight back as its `RESULT`. Records where sent payloads lived.
    #[derive(Debug, Default)]
    struct EchoSwitch {
        inbox: VecDeque<Datagram>,
        packed_buffers: HashSet<usize>,
        packed_calls: u64,
        batch_calls: u64,
        stats: TransportStats,
    }

    impl Transport for EchoSwitch {
        fn local_addr(&self) -> SocketAddr {
            "127.0.0.1:1".parse().unwrap()
        }
        fn send_batch(&mut self, batch: &mut Vec<Datagram>) -> Result<(), TransportError> {
            self.batch_calls += 1;
            batch.clear();
            Ok(())
        }
        fn send_packed(
            &mut self,
            peer: SocketAddr,
            payloads: &[u8],
            payload_len: usize,
        ) -> Result<(), TransportError> {
            self.packed_calls += 1;
            self.packed_buffers.insert(payloads.as_ptr() as usize);
            for p in payloads.chunks(payload_len) {
                let mut payload = p.to_vec();
                payload[0] = 0x12; // DATA becomes RESULT (fan-in 1)
                self.inbox.push_back(Datagram { peer, payload });
                self.stats.sent += 1;
            }
            Ok(())
        }
        fn recv_batch(
            &mut self,
            out: &mut Vec<Datagram>,
            max: usize,
        ) -> Result<usize, TransportError> {
            let n = max.min(self.inbox.len());
            out.extend(self.inbox.drain(..n));
            Ok(n)
        }
        fn wait(&mut self, _timeout: Duration) -> Result<bool, TransportError> {
            Ok(!self.inbox.is_empty())
        }
        fn stats(&self) -> TransportStats {
            self.stats
        }
    }

    #[test]
    fn data_goes_out_from_one_reused_buffer() {
        let switch = "127.0.0.1:2".parse().unwrap();
        let core = WorkerConfig {
            window: 256,
            ..WorkerConfig::new(1, 0, 1)
        };
        let mut w = Worker::new(WorkerOptions::new(core, switch), EchoSwitch::default()).unwrap();
        let input: Vec<f32> = (0..100_000)
            .map(|i| (i % 977) as f32 * 0.25 - 100.0)
            .collect();
        for round in 0..3 {
            let mut data = input.clone();
            let stats = w.allreduce(&mut data).unwrap();
            assert_eq!(data, input, "round {round}: fan-in 1 sums to the input");
            assert_eq!(stats.data_sent, 100_000usize.div_ceil(32) as u64);
            assert_eq!(stats.resends, 0);
        }
        let t = &w.transport;
        assert_eq!(t.batch_calls, 0, "nothing went through send_batch");
        assert!(t.packed_calls >= 3 * 3125 / 64, "{}", t.packed_calls);
        assert_eq!(t.packed_buffers.len(), 1, "one transmit buffer, reused");
    }

    #[test]
    fn an_owned_allreduce_sums_in_the_callers_buffer() {
        let switch = "127.0.0.1:2".parse().unwrap();
        let mut options = WorkerOptions::new(WorkerConfig::new(1, 0, 1), switch);
        options.integrity = Some(IntegrityKey::new([5; crate::integrity::KEY_LEN]));
        let mut w = Worker::new(options, EchoSwitch::default()).unwrap();
        let input: Vec<f32> = (0..1000).map(|i| (i % 97) as f32 * 0.5 - 20.0).collect();
        let mut copied = input.clone();
        let by_copy = w.allreduce(&mut copied).unwrap();
        let buffer = input.clone();
        let given = buffer.as_ptr();
        let (sum, owned) = w.allreduce_owned(buffer).unwrap();
        assert_eq!((sum.as_ptr(), &sum), (given, &copied));
        assert_eq!(copied, input, "fan-in 1 sums to the input");
        assert_eq!(
            (owned.elements, owned.chunks, owned.data_sent),
            (by_copy.elements, by_copy.chunks, by_copy.data_sent)
        );
        let checksums = owned.checksums.unwrap();
        assert_eq!(checksums.contributed, checksums.received);
        // The mean of one worker is its input again; the next copied
        // all-reduce still works.
        w.set_average(true);
        let (mean, _) = w.allreduce_owned(sum).unwrap();
        assert_eq!(mean, input);
        assert!(w.allreduce(&mut copied).is_ok());
    }
}
