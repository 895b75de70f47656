//! The state the P4Runtime server and the packet thread share: the device
//! behind the one lock both take, the pipeline as configured, arbitration
//! (which stream PacketIns go to), the CPU port, the packet thread's
//! channel (PacketOuts enter there) and switch-wide counters.
//!
//! It sits below both: [`crate::server`] reads and changes it for
//! P4Runtime requests, [`crate::dataplane`] runs frames on its device and
//! hands it PacketIns; neither reaches into the other.

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use p4runtime_proto::arbitration::Arbitration;

use crate::roles::RolePolicy;
use p4runtime_proto::p4::v1::{
    ForwardingPipelineConfig, PacketIn, StreamMessageResponse, stream_message_response,
};
use p4runtime_proto::tonic::Status;
use tokio::sync::mpsc;

use crate::device::Device;
use crate::inbound::InboundSender;
use crate::program::{ControllerHeader, Program};

/// A stream channel's sending side: what arbitration keeps per controller.
pub(crate) type StreamTx = mpsc::Sender<Result<StreamMessageResponse, Status>>;

/// The pipeline as configured through P4Runtime.
#[derive(Debug, Clone)]
pub(crate) struct Configured {
    pub(crate) program: Arc<Program>,
    /// What GetForwardingPipelineConfig returns.
    pub(crate) config: ForwardingPipelineConfig,
}

/// State shared by the P4Runtime service and the packet thread.
#[derive(Debug)]
pub(crate) struct SwitchState {
    /// The P4Runtime device id.
    pub(crate) device_id: u64,
    /// Frames the program sends here become PacketIns; PacketOuts enter
    /// the program here.
    pub(crate) cpu_port: Option<u32>,
    /// Where `#include` looks for programs sent over P4Runtime.
    pub(crate) include_dirs: Vec<PathBuf>,
    device: Mutex<Option<Device>>,
    configured: Mutex<Option<Configured>>,
    saved: Mutex<Option<Configured>>,
    arbitration: Mutex<Arbitration<StreamTx>>,
    /// Which role may write what.
    pub(crate) roles: RolePolicy,
    inbound: Mutex<InboundSender>,
    unknown_port: AtomicU64,
    packet_in_dropped: AtomicU64,
    role_refusals: AtomicU64,
}

/// Locks a mutex, taking over the data if a holder panicked (the state is
/// updated in single steps, so it is still consistent).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl SwitchState {
    pub(crate) fn new(
        device_id: u64,
        cpu_port: Option<u32>,
        include_dirs: Vec<PathBuf>,
        roles: RolePolicy,
        inbound: InboundSender,
    ) -> SwitchState {
        SwitchState {
            device_id,
            cpu_port,
            include_dirs,
            device: Mutex::new(None),
            configured: Mutex::new(None),
            saved: Mutex::new(None),
            arbitration: Mutex::new(Arbitration::default()),
            roles,
            inbound: Mutex::new(inbound),
            unknown_port: AtomicU64::new(0),
            packet_in_dropped: AtomicU64::new(0),
            role_refusals: AtomicU64::new(0),
        }
    }

    /// The device (`None` while no pipeline is configured), under the lock
    /// the packet thread holds while it runs a batch.
    pub(crate) fn lock_device(&self) -> MutexGuard<'_, Option<Device>> {
        lock(&self.device)
    }

    /// Installs a program loaded at start-up (as if a controller had
    /// committed it without a P4Info).
    pub(crate) fn install(&self, program: Program) {
        let program = Arc::new(program);
        let config = ForwardingPipelineConfig {
            p4info: Some(program.p4info.clone()),
            p4_device_config: program.source.clone(),
            cookie: None,
        };
        self.commit(Configured { program, config });
    }

    /// Makes `c` the running pipeline, on a fresh device.
    pub(crate) fn commit(&self, c: Configured) {
        *self.lock_device() = Some(Device::new(c.program.clone()));
        *lock(&self.configured) = Some(c);
    }

    /// The running pipeline's configuration, if any.
    pub(crate) fn configured(&self) -> Option<Configured> {
        lock(&self.configured).clone()
    }

    /// Keeps `c` for a later COMMIT (VERIFY_AND_SAVE).
    pub(crate) fn save(&self, c: Configured) {
        *lock(&self.saved) = Some(c);
    }

    /// The saved configuration, taken for a COMMIT.
    pub(crate) fn take_saved(&self) -> Option<Configured> {
        lock(&self.saved).take()
    }

    /// The stream channels' arbitration, locked.
    pub(crate) fn arbitration(&self) -> MutexGuard<'_, Arbitration<StreamTx>> {
        lock(&self.arbitration)
    }

    /// The packet thread's channel.
    pub(crate) fn inbound(&self) -> InboundSender {
        lock(&self.inbound).clone()
    }

    /// Counts and logs a request the role policy refused; returns its
    /// status.
    pub(crate) fn refused_by_role(&self, status: Status) -> Status {
        self.role_refusals.fetch_add(1, Ordering::Relaxed);
        tracing::warn!("refused by the role policy: {}", status.message());
        status
    }

    /// Requests (arbitrations, updates, pipeline changes) the role policy
    /// refused.
    pub(crate) fn role_refusals(&self) -> u64 {
        self.role_refusals.load(Ordering::Relaxed)
    }

    pub(crate) fn count_unknown_port(&self) {
        self.unknown_port.fetch_add(1, Ordering::Relaxed);
    }

    /// Frames sent to ports that do not exist.
    pub(crate) fn unknown_port_frames(&self) -> u64 {
        self.unknown_port.load(Ordering::Relaxed)
    }

    /// PacketIns dropped (no primary, or its stream full).
    pub(crate) fn packet_in_drops(&self) -> u64 {
        self.packet_in_dropped.load(Ordering::Relaxed)
    }

    /// Delivers a frame the pipeline sent to the CPU port to the primary
    /// controller, its `packet_in` header turned into metadata.
    pub(crate) fn packet_in(&self, frame: &[u8], header: Option<&ControllerHeader>) {
        let (metadata, payload) = match header {
            Some(h) => match h.decode(frame) {
                Some(x) => x,
                None => {
                    tracing::warn!(
                        len = frame.len(),
                        "frame to the CPU port is shorter than packet_in"
                    );
                    self.packet_in_dropped.fetch_add(1, Ordering::Relaxed);
                    return;
                }
            },
            None => (Vec::new(), frame.to_vec()),
        };
        let arbitration = self.arbitration();
        // Every role's primary hears it (P4Runtime spec §15).
        let mut delivered = false;
        for tx in arbitration.primaries() {
            delivered |= tx
                .try_send(Ok(StreamMessageResponse {
                    update: Some(stream_message_response::Update::Packet(PacketIn {
                        payload: payload.clone(),
                        metadata: metadata.clone(),
                    })),
                }))
                .is_ok();
        }
        if !delivered {
            self.packet_in_dropped.fetch_add(1, Ordering::Relaxed);
        }
    }
}
