//! Direct counters: one cell per table entry, read with the entry
//! (`counter_data`) or as a `DirectCounterEntry`, and the conversion of a
//! cell to and from P4Runtime's `CounterData`, which indexed counters
//! share.

use p4runtime_proto::p4::v1;
use p4sim::v1switch::EntryHandle;

use super::Device;
use super::error::{Result, invalid, runtime_error};
use crate::program::TableInfo;

/// A counter cell (packets, bytes) as P4Runtime's `CounterData`.
pub(super) fn counter_data(packets: u64, bytes: u64) -> v1::CounterData {
    v1::CounterData {
        byte_count: i64::try_from(bytes).unwrap_or(i64::MAX),
        packet_count: i64::try_from(packets).unwrap_or(i64::MAX),
    }
}

/// `CounterData` as a counter cell (packets, bytes); negative counts are 0.
pub(super) fn counts(data: &v1::CounterData) -> (u64, u64) {
    (
        data.packet_count.max(0) as u64,
        data.byte_count.max(0) as u64,
    )
}

impl Device {
    /// The direct counter cell of entry `handle` in `table`, if the table
    /// has a direct counter.
    pub(super) fn direct_counter_data(
        &mut self,
        table: &TableInfo,
        handle: EntryHandle,
    ) -> Option<v1::CounterData> {
        let (_, name) = table.direct_counter.as_ref()?;
        let (packets, bytes) = self.switch.counter_read(name, u64::from(handle.0)).ok()?;
        Some(counter_data(packets, bytes))
    }

    /// Sets the direct counter cell of entry `handle` in `table` to the
    /// `counter_data` a table entry's write carries, if any (and if the
    /// table has a direct counter).
    pub(super) fn set_direct_counter(
        &mut self,
        table: &TableInfo,
        handle: EntryHandle,
        data: Option<&v1::CounterData>,
    ) {
        if let (Some(data), Some((_, name))) = (data, &table.direct_counter) {
            let (packets, bytes) = counts(data);
            let _ = self
                .switch
                .counter_write(name, u64::from(handle.0), packets, bytes);
        }
    }

    pub(super) fn write_direct_counter(
        &mut self,
        kind: v1::update::Type,
        c: &v1::DirectCounterEntry,
    ) -> Result<()> {
        if kind != v1::update::Type::Modify {
            return Err(invalid("direct counter entries can only be modified"));
        }
        let t = c
            .table_entry
            .as_ref()
            .ok_or_else(|| invalid("DirectCounterEntry without a table entry"))?;
        let (table, handle, _) = self.find_entry(t)?;
        let (_, name) = table
            .direct_counter
            .as_ref()
            .ok_or_else(|| invalid(format!("table `{}` has no direct counter", table.name)))?;
        let (packets, bytes) = counts(&c.data.unwrap_or_default());
        self.switch
            .counter_write(name, u64::from(handle.0), packets, bytes)
            .map_err(runtime_error)
    }

    pub(super) fn read_direct_counters(
        &mut self,
        c: &v1::DirectCounterEntry,
    ) -> Result<Vec<v1::DirectCounterEntry>> {
        let t = c.table_entry.clone().unwrap_or_default();
        if t.table_id != 0 {
            let table = self.table(t.table_id)?;
            if table.direct_counter.is_none() {
                return Err(invalid(format!(
                    "table `{}` has no direct counter",
                    table.name
                )));
            }
        }
        let query = v1::TableEntry {
            counter_data: Some(v1::CounterData::default()),
            ..t
        };
        Ok(self
            .read_entries(&query)?
            .into_iter()
            .filter(|e| {
                self.program
                    .tables
                    .get(&e.table_id)
                    .is_some_and(|t| t.direct_counter.is_some())
            })
            .map(|mut e| {
                let data = e.counter_data.take();
                v1::DirectCounterEntry {
                    table_entry: Some(e),
                    data,
                }
            })
            .collect())
    }
}
