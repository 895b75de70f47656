//! Programming one of ESA's programs in p4sim directly (no controller):
//! typed [`TableEntry`]s, multicast groups and the stale bound, as the
//! controller programs a switch over P4Runtime. Tests, benches and
//! `esa bench dataplane` share these.

use p4sim::exec::bits::{BitType, Bits};
use p4sim::v1switch::{MatchValue, V1Switch};

use esa_core::job::JobEntry;

use crate::program::Arch;
use crate::tables::{TableEntry, job_entries, job_members, pool_config};

/// An unsigned `width`-bit value for p4sim's control-plane API.
pub fn bits(width: u32, value: u64) -> Bits {
    // every width below is a table field's, 1..=48 bits
    match BitType::unsigned(width) {
        Ok(t) => Bits::from_u64(t, value),
        Err(e) => panic!("no {width}-bit type in p4sim: {e}"),
    }
}

/// `entry` as p4sim's table entry for `arch`'s program: its table and the
/// entry (TNA `jobs`: the slot range as a ternary match, priority 1).
pub fn p4sim_entry(
    arch: Arch,
    entry: &TableEntry,
) -> Result<(&'static str, p4sim::v1switch::TableEntry), String> {
    let spec = entry.spec_in(arch)?;
    let mut matches: Vec<MatchValue> = spec
        .key
        .iter()
        .zip(entry.key_values())
        .map(|((_, w), v)| MatchValue::Exact(bits(*w, v)))
        .collect();
    if spec.ternary_slot {
        let mask = entry.slot_match_mask()?;
        matches.push(MatchValue::Ternary(bits(16, 0), bits(16, mask.into())));
    }
    let args = spec
        .params
        .iter()
        .zip(entry.param_values())
        .map(|((name, w), v)| ((*name).to_string(), bits(*w, v)))
        .collect();
    Ok((
        spec.name,
        p4sim::v1switch::TableEntry {
            matches,
            priority: spec.ternary_slot.then_some(1),
            action: spec.action.to_string(),
            args,
        },
    ))
}

/// Adds `entry` to the switch running `arch`'s program.
pub fn install(sw: &mut V1Switch, arch: Arch, entry: &TableEntry) -> Result<(), String> {
    let (table, e) = p4sim_entry(arch, entry)?;
    sw.table_add(table, e)
        .map(|_| ())
        .map_err(|e| format!("{table}: {e}"))
}

/// Multicast group `group`: one node (replica 0) with `ports`.
pub fn set_group(sw: &mut V1Switch, group: u16, ports: &[u16]) -> Result<(), String> {
    let pre = sw.pre_mut();
    let fail = |e: p4sim::v1switch::pre::PreError| format!("multicast group {group}: {e}");
    pre.mc_mgrp_create(group.into()).map_err(fail)?;
    let ports: Vec<u32> = ports.iter().map(|&p| p.into()).collect();
    let node = pre.mc_node_create(0, &ports, &[]).map_err(fail)?;
    pre.mc_node_associate(group.into(), node).map_err(fail)
}

/// Job `job`'s entries ([`job_entries`]: worker *w* on
/// `worker_ports[w]`) and its multicast group ([`job_members`]).
pub fn install_job(
    sw: &mut V1Switch,
    arch: Arch,
    job: u16,
    entry: &JobEntry,
    worker_ports: &[u16],
) -> Result<(), String> {
    for e in job_entries(arch, job, entry, worker_ports) {
        install(sw, arch, &e)?;
    }
    set_group(sw, entry.mcast_group, &job_members(entry, worker_ports))
}

/// Sets the pool's stale-bound parameter to `value`, in the program's own
/// units ([`crate::tables::PoolConfigSpec::value`] converts microseconds).
pub fn set_stale_param(sw: &mut V1Switch, arch: Arch, value: u64) -> Result<(), String> {
    let spec = pool_config(arch);
    sw.table_set_default(
        spec.table,
        spec.action,
        &[(spec.param.to_string(), bits(spec.width, value))],
    )
    .map_err(|e| format!("{}: {e}", spec.table))
}

/// Sets the stale bound to `us` microseconds (rounded up to the program's
/// units).
pub fn set_stale_after(sw: &mut V1Switch, arch: Arch, us: u64) -> Result<(), String> {
    set_stale_param(sw, arch, pool_config(arch).value(us))
}
