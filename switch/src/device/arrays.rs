//! Indexed counters and registers: arrays of cells that P4Runtime writes
//! (MODIFY only) and reads by array id and cell index, every array when
//! the id is 0 and every cell when the index is absent. The two kinds
//! differ only in what a cell holds, so one path serves both
//! ([`ArrayEntry`]).

use std::collections::HashMap;

use p4runtime_proto::p4::v1;
use p4runtime_proto::p4::v1::p4_data;
use p4runtime_proto::tonic::Code;
use p4sim::exec::bits::Bits;
use p4sim::v1switch::{RuntimeError, V1Switch};

use super::Device;
use super::counters::{counter_data, counts};
use super::error::{Result, UpdateError, invalid, not_found, runtime_error, value_error};
use crate::codec;
use crate::program::{ArrayInfo, Program};

/// A P4Runtime entry that names cells of a counter or register array:
/// what the two kinds do differently.
pub(super) trait ArrayEntry: Sized {
    /// What a cell holds, as p4sim reads and writes it.
    type Cell;
    /// The kind, as messages name it.
    const KIND: &'static str;
    /// The program's arrays of this kind, by id.
    fn arrays(program: &Program) -> &HashMap<u32, ArrayInfo>;
    /// The array the entry names (0: every one, in a read).
    fn array_id(&self) -> u32;
    /// The cell the entry names (`None`: every one).
    fn cell_index(&self) -> Option<v1::Index>;
    /// The value a write sets, checked against `array`.
    fn written_cell(&self, array: &ArrayInfo) -> Result<Self::Cell>;
    /// Sets cell `index` of array `name`.
    fn write_cell(
        switch: &mut V1Switch,
        name: &str,
        index: u64,
        cell: &Self::Cell,
    ) -> std::result::Result<(), RuntimeError>;
    /// Cell `index` of array `name`.
    fn read_cell(
        switch: &mut V1Switch,
        name: &str,
        index: u64,
    ) -> std::result::Result<Self::Cell, RuntimeError>;
    /// The entry a read returns for one cell.
    fn read_entry(id: u32, index: u64, cell: Self::Cell) -> Self;
}

impl ArrayEntry for v1::CounterEntry {
    /// Packets and bytes.
    type Cell = (u64, u64);
    const KIND: &'static str = "counter";

    fn arrays(program: &Program) -> &HashMap<u32, ArrayInfo> {
        &program.counters
    }

    fn array_id(&self) -> u32 {
        self.counter_id
    }

    fn cell_index(&self) -> Option<v1::Index> {
        self.index
    }

    fn written_cell(&self, _array: &ArrayInfo) -> Result<(u64, u64)> {
        Ok(counts(&self.data.unwrap_or_default()))
    }

    fn write_cell(
        switch: &mut V1Switch,
        name: &str,
        index: u64,
        &(packets, bytes): &(u64, u64),
    ) -> std::result::Result<(), RuntimeError> {
        switch.counter_write(name, index, packets, bytes)
    }

    fn read_cell(
        switch: &mut V1Switch,
        name: &str,
        index: u64,
    ) -> std::result::Result<(u64, u64), RuntimeError> {
        switch.counter_read(name, index)
    }

    fn read_entry(id: u32, index: u64, (packets, bytes): (u64, u64)) -> v1::CounterEntry {
        v1::CounterEntry {
            counter_id: id,
            index: Some(v1::Index {
                index: index as i64,
            }),
            data: Some(counter_data(packets, bytes)),
        }
    }
}

impl ArrayEntry for v1::RegisterEntry {
    type Cell = Bits;
    const KIND: &'static str = "register";

    fn arrays(program: &Program) -> &HashMap<u32, ArrayInfo> {
        &program.registers
    }

    fn array_id(&self) -> u32 {
        self.register_id
    }

    fn cell_index(&self) -> Option<v1::Index> {
        self.index
    }

    fn written_cell(&self, array: &ArrayInfo) -> Result<Bits> {
        let bytes = match self.data.as_ref().and_then(|d| d.data.as_ref()) {
            Some(p4_data::Data::Bitstring(b)) => b,
            Some(_) => return Err(invalid("register data must be a bitstring")),
            None => return Err(invalid("RegisterEntry without data")),
        };
        let what = format!("register `{}`", array.name);
        codec::to_bits(bytes, array.width).map_err(|e| value_error(&what, e))
    }

    fn write_cell(
        switch: &mut V1Switch,
        name: &str,
        index: u64,
        cell: &Bits,
    ) -> std::result::Result<(), RuntimeError> {
        switch.register_write(name, index, cell)
    }

    fn read_cell(
        switch: &mut V1Switch,
        name: &str,
        index: u64,
    ) -> std::result::Result<Bits, RuntimeError> {
        switch.register_read(name, index)
    }

    fn read_entry(id: u32, index: u64, cell: Bits) -> v1::RegisterEntry {
        v1::RegisterEntry {
            register_id: id,
            index: Some(v1::Index {
                index: index as i64,
            }),
            data: Some(v1::P4Data {
                data: Some(p4_data::Data::Bitstring(codec::from_bits(&cell))),
            }),
        }
    }
}

impl Device {
    /// Sets the cells `entry` names (MODIFY is the only update allowed).
    pub(super) fn write_array<E: ArrayEntry>(
        &mut self,
        kind: v1::update::Type,
        entry: &E,
    ) -> Result<()> {
        if kind != v1::update::Type::Modify {
            return Err(invalid(format!("{} entries can only be modified", E::KIND)));
        }
        let id = entry.array_id();
        let array = E::arrays(&self.program)
            .get(&id)
            .ok_or_else(|| not_found(format!("no {} with id {id}", E::KIND)))?;
        let cell = entry.written_cell(array)?;
        for i in indexes(entry.cell_index(), array.size, &array.name)? {
            E::write_cell(&mut self.switch, &array.name, i, &cell).map_err(runtime_error)?;
        }
        Ok(())
    }

    /// The cells `query` names, one entry each, arrays in id order.
    pub(super) fn read_arrays<E: ArrayEntry>(&mut self, query: &E) -> Result<Vec<E>> {
        let arrays = E::arrays(&self.program);
        let mut out = Vec::new();
        for id in selected_ids(arrays, query.array_id(), E::KIND)? {
            let Some(array) = arrays.get(&id) else {
                continue;
            };
            for i in indexes(query.cell_index(), array.size, &array.name)? {
                let cell = E::read_cell(&mut self.switch, &array.name, i).map_err(runtime_error)?;
                out.push(E::read_entry(id, i, cell));
            }
        }
        Ok(out)
    }
}

/// The indexes a counter or register entry names: its index, or every
/// index when it has none (a wildcard read or write).
fn indexes(i: Option<v1::Index>, size: u64, name: &str) -> Result<Vec<u64>> {
    match i {
        Some(i) => Ok(vec![index(i.index, size, name)?]),
        None => Ok((0..size).collect()),
    }
}

/// The ids a read of `kind` entries selects, in order: `id`, or every one
/// when `id` is 0 (a wildcard); an unknown id is `NOT_FOUND`.
fn selected_ids<T>(known: &HashMap<u32, T>, id: u32, kind: &str) -> Result<Vec<u32>> {
    if id == 0 {
        let mut ids: Vec<u32> = known.keys().copied().collect();
        ids.sort_unstable();
        Ok(ids)
    } else if known.contains_key(&id) {
        Ok(vec![id])
    } else {
        Err(not_found(format!("no {kind} with id {id}")))
    }
}

fn index(i: i64, size: u64, name: &str) -> Result<u64> {
    u64::try_from(i).ok().filter(|i| *i < size).ok_or_else(|| {
        UpdateError::new(
            Code::OutOfRange,
            format!("index {i} is out of range for `{name}` (size {size})"),
        )
    })
}
