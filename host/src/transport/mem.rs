//! In-memory links: every endpoint of a [`MemNetwork`] has an inbox, and a
//! send puts the datagram straight into the destination's inbox — after the
//! sender's fault injector, if it has one, has decided to lose, duplicate or
//! delay it. Delayed datagrams become visible at their delivery time, so
//! random delays reorder them.

use super::{Datagram, Transport, TransportStats};
use crate::error::TransportError;
use dashmap::DashMap;
use esa_core::faults::FaultConfig;
use esa_core::rng::Rng;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

#[derive(Debug)]
struct Pending {
    at: Instant,
    order: u64,
    datagram: Datagram,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        (self.at, self.order) == (other.at, other.order)
    }
}
impl Eq for Pending {}
impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Pending {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.at, self.order).cmp(&(other.at, other.order))
    }
}

#[derive(Debug, Default)]
struct Queue {
    heap: BinaryHeap<Reverse<Pending>>,
    order: u64,
}

#[derive(Debug, Default)]
struct Inbox {
    queue: Mutex<Queue>,
    ready: Condvar,
}

/// Poisoning only means another thread panicked while holding the lock; the
/// queue is still consistent (every update is a single push or pop).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Inbox {
    fn push_all(&self, items: Vec<(Instant, Datagram)>) {
        let mut q = lock(&self.queue);
        for (at, datagram) in items {
            q.order += 1;
            let order = q.order;
            q.heap.push(Reverse(Pending {
                at,
                order,
                datagram,
            }));
        }
        drop(q);
        self.ready.notify_one();
    }
}

#[derive(Debug, Default)]
struct Shared {
    /// Every host's inbox: bound and dropped by hosts, read on every send
    /// batch by all of them.
    endpoints: DashMap<SocketAddr, Arc<Inbox>>,
    next_port: Mutex<u16>,
}

/// A set of in-memory endpoints that can reach each other by address.
/// Cloning gives another handle to the same network.
#[derive(Debug, Clone, Default)]
pub struct MemNetwork {
    shared: Arc<Shared>,
}

impl MemNetwork {
    /// An empty network.
    pub fn new() -> MemNetwork {
        MemNetwork::default()
    }

    /// An endpoint at `addr` without faults. Fails if the address is taken;
    /// dropping the endpoint frees it (so a restarted host can take it again).
    pub fn bind(&self, addr: SocketAddr) -> Result<MemTransport, TransportError> {
        self.bind_with_faults(addr, FaultConfig::NONE)
    }

    /// An endpoint at `addr` whose sends go through a fault injector.
    pub fn bind_with_faults(
        &self,
        addr: SocketAddr,
        faults: FaultConfig,
    ) -> Result<MemTransport, TransportError> {
        let inbox = Arc::new(Inbox::default());
        match self.shared.endpoints.entry(addr) {
            dashmap::Entry::Occupied(_) => return Err(TransportError::AddrInUse(addr)),
            dashmap::Entry::Vacant(v) => {
                v.insert(Arc::clone(&inbox));
            }
        }
        Ok(MemTransport {
            addr,
            inbox,
            shared: Arc::clone(&self.shared),
            faults: (!faults.is_none()).then_some(faults),
            rng: Rng::new(faults.seed ^ addr_hash(addr)),
            stats: TransportStats::default(),
        })
    }

    /// An endpoint at a fresh address `127.0.0.1:<n>` (`n` counting up from
    /// 10000), with these faults.
    pub fn bind_any(&self, faults: FaultConfig) -> Result<MemTransport, TransportError> {
        loop {
            let port = {
                let mut next = lock(&self.shared.next_port);
                *next = next.wrapping_add(1).max(10_000);
                *next
            };
            let addr = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port));
            match self.bind_with_faults(addr, faults) {
                Err(TransportError::AddrInUse(_)) => continue,
                other => return other,
            }
        }
    }
}

fn addr_hash(addr: SocketAddr) -> u64 {
    let mut x: u64 = match addr {
        SocketAddr::V4(a) => u64::from(u32::from(*a.ip())),
        SocketAddr::V6(a) => {
            let o = a.ip().octets();
            u64::from_be_bytes([o[8], o[9], o[10], o[11], o[12], o[13], o[14], o[15]])
        }
    };
    x = (x << 16) ^ u64::from(addr.port());
    x = (x ^ (x >> 33)).wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^ (x >> 33)
}

/// Datagrams of one send batch bound for one address (whose inbox, if any).
type Group = (SocketAddr, Option<Arc<Inbox>>, Vec<(Instant, Datagram)>);

/// One endpoint of a [`MemNetwork`].
#[derive(Debug)]
pub struct MemTransport {
    addr: SocketAddr,
    inbox: Arc<Inbox>,
    shared: Arc<Shared>,
    faults: Option<FaultConfig>,
    rng: Rng,
    stats: TransportStats,
}

impl Drop for MemTransport {
    fn drop(&mut self) {
        // Only our own binding: a restarted host may hold the address now.
        self.shared
            .endpoints
            .remove_if(&self.addr, |_, inbox| Arc::ptr_eq(inbox, &self.inbox));
    }
}

impl MemTransport {
    /// Passes one payload through the fault injector into `queue` (lost,
    /// once, or twice, each copy with its delivery time).
    fn enqueue(&mut self, now: Instant, payload: Vec<u8>, queue: &mut Vec<(Instant, Datagram)>) {
        let out = Datagram {
            peer: self.addr,
            payload,
        };
        self.stats.sent += 1;
        let Some(faults) = self.faults else {
            queue.push((now, out));
            return;
        };
        let fate = faults.apply(&mut self.rng);
        for delay in fate.delays.into_iter().flatten() {
            queue.push((now + delay, out.clone()));
        }
        self.stats.fault_duplicated += u64::from(fate.duplicated);
        self.stats.fault_lost += u64::from(fate.lost);
    }
}

impl Transport for MemTransport {
    fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    fn send_batch(&mut self, batch: &mut Vec<Datagram>) -> Result<(), TransportError> {
        let now = Instant::now();
        // One lock and one wake-up per destination, not per datagram.
        let mut groups: Vec<Group> = vec![];
        for datagram in batch.drain(..) {
            let at = match groups.iter().position(|g| g.0 == datagram.peer) {
                Some(i) => i,
                None => {
                    let inbox = self
                        .shared
                        .endpoints
                        .get(&datagram.peer)
                        .map(|e| Arc::clone(e.value()));
                    groups.push((datagram.peer, inbox, vec![]));
                    groups.len() - 1
                }
            };
            let (_, inbox, queue) = &mut groups[at];
            if inbox.is_none() {
                self.stats.send_dropped += 1;
                continue;
            }
            self.enqueue(now, datagram.payload, queue);
        }
        for (_, inbox, queue) in groups {
            if let Some(inbox) = inbox
                && !queue.is_empty()
            {
                inbox.push_all(queue);
            }
        }
        Ok(())
    }

    fn send_packed(
        &mut self,
        peer: SocketAddr,
        payloads: &[u8],
        payload_len: usize,
    ) -> Result<(), TransportError> {
        if payload_len == 0 || payloads.is_empty() {
            return Ok(());
        }
        let now = Instant::now();
        let Some(inbox) = self
            .shared
            .endpoints
            .get(&peer)
            .map(|e| Arc::clone(e.value()))
        else {
            self.stats.send_dropped += payloads.len().div_ceil(payload_len) as u64;
            return Ok(());
        };
        // The receiving inbox owns what it holds, so each payload is copied
        // once, here; nothing else is allocated per payload.
        let mut queue = Vec::with_capacity(payloads.len().div_ceil(payload_len));
        for payload in payloads.chunks(payload_len) {
            self.enqueue(now, payload.to_vec(), &mut queue);
        }
        if !queue.is_empty() {
            inbox.push_all(queue);
        }
        Ok(())
    }

    fn recv_batch(&mut self, out: &mut Vec<Datagram>, max: usize) -> Result<usize, TransportError> {
        let now = Instant::now();
        let mut q = lock(&self.inbox.queue);
        let mut n = 0;
        while n < max {
            match q.heap.peek() {
                Some(Reverse(p)) if p.at <= now => {}
                _ => break,
            }
            if let Some(Reverse(p)) = q.heap.pop() {
                out.push(p.datagram);
                n += 1;
            }
        }
        self.stats.received += n as u64;
        Ok(n)
    }

    fn wait(&mut self, timeout: Duration) -> Result<bool, TransportError> {
        let deadline = Instant::now() + timeout;
        let mut q = lock(&self.inbox.queue);
        loop {
            let now = Instant::now();
            let next = q.heap.peek().map(|Reverse(p)| p.at);
            if next.is_some_and(|at| at <= now) {
                return Ok(true);
            }
            if now >= deadline {
                return Ok(false);
            }
            let until = next.map_or(deadline, |at| at.min(deadline));
            let (guard, _) = self
                .inbox
                .ready
                .wait_timeout(q, until.saturating_duration_since(now))
                .unwrap_or_else(PoisonError::into_inner);
            q = guard;
        }
    }

    fn stats(&self) -> TransportStats {
        self.stats
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn addr(port: u16) -> SocketAddr {
        SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port))
    }

    fn datagrams(to: SocketAddr, n: u8) -> Vec<Datagram> {
        (0..n)
            .map(|i| Datagram {
                peer: to,
                payload: vec![i; 4],
            })
            .collect()
    }

    fn drain(t: &mut MemTransport) -> Vec<Datagram> {
        let mut out = vec![];
        // Delays are at most a few ms; 200 waits of 10 ms bound the loop.
        for _ in 0..200 {
            t.recv_batch(&mut out, 1000).unwrap();
            if !t.wait(Duration::from_millis(10)).unwrap() {
                break;
            }
        }
        out
    }

    #[test]
    fn delivers_in_order_without_faults_and_frees_addresses() {
        let net = MemNetwork::new();
        let mut a = net.bind(addr(1)).unwrap();
        let mut b = net.bind(addr(2)).unwrap();
        assert!(matches!(
            net.bind(addr(2)),
            Err(TransportError::AddrInUse(_))
        ));
        a.send_batch(&mut datagrams(addr(2), 5)).unwrap();
        a.send_batch(&mut datagrams(addr(3), 2)).unwrap();
        let got = drain(&mut b);
        assert_eq!(got.len(), 5);
        assert!(
            got.iter()
                .enumerate()
                .all(|(i, d)| d.peer == addr(1) && d.payload[0] == i as u8)
        );
        assert_eq!((a.stats().sent, a.stats().send_dropped), (5, 2));
        drop(b);
        assert!(net.bind(addr(2)).is_ok());
    }

    #[test]
    fn packed_payloads_arrive_like_a_batch() {
        let net = MemNetwork::new();
        let mut a = net.bind(addr(1)).unwrap();
        let mut b = net.bind(addr(2)).unwrap();
        let packed: Vec<u8> = (0..10u8).flat_map(|i| [i; 4]).chain([99]).collect();
        a.send_packed(addr(2), &packed, 4).unwrap();
        a.send_packed(addr(3), &packed, 4).unwrap();
        a.send_packed(addr(2), &packed, 0).unwrap();
        let got = drain(&mut b);
        let payloads: Vec<Vec<u8>> = got.iter().map(|d| d.payload.clone()).collect();
        let mut expected: Vec<Vec<u8>> = (0..10u8).map(|i| vec![i; 4]).collect();
        expected.push(vec![99]);
        assert_eq!(payloads, expected);
        assert!(got.iter().all(|d| d.peer == addr(1)));
        assert_eq!((a.stats().sent, a.stats().send_dropped), (11, 11));
    }

    #[test]
    fn faults_are_seeded_and_reorder() {
        let run = |seed| {
            let net = MemNetwork::new();
            let faults = FaultConfig {
                seed,
                loss: 0.2,
                duplicate: 0.2,
                max_delay: Duration::from_millis(2),
            };
            let mut a = net.bind_with_faults(addr(1), faults).unwrap();
            let mut b = net.bind(addr(2)).unwrap();
            a.send_batch(&mut datagrams(addr(2), 200)).unwrap();
            let got: Vec<u8> = drain(&mut b).iter().map(|d| d.payload[0]).collect();
            (a.stats(), got)
        };
        let (stats, got) = run(5);
        assert!(
            stats.fault_lost > 10 && stats.fault_duplicated > 10,
            "{stats:?}"
        );
        assert_eq!(
            got.len() as u64,
            200 + stats.fault_duplicated - stats.fault_lost
        );
        assert!(got.windows(2).any(|w| w[0] > w[1]), "no reordering");
        // Same seed, same losses and duplicates.
        assert_eq!(run(5).0, stats);
    }
}
