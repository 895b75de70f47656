//! P4Runtime entities on a p4sim [`V1Switch`]: the translation of
//! `Write` updates and `Read` queries into p4sim's control-plane API, with
//! the validation and error codes the P4Runtime specification asks for.
//!
//! Everything here is synchronous and holds no lock; the server wraps a
//! [`Device`] in a mutex shared with the packet thread.
//!
//! [`Device`] and the dispatch of each entity are here; the entities are
//! handled by kind:
//! - `tables`: table entries and default entries;
//! - `counters`: direct counters (a cell per table entry);
//! - `arrays`: indexed counters and registers, one path for both;
//! - `pre`: the packet replication engine (multicast groups, clone
//!   sessions);
//! - `error`: [`UpdateError`] and the mapping of p4sim's errors to codes.

mod arrays;
mod counters;
mod error;
mod pre;
mod tables;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use p4runtime_proto::p4::v1;
use p4runtime_proto::p4::v1::entity;
use p4sim::v1switch::{OutputPacket, V1Switch};

pub use error::UpdateError;
use error::{Result, invalid, unimplemented};
use pre::Group;
use tables::Stored;

use crate::program::Program;

/// A switch running a program, with the P4Runtime view of its state.
#[derive(Debug)]
pub struct Device {
    program: Arc<Program>,
    switch: V1Switch,
    /// Entries per table id, by encoded key (match and priority).
    entries: HashMap<u32, BTreeMap<Vec<u8>, Stored>>,
    /// Default entries the control plane set, by table id.
    defaults: HashMap<u32, v1::TableEntry>,
    groups: BTreeMap<u32, Group<v1::MulticastGroupEntry>>,
    clones: BTreeMap<u32, Group<v1::CloneSessionEntry>>,
}

impl Device {
    /// A fresh switch running `program`: empty tables, zeroed state. When
    /// the program is one `esa_p4` generated Rust for (esa.p4 at its
    /// built configurations), that code runs it; anything else runs on
    /// p4sim's closure engine, with the same results.
    pub fn new(program: Arc<Program>) -> Device {
        esa_p4::register();
        let switch = V1Switch::new(program.compiled.clone());
        tracing::debug!(engine = ?switch.engine(), "pipeline ready");
        Device {
            program,
            switch,
            entries: HashMap::new(),
            defaults: HashMap::new(),
            groups: BTreeMap::new(),
            clones: BTreeMap::new(),
        }
    }

    /// The program.
    pub fn program(&self) -> &Arc<Program> {
        &self.program
    }

    /// The p4sim switch (for tests and tools that bypass P4Runtime).
    pub fn switch_mut(&mut self) -> &mut V1Switch {
        &mut self.switch
    }

    /// Runs one packet through the pipeline at time `now_us`, appending
    /// the packets it sends to `out`.
    pub fn process(&mut self, now_us: u64, port: u16, data: &[u8], out: &mut Vec<OutputPacket>) {
        self.switch.set_time_us(now_us);
        self.switch.process_append(port, data, out);
    }

    /// As [`Device::process`], the packets sent taking their buffers from
    /// `spare` rather than being copied into new ones
    /// ([`V1Switch::process_append_reusing`]).
    pub fn process_reusing(
        &mut self,
        now_us: u64,
        port: u16,
        data: &[u8],
        out: &mut Vec<OutputPacket>,
        spare: &mut Vec<Vec<u8>>,
    ) {
        self.switch.set_time_us(now_us);
        self.switch.process_append_reusing(port, data, out, spare);
    }

    /// Applies one update of a `Write`.
    pub fn write(&mut self, kind: v1::update::Type, entity: &v1::Entity) -> Result<()> {
        use v1::update::Type;
        if kind == Type::Unspecified {
            return Err(invalid("update type is UNSPECIFIED"));
        }
        match &entity.entity {
            None => Err(invalid("update without an entity")),
            Some(entity::Entity::TableEntry(t)) => {
                if t.is_default_action {
                    self.write_default(kind, t)
                } else {
                    self.write_entry(kind, t)
                }
            }
            Some(entity::Entity::PacketReplicationEngineEntry(p)) => self.write_pre(kind, p),
            Some(entity::Entity::CounterEntry(c)) => self.write_array(kind, c),
            Some(entity::Entity::DirectCounterEntry(c)) => self.write_direct_counter(kind, c),
            Some(entity::Entity::RegisterEntry(r)) => self.write_array(kind, r),
            Some(other) => Err(unimplemented(format!(
                "{} is not supported by esa-switch",
                entity_name(other)
            ))),
        }
    }

    /// Answers one entity of a `Read` (wildcards expanded).
    pub fn read(&mut self, entity: &v1::Entity) -> Result<Vec<v1::Entity>> {
        use entity::Entity;
        match &entity.entity {
            None => Err(invalid("read of an empty entity")),
            Some(Entity::TableEntry(t)) => Ok(entities(self.read_entries(t)?, Entity::TableEntry)),
            Some(Entity::PacketReplicationEngineEntry(p)) => Ok(entities(
                self.read_pre(p)?,
                Entity::PacketReplicationEngineEntry,
            )),
            Some(Entity::CounterEntry(c)) => {
                Ok(entities(self.read_arrays(c)?, Entity::CounterEntry))
            }
            Some(Entity::DirectCounterEntry(c)) => Ok(entities(
                self.read_direct_counters(c)?,
                Entity::DirectCounterEntry,
            )),
            Some(Entity::RegisterEntry(r)) => {
                Ok(entities(self.read_arrays(r)?, Entity::RegisterEntry))
            }
            Some(other) => Err(unimplemented(format!(
                "{} is not supported by esa-switch",
                entity_name(other)
            ))),
        }
    }
}

/// Entries read, each as the entity `kind` wraps it in.
fn entities<T>(entries: Vec<T>, kind: fn(T) -> entity::Entity) -> Vec<v1::Entity> {
    entries
        .into_iter()
        .map(|e| v1::Entity {
            entity: Some(kind(e)),
        })
        .collect()
}

fn entity_name(e: &entity::Entity) -> &'static str {
    match e {
        entity::Entity::ExternEntry(_) => "ExternEntry",
        entity::Entity::TableEntry(_) => "TableEntry",
        entity::Entity::ActionProfileMember(_) => "ActionProfileMember",
        entity::Entity::ActionProfileGroup(_) => "ActionProfileGroup",
        entity::Entity::MeterEntry(_) => "MeterEntry",
        entity::Entity::DirectMeterEntry(_) => "DirectMeterEntry",
        entity::Entity::CounterEntry(_) => "CounterEntry",
        entity::Entity::DirectCounterEntry(_) => "DirectCounterEntry",
        entity::Entity::PacketReplicationEngineEntry(_) => "PacketReplicationEngineEntry",
        entity::Entity::ValueSetEntry(_) => "ValueSetEntry",
        entity::Entity::RegisterEntry(_) => "RegisterEntry",
        entity::Entity::DigestEntry(_) => "DigestEntry",
    }
}
