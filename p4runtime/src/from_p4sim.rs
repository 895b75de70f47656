//! p4sim's P4Info ([`p4sim::p4info::P4Info`], the one generator of ids in
//! the project) as the `p4.config.v1.P4Info` protobuf message (feature
//! `p4sim`): how esa-switch answers `GetForwardingPipelineConfig` and what
//! the controller pushes.
//!
//! The conversion is field for field; nothing is computed here, so the ids
//! and names a client sees are exactly those `esa p4info` prints.

use crate::p4::config::v1 as pb;
use p4sim::p4info as sim;

/// Converts p4sim's P4Info into the protobuf message.
pub fn p4info(info: &sim::P4Info) -> pb::P4Info {
    pb::P4Info {
        // None for a program without `main`, as p4c leaves it unset.
        pkg_info: (!info.arch.is_empty() || !info.pkg_annotations.is_empty()).then(|| {
            pb::PkgInfo {
                arch: info.arch.clone(),
                annotations: info.pkg_annotations.clone(),
                ..Default::default()
            }
        }),
        tables: info.tables.iter().map(table).collect(),
        actions: info.actions.iter().map(action).collect(),
        action_profiles: info
            .action_profiles
            .iter()
            .map(|p| pb::ActionProfile {
                preamble: Some(preamble(&p.preamble)),
                table_ids: p.table_ids.clone(),
                with_selector: p.with_selector,
                size: p.size,
                max_group_size: p.max_group_size,
                selector_size_semantics: p.selector_size_semantics.map(|s| match s {
                    sim::SelectorSizeSemantics::SumOfWeights => {
                        pb::action_profile::SelectorSizeSemantics::SumOfWeights(
                            pb::action_profile::SumOfWeights {},
                        )
                    }
                    sim::SelectorSizeSemantics::SumOfMembers { max_member_weight } => {
                        pb::action_profile::SelectorSizeSemantics::SumOfMembers(
                            pb::action_profile::SumOfMembers { max_member_weight },
                        )
                    }
                }),
                weights_disallowed: false,
            })
            .collect(),
        counters: info
            .counters
            .iter()
            .map(|c| pb::Counter {
                preamble: Some(preamble(&c.preamble)),
                spec: Some(pb::CounterSpec {
                    unit: counter_unit(c.unit) as i32,
                }),
                size: c.size,
                index_type_name: None,
            })
            .collect(),
        direct_counters: info
            .direct_counters
            .iter()
            .map(|c| pb::DirectCounter {
                preamble: Some(preamble(&c.preamble)),
                spec: Some(pb::CounterSpec {
                    unit: counter_unit(c.unit) as i32,
                }),
                direct_table_id: c.direct_table_id,
            })
            .collect(),
        meters: info
            .meters
            .iter()
            .map(|m| pb::Meter {
                preamble: Some(preamble(&m.preamble)),
                spec: Some(pb::MeterSpec {
                    unit: meter_unit(m.unit) as i32,
                    r#type: 0,
                }),
                size: m.size,
                index_type_name: None,
            })
            .collect(),
        direct_meters: info
            .direct_meters
            .iter()
            .map(|m| pb::DirectMeter {
                preamble: Some(preamble(&m.preamble)),
                spec: Some(pb::MeterSpec {
                    unit: meter_unit(m.unit) as i32,
                    r#type: 0,
                }),
                direct_table_id: m.direct_table_id,
            })
            .collect(),
        controller_packet_metadata: info
            .controller_packet_metadata
            .iter()
            .map(|c| pb::ControllerPacketMetadata {
                preamble: Some(preamble(&c.preamble)),
                metadata: c
                    .metadata
                    .iter()
                    .map(|m| pb::controller_packet_metadata::Metadata {
                        id: m.id,
                        name: m.name.clone(),
                        annotations: m.annotations.clone(),
                        bitwidth: width(m.bitwidth),
                        type_name: named(m.type_name.as_deref()),
                        ..Default::default()
                    })
                    .collect(),
            })
            .collect(),
        value_sets: info
            .value_sets
            .iter()
            .map(|v| pb::ValueSet {
                preamble: Some(preamble(&v.preamble)),
                r#match: v.matches.iter().map(match_field).collect(),
                size: v.size,
            })
            .collect(),
        registers: info
            .registers
            .iter()
            .map(|r| pb::Register {
                preamble: Some(preamble(&r.preamble)),
                type_spec: Some(data_type(&r.type_spec)),
                size: i32::try_from(r.size).unwrap_or(i32::MAX),
                index_type_name: None,
            })
            .collect(),
        digests: info
            .digests
            .iter()
            .map(|d| pb::Digest {
                preamble: Some(preamble(&d.preamble)),
                type_spec: Some(data_type(&d.type_spec)),
            })
            .collect(),
        externs: info
            .externs
            .iter()
            .map(|e| pb::Extern {
                extern_type_id: e.type_id,
                extern_type_name: e.type_name.clone(),
                instances: e
                    .instances
                    .iter()
                    .map(|i| pb::ExternInstance {
                        preamble: Some(preamble(&i.preamble)),
                        info: Some(prost_types::Any {
                            type_url: i.type_url.clone(),
                            value: i.value.clone(),
                        }),
                    })
                    .collect(),
            })
            .collect(),
        type_info: info.type_info.as_ref().map(type_info),
    }
}

fn width(bits: u32) -> i32 {
    i32::try_from(bits).unwrap_or(i32::MAX)
}

fn named(name: Option<&str>) -> Option<pb::P4NamedType> {
    name.map(|n| pb::P4NamedType {
        name: n.to_string(),
    })
}

fn preamble(p: &sim::Preamble) -> pb::Preamble {
    pb::Preamble {
        id: p.id,
        name: p.name.clone(),
        alias: p.alias.clone(),
        annotations: p.annotations.clone(),
        ..Default::default()
    }
}

fn match_field(m: &sim::MatchField) -> pb::MatchField {
    pb::MatchField {
        id: m.id,
        name: m.name.clone(),
        annotations: m.annotations.clone(),
        bitwidth: width(m.bitwidth),
        type_name: named(m.type_name.as_deref()),
        r#match: Some(match &m.match_type {
            sim::MatchType::Exact => {
                pb::match_field::Match::MatchType(pb::match_field::MatchType::Exact as i32)
            }
            sim::MatchType::Lpm => {
                pb::match_field::Match::MatchType(pb::match_field::MatchType::Lpm as i32)
            }
            sim::MatchType::Ternary => {
                pb::match_field::Match::MatchType(pb::match_field::MatchType::Ternary as i32)
            }
            sim::MatchType::Range => {
                pb::match_field::Match::MatchType(pb::match_field::MatchType::Range as i32)
            }
            sim::MatchType::Optional => {
                pb::match_field::Match::MatchType(pb::match_field::MatchType::Optional as i32)
            }
            sim::MatchType::Other(name) => pb::match_field::Match::OtherMatchType(name.clone()),
        }),
        ..Default::default()
    }
}

fn table(t: &sim::Table) -> pb::Table {
    pb::Table {
        preamble: Some(preamble(&t.preamble)),
        match_fields: t.match_fields.iter().map(match_field).collect(),
        action_refs: t
            .action_refs
            .iter()
            .map(|a| pb::ActionRef {
                id: a.id,
                scope: match a.scope {
                    sim::ActionScope::TableAndDefault => pb::action_ref::Scope::TableAndDefault,
                    sim::ActionScope::TableOnly => pb::action_ref::Scope::TableOnly,
                    sim::ActionScope::DefaultOnly => pb::action_ref::Scope::DefaultOnly,
                } as i32,
                annotations: a.annotations.clone(),
                ..Default::default()
            })
            .collect(),
        const_default_action_id: t.const_default_action_id,
        initial_default_action: t
            .initial_default_action
            .as_ref()
            .map(|c| pb::TableActionCall {
                action_id: c.action_id,
                arguments: c
                    .arguments
                    .iter()
                    .map(|(id, v)| pb::table_action_call::Argument {
                        param_id: *id,
                        value: v.clone(),
                    })
                    .collect(),
            }),
        implementation_id: t.implementation_id,
        direct_resource_ids: t.direct_resource_ids.clone(),
        size: t.size,
        idle_timeout_behavior: if t.supports_idle_timeout {
            pb::table::IdleTimeoutBehavior::NotifyControl as i32
        } else {
            pb::table::IdleTimeoutBehavior::NoTimeout as i32
        },
        is_const_table: t.is_const_table,
        has_initial_entries: t.has_initial_entries,
        ..Default::default()
    }
}

fn action(a: &sim::Action) -> pb::Action {
    pb::Action {
        preamble: Some(preamble(&a.preamble)),
        params: a
            .params
            .iter()
            .map(|p| pb::action::Param {
                id: p.id,
                name: p.name.clone(),
                annotations: p.annotations.clone(),
                bitwidth: width(p.bitwidth),
                type_name: named(p.type_name.as_deref()),
                ..Default::default()
            })
            .collect(),
    }
}

fn counter_unit(u: sim::CounterUnit) -> pb::counter_spec::Unit {
    match u {
        sim::CounterUnit::Unspecified => pb::counter_spec::Unit::Unspecified,
        sim::CounterUnit::Bytes => pb::counter_spec::Unit::Bytes,
        sim::CounterUnit::Packets => pb::counter_spec::Unit::Packets,
        sim::CounterUnit::Both => pb::counter_spec::Unit::Both,
    }
}

fn meter_unit(u: sim::MeterUnit) -> pb::meter_spec::Unit {
    match u {
        sim::MeterUnit::Unspecified => pb::meter_spec::Unit::Unspecified,
        sim::MeterUnit::Bytes => pb::meter_spec::Unit::Bytes,
        sim::MeterUnit::Packets => pb::meter_spec::Unit::Packets,
    }
}

fn bitstring(spec: &sim::TypeSpec) -> Option<pb::P4BitstringLikeTypeSpec> {
    use pb::p4_bitstring_like_type_spec::TypeSpec as B;
    let t = match spec {
        sim::TypeSpec::Bit(w) => B::Bit(pb::P4BitTypeSpec {
            bitwidth: width(*w),
        }),
        sim::TypeSpec::Int(w) => B::Int(pb::P4IntTypeSpec {
            bitwidth: width(*w),
        }),
        sim::TypeSpec::Varbit(w) => B::Varbit(pb::P4VarbitTypeSpec {
            max_bitwidth: width(*w),
        }),
        _ => return None,
    };
    Some(pb::P4BitstringLikeTypeSpec {
        type_spec: Some(t),
        ..Default::default()
    })
}

fn data_type(spec: &sim::TypeSpec) -> pb::P4DataTypeSpec {
    use pb::p4_data_type_spec::TypeSpec as T;
    let name = |n: &String| pb::P4NamedType { name: n.clone() };
    let t = match spec {
        sim::TypeSpec::Bit(_) | sim::TypeSpec::Int(_) | sim::TypeSpec::Varbit(_) => {
            bitstring(spec).map(T::Bitstring)
        }
        sim::TypeSpec::Bool => Some(T::Bool(pb::P4BoolType {})),
        sim::TypeSpec::Tuple(members) => Some(T::Tuple(pb::P4TupleTypeSpec {
            members: members.iter().map(data_type).collect(),
        })),
        sim::TypeSpec::Struct(n) => Some(T::Struct(name(n))),
        sim::TypeSpec::Header(n) => Some(T::Header(name(n))),
        sim::TypeSpec::HeaderUnion(n) => Some(T::HeaderUnion(name(n))),
        sim::TypeSpec::HeaderStack { header, size } => {
            Some(T::HeaderStack(pb::P4HeaderStackTypeSpec {
                header: Some(name(header)),
                size: i32::try_from(*size).unwrap_or(i32::MAX),
            }))
        }
        sim::TypeSpec::Enum(n) => Some(T::Enum(name(n))),
        sim::TypeSpec::Error => Some(T::Error(pb::P4ErrorType {})),
        sim::TypeSpec::SerializableEnum(n) => Some(T::SerializableEnum(name(n))),
        sim::TypeSpec::NewType(n) => Some(T::NewType(name(n))),
    };
    pb::P4DataTypeSpec { type_spec: t }
}

fn type_info(t: &sim::TypeInfo) -> pb::P4TypeInfo {
    pb::P4TypeInfo {
        structs: t
            .structs
            .iter()
            .map(|(n, members)| {
                (
                    n.clone(),
                    pb::P4StructTypeSpec {
                        members: members
                            .iter()
                            .map(|(m, ty)| pb::p4_struct_type_spec::Member {
                                name: m.clone(),
                                type_spec: Some(data_type(ty)),
                            })
                            .collect(),
                        ..Default::default()
                    },
                )
            })
            .collect(),
        headers: t
            .headers
            .iter()
            .map(|(n, members)| {
                (
                    n.clone(),
                    pb::P4HeaderTypeSpec {
                        members: members
                            .iter()
                            .map(|m| pb::p4_header_type_spec::Member {
                                name: m.name.clone(),
                                type_spec: bitstring(&m.type_spec),
                            })
                            .collect(),
                        ..Default::default()
                    },
                )
            })
            .collect(),
        header_unions: t
            .header_unions
            .iter()
            .map(|(n, members)| {
                (
                    n.clone(),
                    pb::P4HeaderUnionTypeSpec {
                        members: members
                            .iter()
                            .map(|(m, h)| pb::p4_header_union_type_spec::Member {
                                name: m.clone(),
                                header: Some(pb::P4NamedType { name: h.clone() }),
                            })
                            .collect(),
                        ..Default::default()
                    },
                )
            })
            .collect(),
        enums: t
            .enums
            .iter()
            .map(|(n, members)| {
                (
                    n.clone(),
                    pb::P4EnumTypeSpec {
                        members: members
                            .iter()
                            .map(|m| pb::p4_enum_type_spec::Member {
                                name: m.clone(),
                                ..Default::default()
                            })
                            .collect(),
                        ..Default::default()
                    },
                )
            })
            .collect(),
        error: t.error.as_ref().map(|members| pb::P4ErrorTypeSpec {
            members: members.clone(),
        }),
        serializable_enums: t
            .serializable_enums
            .iter()
            .map(|(n, e)| {
                (
                    n.clone(),
                    pb::P4SerializableEnumTypeSpec {
                        underlying_type: Some(pb::P4BitTypeSpec {
                            bitwidth: width(e.underlying_bitwidth),
                        }),
                        members: e
                            .members
                            .iter()
                            .map(|(m, v)| pb::p4_serializable_enum_type_spec::Member {
                                name: m.clone(),
                                value: v.clone(),
                                ..Default::default()
                            })
                            .collect(),
                        ..Default::default()
                    },
                )
            })
            .collect(),
        new_types: t
            .new_types
            .iter()
            .map(|(n, spec)| {
                use pb::p4_new_type_spec::Representation as R;
                let representation = match spec {
                    sim::NewTypeSpec::Original(ty) => R::OriginalType(data_type(ty)),
                    sim::NewTypeSpec::Translated { uri, sdn_bitwidth } => {
                        use pb::p4_new_type_translation::SdnType;
                        R::TranslatedType(pb::P4NewTypeTranslation {
                            uri: uri.clone(),
                            sdn_type: Some(match sdn_bitwidth {
                                Some(w) => SdnType::SdnBitwidth(width(*w)),
                                None => {
                                    SdnType::SdnString(pb::p4_new_type_translation::SdnString {})
                                }
                            }),
                        })
                    }
                };
                (
                    n.clone(),
                    pb::P4NewTypeSpec {
                        representation: Some(representation),
                        ..Default::default()
                    },
                )
            })
            .collect(),
    }
}
