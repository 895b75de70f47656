//! Any sequence of frames on any ports: the pool never panics and its
//! counters add up, for flat jobs and a job tree's leaf and root.
#![no_main]

use esa_core::constants::PS_WORKER_ID;
use esa_core::pool::{Pool, PoolConfig};
use esa_core::job::{Mode, TreeRole, Uplink};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut pool = Pool::new(PoolConfig { slots: 8, lanes: 2, stale_after_us: 50 }).unwrap();
    for job in 1..=4u16 {
        let mode = if job == 2 { Mode::Atp } else { Mode::Esa };
        let mut entry = pool.shared_entry(3, mode, job, 9 + job % 2);
        entry.tree = match job {
            3 => TreeRole::leaf(Uplink { port: 10, bit: 1, root_fan_in: 3 }),
            4 => TreeRole::root(3),
            _ => TreeRole::Flat,
        };
        pool.insert_job(job, entry).unwrap();
        // every port authorized; each speaks for one id (3 is beyond the
        // fan-in), the PS's for the PS too
        for port in 0..12 {
            pool.authorize(job, port);
            pool.bind_sender(job, port, (port % 4) as u8);
        }
        pool.bind_sender(job, 9 + job % 2, PS_WORKER_ID);
    }
    // Records: [port, time step, length, bytes...].
    let mut rest = data;
    let mut now = 0u64;
    while let [port, dt, len, tail @ ..] = rest {
        let len = usize::from(*len).min(tail.len());
        now += u64::from(*dt);
        let _ = pool.process(&tail[..len], u16::from(*port % 12), now);
        rest = &tail[len..];
    }
    for job in 1..=4 {
        let c = pool.counters(job);
        assert_eq!(c.data_outcomes(), c.data_rx);
    }
});
