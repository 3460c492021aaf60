//! The W3C PROV relations (PROV-DM): each one's PROV-JSON section, its arguments in PROV-N
//! order (the first two are its ends, which become a graph edge from the first to the
//! second), the kinds of record those ends are, and the edge's type in the graph.

use super::terms::Kind;
use crate::model::{ProvRelation, RelType};

/// One PROV relation.
#[derive(Debug, PartialEq, Eq)]
pub struct RelSpec {
    /// The PROV-JSON section and PROV-N name (`used`): its relation's PROV-DM name.
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
    /// Its relation; the graph edge's type has the same name (`ProvRelation::rel_type`).
    pub prov: ProvRelation,
}

impl RelSpec {
    /// The type of the graph edge it becomes.
    pub fn rel(&self) -> RelType {
        self.prov.rel_type()
    }
}

use Kind::{Activity as Act, Agent as Ag, Entity as Ent};

const fn spec(
    roles: &'static [&'static str],
    time: Option<usize>,
    kinds: [Option<Kind>; 2],
    prov: ProvRelation,
) -> RelSpec {
    RelSpec { name: prov.prov_name(), roles, time, identified: true, kinds, prov }
}

const fn component(roles: &'static [&'static str], prov: ProvRelation) -> RelSpec {
    RelSpec {
        name: prov.prov_name(),
        roles,
        time: None,
        identified: false,
        kinds: [Some(Ent), Some(Ent)],
        prov,
    }
}

/// Every relation PROV-JSON has, each once, in the order the import reads their sections.
pub static RELATIONS: [RelSpec; 15] = [
    spec(&["prov:activity", "prov:entity", "prov:time"], Some(2), [Some(Act), Some(Ent)], ProvRelation::Used),
    spec(
        &["prov:entity", "prov:activity", "prov:time"],
        Some(2),
        [Some(Ent), Some(Act)],
        ProvRelation::WasGeneratedBy,
    ),
    spec(
        &["prov:entity", "prov:activity", "prov:time"],
        Some(2),
        [Some(Ent), Some(Act)],
        ProvRelation::WasInvalidatedBy,
    ),
    spec(
        &["prov:activity", "prov:trigger", "prov:starter", "prov:time"],
        Some(3),
        [Some(Act), Some(Ent)],
        ProvRelation::WasStartedBy,
    ),
    spec(
        &["prov:activity", "prov:trigger", "prov:ender", "prov:time"],
        Some(3),
        [Some(Act), Some(Ent)],
        ProvRelation::WasEndedBy,
    ),
    spec(&["prov:informed", "prov:informant"], None, [Some(Act), Some(Act)], ProvRelation::WasInformedBy),
    spec(
        &["prov:activity", "prov:agent", "prov:plan"],
        None,
        [Some(Act), Some(Ag)],
        ProvRelation::WasAssociatedWith,
    ),
    spec(&["prov:entity", "prov:agent"], None, [Some(Ent), Some(Ag)], ProvRelation::WasAttributedTo),
    spec(
        &["prov:delegate", "prov:responsible", "prov:activity"],
        None,
        [Some(Ag), Some(Ag)],
        ProvRelation::ActedOnBehalfOf,
    ),
    spec(
        &["prov:generatedEntity", "prov:usedEntity", "prov:activity", "prov:generation", "prov:usage"],
        None,
        [Some(Ent), Some(Ent)],
        ProvRelation::WasDerivedFrom,
    ),
    spec(&["prov:influencee", "prov:influencer"], None, [None, None], ProvRelation::WasInfluencedBy),
    component(&["prov:specificEntity", "prov:generalEntity"], ProvRelation::SpecializationOf),
    component(&["prov:alternate1", "prov:alternate2"], ProvRelation::AlternateOf),
    component(&["prov:collection", "prov:entity"], ProvRelation::HadMember),
    component(&["prov:specificEntity", "prov:generalEntity", "prov:bundle"], ProvRelation::MentionOf),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_holds_every_prov_relation_once_by_its_prov_dm_name() {
        for &p in ProvRelation::ALL {
            let specs: Vec<_> = RELATIONS.iter().filter(|r| r.prov == p).collect();
            assert_eq!(specs.len(), 1, "{p}");
            assert_eq!(by_name(p.prov_name()), Some(specs[0]));
            assert_eq!(by_prov(p.as_str()), Some(specs[0]));
            assert_eq!(specs[0].rel().as_str(), p.as_str());
        }
        let names: Vec<_> = RELATIONS.iter().map(|r| r.name).collect();
        assert_eq!(names[..3], ["used", "wasGeneratedBy", "wasInvalidatedBy"]);
        assert_eq!(influence().name, "wasInfluencedBy");
    }
}
