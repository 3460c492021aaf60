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
    /// Its relation; the graph edge's type has the same name (`RelType::from`).
    pub prov: ProvRelation,
}

impl RelSpec {
    /// The type of the graph edge it becomes.
    pub fn rel(&self) -> RelType {
        RelType::from(self.prov)
    }
}

use Kind::{Activity as Act, Agent as Ag, Entity as Ent};

const fn spec(
    name: &'static str,
    roles: &'static [&'static str],
    time: Option<usize>,
    kinds: [Option<Kind>; 2],
    prov: ProvRelation,
) -> RelSpec {
    RelSpec { name, roles, time, identified: true, kinds, prov }
}

const fn component(name: &'static str, roles: &'static [&'static str], prov: ProvRelation) -> RelSpec {
    RelSpec { name, roles, time: None, identified: false, kinds: [Some(Ent), Some(Ent)], prov }
}

/// Every relation PROV-JSON has.
pub static RELATIONS: [RelSpec; 15] = [
    spec(
        "used",
        &["prov:activity", "prov:entity", "prov:time"],
        Some(2),
        [Some(Act), Some(Ent)],
        ProvRelation::Used,
    ),
    spec(
        "wasGeneratedBy",
        &["prov:entity", "prov:activity", "prov:time"],
        Some(2),
        [Some(Ent), Some(Act)],
        ProvRelation::WasGeneratedBy,
    ),
    spec(
        "wasInvalidatedBy",
        &["prov:entity", "prov:activity", "prov:time"],
        Some(2),
        [Some(Ent), Some(Act)],
        ProvRelation::WasInvalidatedBy,
    ),
    spec(
        "wasStartedBy",
        &["prov:activity", "prov:trigger", "prov:starter", "prov:time"],
        Some(3),
        [Some(Act), Some(Ent)],
        ProvRelation::WasStartedBy,
    ),
    spec(
        "wasEndedBy",
        &["prov:activity", "prov:trigger", "prov:ender", "prov:time"],
        Some(3),
        [Some(Act), Some(Ent)],
        ProvRelation::WasEndedBy,
    ),
    spec(
        "wasInformedBy",
        &["prov:informed", "prov:informant"],
        None,
        [Some(Act), Some(Act)],
        ProvRelation::WasInformedBy,
    ),
    spec(
        "wasAssociatedWith",
        &["prov:activity", "prov:agent", "prov:plan"],
        None,
        [Some(Act), Some(Ag)],
        ProvRelation::WasAssociatedWith,
    ),
    spec(
        "wasAttributedTo",
        &["prov:entity", "prov:agent"],
        None,
        [Some(Ent), Some(Ag)],
        ProvRelation::WasAttributedTo,
    ),
    spec(
        "actedOnBehalfOf",
        &["prov:delegate", "prov:responsible", "prov:activity"],
        None,
        [Some(Ag), Some(Ag)],
        ProvRelation::ActedOnBehalfOf,
    ),
    spec(
        "wasDerivedFrom",
        &["prov:generatedEntity", "prov:usedEntity", "prov:activity", "prov:generation", "prov:usage"],
        None,
        [Some(Ent), Some(Ent)],
        ProvRelation::WasDerivedFrom,
    ),
    spec(
        "wasInfluencedBy",
        &["prov:influencee", "prov:influencer"],
        None,
        [None, None],
        ProvRelation::WasInfluencedBy,
    ),
    component(
        "specializationOf",
        &["prov:specificEntity", "prov:generalEntity"],
        ProvRelation::SpecializationOf,
    ),
    component("alternateOf", &["prov:alternate1", "prov:alternate2"], ProvRelation::AlternateOf),
    component("hadMember", &["prov:collection", "prov:entity"], ProvRelation::HadMember),
    component(
        "mentionOf",
        &["prov:specificEntity", "prov:generalEntity", "prov:bundle"],
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
