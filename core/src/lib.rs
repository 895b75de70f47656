//! # esa-core
//!
//! The sans-IO heart of ESA: everything that decides, nothing that waits.
//! Time is an argument (`now_us`, microseconds), no function opens a socket or
//! starts a thread, so tests drive it in virtual time.
//!
//! ## Layout
//! - [`constants`]: the numbers every part agrees on; [`addressing`]: host
//!   *n* behind port *n*, and the switch's address.
//! - [`job`]: a job as every part sees it: its mode and what the mode
//!   implies, its job-table entry, its slot range, the worker bitmap, how a
//!   chunk's seq maps to a slot.
//! - [`plan`]: a job's recipe ([`plan::JobPlan`]), from which its workers'
//!   configs, its PS's config and options and its job-table entry derive,
//!   for the simulator, the hosts, the testbed and the Python binding alike.
//! - [`wire`]: byte views and parsed forms of Ethernet, IPv4, UDP and ESA.
//! - [`pool`]: the reference model of the switch's aggregator pool — what the
//!   P4 program does, packet for packet.
//! - [`quant`]: float32 to int32 fixed point with exact integer sums;
//!   [`integrity`]: keyed linear checksums that tell a worker whether its
//!   result is the sum of what the workers sent.
//! - [`policy`]: priority policies (fcfs, static, srpt, las) with aging.
//! - [`worker`] and [`ps`]: the host protocol state machines, each a folder
//!   (the machine; its config and errors; the ring of chunks in flight, or
//!   the exact cover that completes a chunk from parts; its tests), and the
//!   result caches they answer from (`cache`). Protocol checks live here,
//!   not in the I/O shells (`Worker::check_behind`).
//! - [`rtt`]: the worker's retransmission timeout from measured round trips,
//!   and its settings by where the hosts run ([`rtt::Rto`]).
//! - [`sim`]: a deterministic multi-job simulation of workers, switch and PSs;
//!   [`synthetic`]: the exactly summable gradients it, the hosts' training
//!   loop and the testbeds use.
//! - [`rng`]: the small seeded generator simulations use; [`faults`]: the
//!   one rule that loses, duplicates and delays datagrams, for the
//!   simulator's links and the hosts' in-memory and frame links.
//!
//! `docs/protocol.md` is the specification all of them follow.

pub mod addressing;
mod cache;
pub mod constants;
pub mod faults;
pub mod integrity;
pub mod job;
pub mod plan;
pub mod policy;
pub mod pool;
pub mod ps;
pub mod quant;
pub mod rng;
pub mod rtt;
pub mod sim;
pub mod synthetic;
pub mod wire;
pub mod worker;
