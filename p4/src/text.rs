//! The same typed entries as text: STF lines for p4sim's and BMv2's STF
//! runners (`add`, `setdefault`) and BMv2 runtime CLI commands
//! (`table_add`, `table_set_default`). Multicast commands are written
//! alike in both.

use std::fmt::Write as _;

use crate::program::Arch;
use crate::tables::{TableEntry, pool_config};

/// Addresses (MAC, IPv4: 32 bits and wider) in hex, the rest in decimal.
fn hex_or_dec(width: u32, value: u64) -> String {
    if width >= 32 {
        format!("0x{value:0w$x}", w = width.div_ceil(4) as usize)
    } else {
        value.to_string()
    }
}

/// `entry` as an STF `add` line: `add TABLE [PRIO] field:value ...
/// ACTION(param:value, ...)`.
pub fn stf_add(arch: Arch, entry: &TableEntry) -> Result<String, String> {
    let spec = entry.spec_in(arch)?;
    let mut line = format!("add {}", spec.name);
    if spec.ternary_slot {
        line.push_str(" 1");
    }
    for ((field, w), v) in spec.key.iter().zip(entry.key_values()) {
        let _ = write!(line, " {field}:{}", hex_or_dec(*w, v));
    }
    if spec.ternary_slot {
        let _ = write!(
            line,
            " hdr.esa.slot:0x0000&&&0x{:04x}",
            entry.slot_match_mask()?
        );
    }
    let params: Vec<String> = spec
        .params
        .iter()
        .zip(entry.param_values())
        .map(|((name, w), v)| format!("{name}:{}", hex_or_dec(*w, v)))
        .collect();
    let _ = write!(line, " {}({})", spec.action, params.join(", "));
    Ok(line)
}

/// `entry` as a BMv2 runtime CLI command: `table_add TABLE ACTION KEY ...
/// => PARAM ... [PRIO]`.
pub fn cli_add(arch: Arch, entry: &TableEntry) -> Result<String, String> {
    let spec = entry.spec_in(arch)?;
    let mut line = format!("table_add {} {}", spec.name, spec.action);
    for ((_, w), v) in spec.key.iter().zip(entry.key_values()) {
        let _ = write!(line, " {}", hex_or_dec(*w, v));
    }
    if spec.ternary_slot {
        let _ = write!(line, " 0x0000&&&0x{:04x}", entry.slot_match_mask()?);
    }
    line.push_str(" =>");
    for ((_, w), v) in spec.params.iter().zip(entry.param_values()) {
        let _ = write!(line, " {}", hex_or_dec(*w, v));
    }
    if spec.ternary_slot {
        line.push_str(" 1");
    }
    Ok(line)
}

/// The STF line setting the stale-bound parameter to `value` (the
/// program's units).
pub fn stf_stale_param(arch: Arch, value: u64) -> String {
    let spec = pool_config(arch);
    format!(
        "setdefault {} {}({}:{value})",
        spec.table, spec.action, spec.param
    )
}

/// The CLI command setting the stale-bound parameter to `value`.
pub fn cli_stale_param(arch: Arch, value: u64) -> String {
    let spec = pool_config(arch);
    format!("table_set_default {} {} {value}", spec.table, spec.action)
}

/// Multicast group `group` with one node (replica 0) of `ports`, its node
/// handle being `handle` (nodes are numbered from 0 in creation order):
/// the same commands in STF and the CLI.
pub fn group_commands(group: u16, ports: &[u16], handle: u32) -> [String; 3] {
    let ports: Vec<String> = ports.iter().map(u16::to_string).collect();
    [
        format!("mc_mgrp_create {group}"),
        format!("mc_node_create 0 {}", ports.join(" ")),
        format!("mc_node_associate {group} {handle}"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::{host_entry, job_entries};
    use esa_core::job::{JobEntry, Mode, TreeRole};
    use esa_core::wire::{Ipv4Addr, MacAddr};

    const ENTRY: JobEntry = JobEntry {
        fan_in: 3,
        mode: Mode::Esa,
        max_priority: 7,
        mcast_group: 1,
        ps_port: 10,
        slot_base: 0,
        slot_mask: 15,
        tree: TreeRole::Flat,
    };

    #[test]
    fn stf_lines() {
        let v1: Vec<String> = job_entries(Arch::V1model, 1, &ENTRY, &[])
            .iter()
            .map(|e| stf_add(Arch::V1model, e).unwrap())
            .collect();
        assert_eq!(
            v1,
            [
                "add EsaIngress.admission.jobs hdr.esa.job:1 EsaIngress.admission.set_job(fan_in:3, mode:0, max_priority:7, mcast_group:1, ps_port:10, slot_base:0, slot_mask:15, tree_role:0, aggregate:1, racks:0, uplink_port:0, uplink_bit:0)",
                "add EsaIngress.aggregation.job_route route_job:1 EsaIngress.aggregation.set_route(ps_port:10, fan_in:3, slot_base:0, slot_mask:15, tree_role:0, uplink_bit:0)",
                "add EsaIngress.admission.job_ports hdr.esa.job:1 sm.ingress_port:10 EsaIngress.admission.allow()",
                "add EsaIngress.admission.worker_ports hdr.esa.job:1 sm.ingress_port:10 hdr.esa.worker:255 EsaIngress.admission.allow_worker()",
            ]
        );
        let tna = stf_add(Arch::Tna, &job_entries(Arch::Tna, 1, &ENTRY, &[])[1]).unwrap();
        assert_eq!(
            tna,
            "add EsaIngress.jobs 1 hdr.esa.job:1 hdr.esa.slot:0x0000&&&0xfff0 EsaIngress.set_job(fan_in:3, mode:0, max_priority:7, mcast_group:1, ps_port:10, slot_base:0, slot_mask:15, tree_role:0, aggregate:1, racks:0, uplink_port:0, uplink_bit:0)"
        );
        let host = host_entry(3, MacAddr([2, 0, 0, 0, 0, 3]), Ipv4Addr([10, 0, 0, 3]));
        assert_eq!(
            stf_add(Arch::Tna, &host).unwrap(),
            "add EsaEgress.egress_host eg_intr_md.egress_port:3 EsaEgress.set_host(mac:0x020000000003, ip:0x0a000003)"
        );
        assert_eq!(
            stf_stale_param(Arch::Tna, 152),
            "setdefault EsaIngress.pool_config EsaIngress.set_stale_after(units:152)"
        );
    }

    #[test]
    fn cli_lines() {
        let host = host_entry(3, MacAddr([2, 0, 0, 0, 0, 3]), Ipv4Addr([10, 0, 0, 3]));
        assert_eq!(
            cli_add(Arch::V1model, &host).unwrap(),
            "table_add EsaEgress.egress_host EsaEgress.set_host 3 => 0x020000000003 0x0a000003"
        );
        let jobs = cli_add(Arch::Tna, &job_entries(Arch::Tna, 5, &ENTRY, &[])[1]).unwrap();
        assert_eq!(
            jobs,
            "table_add EsaIngress.jobs EsaIngress.set_job 5 0x0000&&&0xfff0 => 3 0 7 1 10 0 15 0 1 0 0 0 1"
        );
        assert_eq!(
            group_commands(2, &[1, 4], 1),
            [
                "mc_mgrp_create 2",
                "mc_node_create 0 1 4",
                "mc_node_associate 2 1"
            ]
        );
    }

    #[test]
    fn a_table_the_program_lacks_is_an_error() {
        let e = TableEntry::JobId(crate::tables::JobKey { job: 1 });
        assert!(stf_add(Arch::V1model, &e).is_err());
        assert!(cli_add(Arch::V1model, &e).is_err());
    }
}
