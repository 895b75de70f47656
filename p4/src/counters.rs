//! Where the programs keep what the model (`esa_core::pool`) counts and
//! holds: the per-job counters ([`JobCounters::by_name`]), the global
//! counters ([`GlobalCounters::by_index`]) and the slot registers, by
//! architecture, so the controller, the tests and the tools that compare a
//! program with the model read the same cells.
//!
//! [`JobCounters::by_name`]: esa_core::pool::JobCounters::by_name
//! [`GlobalCounters::by_index`]: esa_core::pool::GlobalCounters::by_index

use crate::program::Arch;

/// The cell of one per-job counter: job `j` counts in cell
/// `j * stride + offset` of counter array `name`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CounterCell {
    /// Fully qualified counter array.
    pub name: &'static str,
    /// Cells per job.
    pub stride: u32,
    /// The counter's cell among its job's.
    pub offset: u32,
}

impl CounterCell {
    /// The cell of `job`.
    pub const fn index(&self, job: u16) -> u32 {
        job as u32 * self.stride + self.offset
    }
}

/// The v1model program's per-job counter arrays, one per counter, indexed
/// by job id.
const V1MODEL_JOB_COUNTERS: [&str; 24] = [
    "EsaIngress.aggregation.data_rx",
    "EsaIngress.aggregation.claimed",
    "EsaIngress.aggregation.aggregated",
    "EsaIngress.aggregation.completed",
    "EsaIngress.aggregation.duplicates",
    "EsaIngress.aggregation.flushed",
    "EsaIngress.aggregation.reemitted",
    "EsaIngress.aggregation.fallbacks",
    "EsaIngress.aggregation.preemptions",
    "EsaIngress.aggregation.stale_reclaims",
    "EsaIngress.aggregation.evictions_suffered",
    "EsaIngress.aggregation.results_relayed",
    "EsaIngress.aggregation.queries_relayed",
    "EsaIngress.aggregation.released",
    "EsaIngress.aggregation.probes_answered",
    "EsaIngress.aggregation.probes_forwarded",
    "EsaIngress.aggregation.pulled",
    "EsaIngress.aggregation.pulls_ignored",
    "EsaIngress.aggregation.answers_relayed",
    "EsaIngress.admission.drop_bad_port",
    "EsaIngress.admission.drop_spoofed",
    "EsaIngress.admission.drop_bad_type",
    "EsaIngress.admission.drop_bad_slot",
    "EsaIngress.admission.drop_bad_worker",
];

/// The TNA program's per-job rows (16 per job, all used), in row order:
/// row `r` is cell `job * 4 + r % 4` of `job_rows_{r / 4}` (four arrays of
/// 16,384 cells, so that each fits beside the lanes of one stage at 32,768
/// slots).
pub(crate) const TNA_ROWS: [&str; 16] = [
    "claimed",
    "aggregated",
    "completed",
    "duplicates",
    "flushed",
    "reemitted",
    "fallbacks",
    "preemptions",
    "stale_reclaims",
    "results_relayed",
    "queries_relayed",
    "probes_answered",
    "probes_forwarded",
    "pulled",
    "pulls_ignored",
    "answers_relayed",
];

/// The TNA program's drop reasons: reasons 0-3 are cells `job * 4 + reason`
/// of `job_drops`, reason 4 (`drop_spoofed`) cell `job` of `job_spoofed`.
pub(crate) const TNA_DROPS: [&str; 5] = [
    "drop_bad_port",
    "drop_bad_type",
    "drop_bad_slot",
    "drop_bad_worker",
    "drop_spoofed",
];

/// Cells per job of each `job_rows_N` and of `job_drops`: a power of two,
/// so the index is job ++ the row's or reason's low bits.
pub(crate) const TNA_CELLS_PER_JOB: u32 = 4;

/// The arrays of the TNA program's rows, four rows a job each.
pub(crate) const TNA_ROW_ARRAYS: [&str; 4] = [
    "EsaIngress.job_rows_0",
    "EsaIngress.job_rows_1",
    "EsaIngress.job_rows_2",
    "EsaIngress.job_rows_3",
];

/// Every row has its cell: the row arrays hold [`TNA_ROWS`] exactly.
const _: () = assert!(TNA_ROW_ARRAYS.len() * TNA_CELLS_PER_JOB as usize == TNA_ROWS.len());

/// The stage `row_counter_0` (counting in `job_rows_0`) is pinned to;
/// `row_counter_N` is pinned to the next stage after `row_counter_{N-1}`,
/// each beside the lanes of a stage of its own (`p4/tna/README.md`,
/// "Resources").
pub(crate) const TNA_ROW_COUNTER_FIRST_STAGE: u32 = 8;

/// Where `arch`'s program counts the model's per-job counter `name` (as
/// [`JobCounters::by_name`] calls it); `None` for a counter the program
/// does not keep (TNA does not count `released`) or an unknown name.
///
/// [`JobCounters::by_name`]: esa_core::pool::JobCounters::by_name
pub fn job_counter(arch: Arch, name: &str) -> Option<CounterCell> {
    match arch {
        Arch::V1model => V1MODEL_JOB_COUNTERS
            .iter()
            .find(|full| full.rsplit('.').next() == Some(name))
            .map(|full| CounterCell {
                name: full,
                stride: 1,
                offset: 0,
            }),
        Arch::Tna => {
            if let Some(row) = TNA_ROWS.iter().position(|r| *r == name) {
                let row = row as u32;
                return Some(CounterCell {
                    name: TNA_ROW_ARRAYS[(row / TNA_CELLS_PER_JOB) as usize],
                    stride: TNA_CELLS_PER_JOB,
                    offset: row % TNA_CELLS_PER_JOB,
                });
            }
            if let Some(reason) = TNA_DROPS.iter().position(|r| *r == name) {
                let reason = reason as u32;
                return Some(if reason < TNA_CELLS_PER_JOB {
                    CounterCell {
                        name: "EsaIngress.job_drops",
                        stride: TNA_CELLS_PER_JOB,
                        offset: reason,
                    }
                } else {
                    CounterCell {
                        name: "EsaIngress.job_spoofed",
                        stride: 1,
                        offset: 0,
                    }
                });
            }
            let name = match name {
                "data_rx" => "EsaIngress.data_rx",
                "evictions_suffered" => "EsaIngress.evictions_suffered",
                _ => return None,
            };
            Some(CounterCell {
                name,
                stride: 1,
                offset: 0,
            })
        }
    }
}

/// The counter array of the global counters (`esa_global`), indexed as
/// [`GlobalCounters::by_index`] says.
///
/// [`GlobalCounters::by_index`]: esa_core::pool::GlobalCounters::by_index
pub const fn global_counter(arch: Arch) -> &'static str {
    match arch {
        Arch::V1model => "EsaIngress.admission.esa_global",
        Arch::Tna => "EsaIngress.esa_global",
    }
}

/// The fully qualified name of slot register `name` (`slot_key`,
/// `slot_bitmap`, ...; TNA's registers are named as that program keeps
/// them, `slot_meta` and `slot_tombstone` among them).
pub fn slot_register(arch: Arch, name: &str) -> String {
    match arch {
        Arch::V1model => format!("EsaIngress.aggregation.{name}"),
        Arch::Tna => format!("EsaIngress.{name}"),
    }
}

/// The register holding value lane `lane` of every slot.
pub fn lane_register(arch: Arch, lane: usize) -> String {
    match arch {
        Arch::V1model => format!("EsaIngress.aggregation.lane{lane}.lane"),
        Arch::Tna => format!("EsaIngress.lane_{lane}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use esa_core::pool::JobCounters;

    #[test]
    fn every_model_counter_has_a_v1model_cell() {
        for (name, _) in JobCounters::default().by_name() {
            let cell = job_counter(Arch::V1model, name).unwrap();
            assert!(cell.name.ends_with(&format!(".{name}")));
            assert_eq!(cell.index(4095), 4095);
        }
        assert_eq!(job_counter(Arch::V1model, "nope"), None);
    }

    #[test]
    fn tna_cells_do_not_overlap() {
        let mut seen = std::collections::HashSet::new();
        for job in [0u16, 1, 2, 4095] {
            for (name, _) in JobCounters::default().by_name() {
                match job_counter(Arch::Tna, name) {
                    Some(cell) => {
                        assert!(cell.offset < cell.stride, "{name}");
                        assert!(seen.insert((cell.name, cell.index(job))), "{name}");
                    }
                    None => assert_eq!(name, "released"),
                }
            }
        }
        let cell = |name| {
            let c = job_counter(Arch::Tna, name).unwrap();
            (c.name, c.index(3))
        };
        assert_eq!(cell("completed"), ("EsaIngress.job_rows_0", 3 * 4 + 2));
        assert_eq!(cell("flushed"), ("EsaIngress.job_rows_1", 3 * 4));
        assert_eq!(
            cell("answers_relayed"),
            ("EsaIngress.job_rows_3", 3 * 4 + 3)
        );
        assert_eq!(cell("drop_bad_worker"), ("EsaIngress.job_drops", 3 * 4 + 3));
        assert_eq!(cell("drop_spoofed"), ("EsaIngress.job_spoofed", 3));
    }
}
