//! The W3C PROV relations (PROV-DM): each one's PROV-JSON section, its arguments in PROV-N
//! order (the first two are its ends, which become a graph edge from the first to the
//! second), the kinds of record those ends are, and the edge's type in the graph.

use super::terms::Kind;
use crate::model::{ProvRelation, RelType};

/// One PROV relation.
#[derive(Debug, PartialEq, Eq)]
pub struct RelSpec {
    /// The PROV-JSON section and PROV-N name (`used`).
    pub name: &'static str,
    /// Its arguments in PROV-N order, by their PROV-JSON names.
    pub roles: &'static [&'static str],
    /// Which of its arguments is a time (written bare in PROV-N, not a name).
    pub time: Option<usize>,
    /// Whether PROV-N gives it an identifier and attributes (not the four "component"
    /// relations: specializationOf, alternateOf, hadMember, mentionOf).
    pub identified: bool,
    /// The kinds of record its two ends are (none: any).
    pub kinds: [Option<Kind>; 2],
    pub rel: RelType,
    pub prov: ProvRelation,
}

use Kind::{Activity as Act, Agent as Ag, Entity as Ent};

const fn spec(
    name: &'static str,
    roles: &'static [&'static str],
    time: Option<usize>,
    kinds: [Option<Kind>; 2],
    rel: RelType,
    prov: ProvRelation,
) -> RelSpec {
    RelSpec { name, roles, time, identified: true, kinds, rel, prov }
}

const fn component(
    name: &'static str,
    roles: &'static [&'static str],
    rel: RelType,
    prov: ProvRelation,
) -> RelSpec {
    RelSpec { name, roles, time: None, identified: false, kinds: [Some(Ent), Some(Ent)], rel, prov }
}

/// Every relation PROV-JSON has.
pub static RELATIONS: [RelSpec; 15] = [
    spec(
        "used",
        &["prov:activity", "prov:entity", "prov:time"],
        Some(2),
        [Some(Act), Some(Ent)],
        RelType::Used,
        ProvRelation::Used,
    ),
    spec(
        "wasGeneratedBy",
        &["prov:entity", "prov:activity", "prov:time"],
        Some(2),
        [Some(Ent), Some(Act)],
        RelType::WasGeneratedBy,
        ProvRelation::WasGeneratedBy,
    ),
    spec(
        "wasInvalidatedBy",
        &["prov:entity", "prov:activity", "prov:time"],
        Some(2),
        [Some(Ent), Some(Act)],
        RelType::WasInvalidatedBy,
        ProvRelation::WasInvalidatedBy,
    ),
    spec(
        "wasStartedBy",
        &["prov:activity", "prov:trigger", "prov:starter", "prov:time"],
        Some(3),
        [Some(Act), Some(Ent)],
        RelType::WasStartedBy,
        ProvRelation::WasStartedBy,
    ),
    spec(
        "wasEndedBy",
        &["prov:activity", "prov:trigger", "prov:ender", "prov:time"],
        Some(3),
        [Some(Act), Some(Ent)],
        RelType::WasEndedBy,
        ProvRelation::WasEndedBy,
    ),
    spec(
        "wasInformedBy",
        &["prov:informed", "prov:informant"],
        None,
        [Some(Act), Some(Act)],
        RelType::WasInformedBy,
        ProvRelation::WasInformedBy,
    ),
    spec(
        "wasAssociatedWith",
        &["prov:activity", "prov:agent", "prov:plan"],
        None,
        [Some(Act), Some(Ag)],
        RelType::WasAssociatedWith,
        ProvRelation::WasAssociatedWith,
    ),
    spec(
        "wasAttributedTo",
        &["prov:entity", "prov:agent"],
        None,
        [Some(Ent), Some(Ag)],
        RelType::WasAttributedTo,
        ProvRelation::WasAttributedTo,
    ),
    spec(
        "actedOnBehalfOf",
        &["prov:delegate", "prov:responsible", "prov:activity"],
        None,
        [Some(Ag), Some(Ag)],
        RelType::ActedOnBehalfOf,
        ProvRelation::ActedOnBehalfOf,
    ),
    spec(
        "wasDerivedFrom",
        &["prov:generatedEntity", "prov:usedEntity", "prov:activity", "prov:generation", "prov:usage"],
        None,
        [Some(Ent), Some(Ent)],
        RelType::WasDerivedFrom,
        ProvRelation::WasDerivedFrom,
    ),
    spec(
        "wasInfluencedBy",
        &["prov:influencee", "prov:influencer"],
        None,
        [None, None],
        RelType::WasInfluencedBy,
        ProvRelation::WasInfluencedBy,
    ),
    component(
        "specializationOf",
        &["prov:specificEntity", "prov:generalEntity"],
        RelType::SpecializationOf,
        ProvRelation::SpecializationOf,
    ),
    component(
        "alternateOf",
        &["prov:alternate1", "prov:alternate2"],
        RelType::AlternateOf,
        ProvRelation::AlternateOf,
    ),
    component("hadMember", &["prov:collection", "prov:entity"], RelType::HadMember, ProvRelation::HadMember),
    component(
        "mentionOf",
        &["prov:specificEntity", "prov:generalEntity", "prov:bundle"],
        RelType::MentionOf,
        ProvRelation::MentionOf,
    ),
];

/// The relation with this PROV-JSON section name.
pub fn by_name(name: &str) -> Option<&'static RelSpec> {
    RELATIONS.iter().find(|r| r.name == name)
}

/// The relation a graph edge's `prov:base_type` stands for.
pub fn by_prov(prov: &str) -> Option<&'static RelSpec> {
    RELATIONS.iter().find(|r| r.prov.as_str() == prov)
}

/// `wasInfluencedBy`: what an edge with no PROV relation (or ends that do not fit its
/// relation) is written as.
pub fn influence() -> &'static RelSpec {
    by_name("wasInfluencedBy").expect("in the table")
}
