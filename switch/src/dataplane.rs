//! The packet thread: drains the inbound channel, runs each frame through
//! the loaded program with the monotonic clock, and hands the outputs to
//! the egress ports, the CPU port (PacketIn) and the pcap files.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::time::Instant;

use crate::pcap::PcapWriter;
use crate::ports::{Egress, Inbound, PortCounters};
use crate::server::Shared;

/// The packet thread's state.
#[derive(Debug)]
pub(crate) struct Dataplane {
    pub(crate) shared: Arc<Shared>,
    pub(crate) inbound: Receiver<Inbound>,
    pub(crate) egress: HashMap<u32, Egress>,
    pub(crate) counters: HashMap<u32, Arc<PortCounters>>,
    pub(crate) pcap: HashMap<u32, PcapWriter>,
    pub(crate) start: Instant,
}

impl Dataplane {
    /// Runs until [`Inbound::Stop`] or until every sender is gone.
    pub(crate) fn run(mut self) {
        loop {
            let msg = match self.inbound.try_recv() {
                Ok(m) => m,
                Err(TryRecvError::Empty) => {
                    // Idle: make captures visible before blocking.
                    for w in self.pcap.values_mut() {
                        let _ = w.flush();
                    }
                    match self.inbound.recv() {
                        Ok(m) => m,
                        Err(_) => break,
                    }
                }
                Err(TryRecvError::Disconnected) => break,
            };
            match msg {
                Inbound::Stop => break,
                Inbound::Frame { port, data } => self.handle(port, &data),
                Inbound::Batch(frames) => {
                    for (port, data) in frames {
                        self.handle(port, &data);
                    }
                }
            }
        }
        for w in self.pcap.values_mut() {
            let _ = w.flush();
        }
        tracing::debug!("packet thread stopped");
    }

    fn handle(&mut self, port: u32, data: &[u8]) {
        let cpu_port = self.shared.cpu_port;
        let counters = self.counters.get(&port).cloned();
        if let Some(c) = &counters {
            c.rx(data.len());
        }
        if let Some(w) = self.pcap.get_mut(&port) {
            let _ = w.write(data);
        }
        let Ok(ingress) = u16::try_from(port) else {
            return;
        };
        let now_us = self.start.elapsed().as_micros() as u64;
        let (outputs, program) = {
            let mut guard = self.shared.lock_device();
            let Some(device) = guard.as_mut() else {
                if let Some(c) = &counters {
                    c.drop_one();
                }
                tracing::trace!(port, "no pipeline loaded: frame dropped");
                return;
            };
            let outputs = device.process(now_us, ingress, data);
            (outputs, device.program().clone())
        };
        if outputs.is_empty() {
            if let Some(c) = &counters {
                c.drop_one();
            }
            tracing::trace!(port, len = data.len(), "dropped by the pipeline");
        }
        for out in outputs {
            let out_port = u32::from(out.port);
            if Some(out_port) == cpu_port {
                self.shared.packet_in(&out.data, program.packet_in.as_ref());
                continue;
            }
            if let Some(w) = self.pcap.get_mut(&out_port) {
                let _ = w.write(&out.data);
            }
            let c = self.counters.get(&out_port);
            let sent = match self.egress.get(&out_port) {
                Some(Egress::Memory(tx)) => {
                    let len = out.data.len();
                    tx.send(out.data).is_ok().then_some(len)
                }
                #[cfg(target_os = "linux")]
                Some(Egress::Raw(sock)) => match sock.send(&out.data) {
                    Ok(()) => Some(out.data.len()),
                    Err(e) => {
                        tracing::warn!(port = out_port, interface = sock.name(), "send: {e}");
                        None
                    }
                },
                Some(Egress::Udp(sock)) => match sock.send(&out.data) {
                    Ok(()) => Some(out.data.len()),
                    Err(e) => {
                        tracing::debug!(port = out_port, "UDP send: {e}");
                        None
                    }
                },
                None => {
                    tracing::trace!(port = out_port, "frame for a port that does not exist");
                    None
                }
            };
            match (c, sent) {
                (Some(c), Some(len)) => c.tx(len),
                (Some(c), None) => c.tx_error(),
                (None, _) => self.shared.count_unknown_port(),
            }
        }
    }
}
