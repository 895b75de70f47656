//! What bf-p4c does differently for a TNA program's P4Info: the ids of
//! tables, counters, meters and registers from pipeline-qualified names
//! ([`ids`]), and the ingress parser's port metadata extern
//! ([`port_metadata`]).

use std::collections::HashMap;

use super::id::{IdAllocator, ResourceType};
use super::model::{ExternInstance, ExternType, P4Info, Preamble};
use super::names::{Res, invalid};
use crate::front::source::Span;

/// bf-p4c (with `--p4runtime-force-std-externs`) names a TNA program's
/// tables, counters, meters and registers without the pipeline, but derives
/// their ids from `<pipe>.<name>` (actions keep their own names): the ids
/// of those objects again, from the prefixed names, with references to
/// table ids rewritten.
pub(super) fn ids(out: &mut P4Info, pipe: &str) -> Res<()> {
    let mut alloc = IdAllocator::new();
    let mut objects: Vec<(ResourceType, String, u32)> = Vec::new();
    {
        let mut add = |ty: ResourceType, p: &Preamble| {
            objects.push((ty, p.name.clone(), p.id));
        };
        for t in &out.tables {
            add(ResourceType::Table, &t.preamble);
        }
        for c in &out.counters {
            add(ResourceType::Counter, &c.preamble);
        }
        for c in &out.direct_counters {
            add(ResourceType::DirectCounter, &c.preamble);
        }
        for m in &out.meters {
            add(ResourceType::Meter, &m.preamble);
        }
        for m in &out.direct_meters {
            add(ResourceType::DirectMeter, &m.preamble);
        }
        for r in &out.registers {
            add(ResourceType::Register, &r.preamble);
        }
    }
    for (ty, name, _) in &objects {
        alloc
            .add(*ty, &format!("{pipe}.{name}"), None)
            .map_err(|e| invalid(e.to_string(), Span::default()))?;
    }
    let ids = alloc
        .assign()
        .map_err(|e| invalid(e.to_string(), Span::default()))?;
    let map: HashMap<u32, u32> = objects
        .iter()
        .map(|(ty, name, old)| {
            (
                *old,
                ids.get(*ty, &format!("{pipe}.{name}")).unwrap_or(*old),
            )
        })
        .collect();
    let fix = |id: &mut u32| {
        if let Some(n) = map.get(id) {
            *id = *n;
        }
    };
    for t in &mut out.tables {
        fix(&mut t.preamble.id);
        t.direct_resource_ids.iter_mut().for_each(fix);
    }
    for c in &mut out.counters {
        fix(&mut c.preamble.id);
    }
    for c in &mut out.direct_counters {
        fix(&mut c.preamble.id);
        fix(&mut c.direct_table_id);
    }
    for m in &mut out.meters {
        fix(&mut m.preamble.id);
    }
    for m in &mut out.direct_meters {
        fix(&mut m.preamble.id);
        fix(&mut m.direct_table_id);
    }
    for r in &mut out.registers {
        fix(&mut r.preamble.id);
    }
    Ok(())
}

/// bf-p4c's extern for the ingress parser's port metadata (type 144),
/// its id from the pipeline-qualified name: `parser` is the ingress
/// parser's type name, `key` the name of its `ingress_intrinsic_metadata_t`
/// parameter.
pub(super) fn port_metadata(pipe: &str, parser: &str, key: &str) -> Res<ExternType> {
    let name = format!("{parser}.$PORT_METADATA");
    let mut alloc = IdAllocator::new();
    let ty = ResourceType::Other(144);
    alloc
        .add(ty, &format!("{pipe}.{name}"), None)
        .map_err(|e| invalid(e.to_string(), Span::default()))?;
    let ids = alloc
        .assign()
        .map_err(|e| invalid(e.to_string(), Span::default()))?;
    Ok(ExternType {
        type_id: 144,
        type_name: "PortMetadata".into(),
        instances: vec![ExternInstance {
            preamble: Preamble {
                id: ids.get(ty, &format!("{pipe}.{name}")).unwrap_or(0),
                alias: "$PORT_METADATA".into(),
                name,
                annotations: Vec::new(),
            },
            type_url: "type.googleapis.com/barefoot.PortMetadata".into(),
            value: format!("{key}.ingress_port").into_bytes(),
        }],
    })
}
