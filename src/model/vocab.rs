//! The vocabulary (node labels, PROV base types, relation names) as Rust types, so that
//! labels and relationship types reach Cypher only from here and never from input text.

use serde::{Deserialize, Serialize};

macro_rules! str_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident { $( $(#[$vmeta:meta])* $variant:ident => $text:literal ),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub enum $name {
            $( $(#[$vmeta])* #[serde(rename = $text)] $variant ),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[ $( $name::$variant ),+ ];

            /// The exact text stored in FalkorDB.
            pub const fn as_str(self) -> &'static str {
                match self { $( $name::$variant => $text ),+ }
            }

            /// Parses the stored text back; `None` for text outside the vocabulary.
            pub fn parse(text: &str) -> Option<Self> {
                match text { $( $text => Some($name::$variant), )+ _ => None }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

/// Defines [`RelType`] (every relationship type, in the table's order) and [`ProvRelation`]
/// (the types marked `as prov "<PROV-DM name>"`, in the same order) from one table, so that
/// the stored name of each W3C PROV relation is written once and a relation cannot be in one
/// enum and missing from the other.
macro_rules! relationship_types {
    (
        $(#[$meta:meta])*
        pub enum RelType {
            $( $(#[$vmeta:meta])* $variant:ident => $text:literal $(as prov $dm:literal)? ),+ $(,)?
        }

        $(#[$pmeta:meta])*
        pub enum ProvRelation;
    ) => {
        str_enum! {
            $(#[$meta])*
            pub enum RelType { $( $(#[$vmeta])* $variant => $text ),+ }
        }

        str_enum! {
            $(#[$pmeta])*
            pub enum ProvRelation {
                $( $( #[doc = concat!("PROV-DM `", $dm, "`.")] $variant => $text, )? )+
            }
        }

        /// Each [`ProvRelation`]'s relationship type and PROV-DM name, in its order.
        const PROV_RELATIONS: &[(RelType, &str)] = &[ $( $( (RelType::$variant, $dm), )? )+ ];
    };
}

str_enum! {
    /// The W3C PROV kind of a node, stored as `prov:base_type`.
    pub enum BaseType {
        Entity => "ProvEntity",
        Activity => "ProvActivity",
        Agent => "ProvAgent",
    }
}

str_enum! {
    /// Node labels. A2A runtime labels are the `prov:type` without `a2a:`.
    pub enum Label {
        LlmCall => "LlmCall",
        LlmPrompt => "LlmPrompt",
        ToolCall => "ToolCall",
        ToolArgs => "ToolArgs",
        A2ATask => "A2ATask",
        A2ATaskExecution => "A2ATaskExecution",
        A2ATaskState => "A2ATaskState",
        Artifact => "Artifact",
        Message => "Message",
        A2AMessageProcessing => "A2AMessageProcessing",
        AgentRuntimeInstance => "AgentRuntimeInstance",
        AgentBoot => "AgentBoot",
        AgentArchive => "AgentArchive",
        /// A2AP: a software agent that signs statements and verifications.
        Agent => "Agent",
        /// A2AP: a signed provenance statement (a claim with evidence).
        Statement => "Statement",
        /// A2AP: an evidence segment, a byte range of a source document.
        Chunk => "Chunk",
        /// A2AP: a source document (for example a meeting transcript).
        Document => "Document",
        /// A2AP: where a document comes from (a recording, an archive).
        Source => "Source",
        /// A2AP: one agent's signed verification of a statement.
        Verification => "Verification",
        /// W3C PROV (imported PROV-JSON): an entity record. PROV agents are `Agent`.
        Entity => "Entity",
        /// W3C PROV: an activity record.
        Activity => "Activity",
        /// W3C PROV: a bundle (a named set of PROV records; its records name it).
        Bundle => "Bundle",
        /// W3C PROV: the prefixes an imported document (or bundle) declares.
        Namespaces => "Namespaces",
        /// An audit bundle opened as a graph (`provex bundle`): the graph is read-only.
        AuditBundle => "AuditBundle",
        /// Prompt lineage: a tracked prompt, `prompt:<id>`.
        Prompt => "Prompt",
        /// Prompt lineage: the agent's decision that tracked a prompt, `decision:<event_id>`.
        LineageDecision => "LineageDecision",
        /// Prompt lineage: a record refused by the graph constraints, kept for `lineage stats`.
        LineageReject => "LineageReject",
        /// Query-time provenance (TrustGraph's explainability): a node named by its
        /// IRI. Its TrustGraph types are further labels ([`TgType`]); its PROV kind comes from
        /// its `rdf:type` (`prov:Entity`, …), not from this label.
        Explain => "Explain",
        /// TrustGraph: a thought, observation, answer or error message of a session's dialog,
        /// `<session IRI>#<n>`, kept beside the DAG.
        DialogMessage => "DialogMessage",
        /// Knowledge-graph statements (docs/FORMATS.md, "Knowledge-graph statements"): one triple in one named
        /// graph, `kg:<sha256>`, with certainty and provenance.
        KGStatement => "KGStatement",
        /// A resource a knowledge-graph statement names as its subject or object.
        KGResource => "KGResource",
        /// A `knowledge/update`: who proposed it, why, and its verification status.
        KnowledgeUpdate => "KnowledgeUpdate",
        /// OpenTelemetry traces (docs/FORMATS.md, "OpenTelemetry traces"): a span that is none
        /// of the kinds below, or a parent not seen yet (a placeholder), `otel:<trace>:<span>`.
        Span => "Span",
        /// OpenTelemetry: a span invoking, creating or running an agent or workflow.
        AgentInvocation => "AgentInvocation",
        /// OpenTelemetry: a retrieval or reranking span.
        Retrieval => "Retrieval",
        /// OpenTelemetry: an embeddings span.
        Embedding => "Embedding",
        /// OpenTelemetry: an evaluator or guardrail span.
        Evaluation => "Evaluation",
        /// OpenTelemetry: the service (resource) that emitted spans.
        Service => "Service",
        /// OpenTelemetry: a tool call's result, named by its content hash.
        ToolResult => "ToolResult",
    }
}

impl Label {
    /// The PROV kind of nodes with this label.
    pub const fn base_type(self) -> BaseType {
        use Label::*;
        match self {
            LlmCall | ToolCall | A2ATaskExecution | A2AMessageProcessing | AgentBoot => BaseType::Activity,
            AgentRuntimeInstance => BaseType::Agent,
            LlmPrompt | ToolArgs | A2ATask | A2ATaskState | Artifact | Message | AgentArchive => {
                BaseType::Entity
            }
            // A2AP: a verification is something an agent did (an activity); the
            // statement, its evidence chunks, documents and sources are things (entities).
            Agent => BaseType::Agent,
            Verification => BaseType::Activity,
            Statement | Chunk | Document | Source => BaseType::Entity,
            Activity => BaseType::Activity,
            Entity | Bundle | Namespaces | AuditBundle => BaseType::Entity,
            Prompt | LineageReject | Explain | DialogMessage => BaseType::Entity,
            LineageDecision => BaseType::Activity,
            KGStatement | KGResource => BaseType::Entity,
            KnowledgeUpdate => BaseType::Activity,
            Span | AgentInvocation | Retrieval | Embedding | Evaluation => BaseType::Activity,
            Service => BaseType::Agent,
            ToolResult => BaseType::Entity,
        }
    }

    /// The label whose `prov:type` this is.
    pub fn from_prov_type(prov_type: &str) -> Option<Label> {
        let label = match prov_type.split_once(':') {
            Some(("prov", "SoftwareAgent")) => Label::Agent,
            Some(("prov", rest @ ("Entity" | "Activity" | "Bundle"))) => Label::parse(rest)?,
            Some(("provex", "Namespaces")) => Label::Namespaces,
            Some(("a2a" | "a2ap" | "lineage" | "tg" | "kg" | "otel", rest)) => Label::parse(rest)?,
            _ => return None,
        };
        (label.prov_type() == prov_type).then_some(label)
    }

    /// The namespaced `prov:type` stored on the node: `a2a:<Label>` for the A2A runtime
    /// labels, `a2ap:<Label>` for A2AP, and `prov:SoftwareAgent` for A2AP agents (the
    /// `@type` of their records).
    pub fn prov_type(self) -> String {
        use Label::*;
        match self {
            Agent => "prov:SoftwareAgent".to_owned(),
            Statement | Chunk | Document | Source | Verification => {
                format!("a2ap:{}", self.as_str())
            }
            Entity | Activity | Bundle => format!("prov:{}", self.as_str()),
            Namespaces => "provex:Namespaces".to_owned(),
            AuditBundle => "provex:AuditBundle".to_owned(),
            Prompt | LineageDecision | LineageReject => format!("lineage:{}", self.as_str()),
            Explain | DialogMessage => format!("tg:{}", self.as_str()),
            KGStatement | KGResource | KnowledgeUpdate => format!("kg:{}", self.as_str()),
            Span | AgentInvocation | Retrieval | Embedding | Evaluation | Service | ToolResult => {
                format!("otel:{}", self.as_str())
            }
            _ => format!("a2a:{}", self.as_str()),
        }
    }
}

str_enum! {
    /// Relations derived from the A2A domain (A2A runtime events), stored as the edge's `a2a:relation`.
    pub enum A2aRelation {
        TaskCall => "A2A_TASK_CALL",
        MessageCall => "A2A_MESSAGE_CALL",
        TaskMessage => "A2A_TASK_MESSAGE",
        TaskArtifact => "A2A_TASK_ARTIFACT",
        TaskStatusTransition => "A2A_TASK_STATUS_TRANSITION",
    }
}

relationship_types! {
    /// Relationship types: the semantic, past-tense passive labels of the A2A runtime events,
    /// the relations of the other sources, and the W3C PROV relations (marked `as prov`).
    pub enum RelType {
        WasUsedBy => "WAS_USED_BY",
        WasConsumedBy => "WAS_CONSUMED_BY",
        WasReceivedBy => "WAS_RECEIVED_BY",
        WasSpawnedBy => "WAS_SPAWNED_BY",
        WasUpdatedBy => "WAS_UPDATED_BY",
        WasBootstrappedBy => "WAS_BOOTSTRAPPED_BY",
        WasEmittedBy => "WAS_EMITTED_BY",
        WasGeneratedBy => "WAS_GENERATED_BY" as prov "wasGeneratedBy",
        WasCreatedBy => "WAS_CREATED_BY",
        WasExecutedBy => "WAS_EXECUTED_BY",
        WasInvokedBy => "WAS_INVOKED_BY",
        WasCalledBy => "WAS_CALLED_BY",
        WasTransitionedFrom => "WAS_TRANSITIONED_FROM",
        WasTransitionedTo => "WAS_TRANSITIONED_TO",
        // A2AP. Their PROV relation, where one exists, is given by
        // `RelType::a2ap_kind`.
        Generated => "GENERATED",
        Cites => "CITES",
        Supports => "SUPPORTS",
        Contradicts => "CONTRADICTS",
        RequestedVerification => "REQUESTED_VERIFICATION",
        Verified => "VERIFIED",
        Challenged => "CHALLENGED",
        Validates => "VALIDATES",
        PerformedBy => "PERFORMED_BY",
        PartOf => "PART_OF",
        SourcedFrom => "SOURCED_FROM",
        // W3C PROV relations of imported documents (`WAS_GENERATED_BY` is above), named as
        // PROV-DM names them.
        Used => "USED" as prov "used",
        WasDerivedFrom => "WAS_DERIVED_FROM" as prov "wasDerivedFrom",
        WasAssociatedWith => "WAS_ASSOCIATED_WITH" as prov "wasAssociatedWith",
        WasAttributedTo => "WAS_ATTRIBUTED_TO" as prov "wasAttributedTo",
        WasInformedBy => "WAS_INFORMED_BY" as prov "wasInformedBy",
        ActedOnBehalfOf => "ACTED_ON_BEHALF_OF" as prov "actedOnBehalfOf",
        WasStartedBy => "WAS_STARTED_BY" as prov "wasStartedBy",
        WasEndedBy => "WAS_ENDED_BY" as prov "wasEndedBy",
        WasInvalidatedBy => "WAS_INVALIDATED_BY" as prov "wasInvalidatedBy",
        SpecializationOf => "SPECIALIZATION_OF" as prov "specializationOf",
        AlternateOf => "ALTERNATE_OF" as prov "alternateOf",
        HadMember => "HAD_MEMBER" as prov "hadMember",
        WasInfluencedBy => "WAS_INFLUENCED_BY" as prov "wasInfluencedBy",
        MentionOf => "MENTION_OF" as prov "mentionOf",
        // Prompt lineage (docs/FORMATS.md, "Prompt lineage"): child → parent by evolution type; their
        // PROV relation is `WAS_DERIVED_FROM` (and `WAS_DERIVED_FROM` itself for derives).
        WasEvolvedFrom => "WAS_EVOLVED_FROM",
        WasRefinedFrom => "WAS_REFINED_FROM",
        WasMergedFrom => "WAS_MERGED_FROM",
        WasForkedFrom => "WAS_FORKED_FROM",
        WasRevertedFrom => "WAS_REVERTED_FROM",
        // TrustGraph explainability (docs/FORMATS.md, "TrustGraph query-time provenance"): IRI-valued predicates other than PROV's,
        // by a fixed table (`trustgraph::explain`); the predicate's IRI stays on the edge.
        HasThought => "HAS_THOUGHT",
        SelectedEdge => "SELECTED_EDGE",
        SelectedChunk => "SELECTED_CHUNK",
        HasDocument => "HAS_DOCUMENT",
        Contains => "CONTAINS",
        Explored => "EXPLORED",
        Retrieved => "RETRIEVED",
        RefersTo => "REFERS_TO",
        InSession => "IN_SESSION",
        // Knowledge-graph statements (docs/FORMATS.md, "Knowledge-graph statements"): a statement's subject and object
        // resources. Predicates are data on the statement, never relationship types.
        HasSubject => "HAS_SUBJECT",
        HasObject => "HAS_OBJECT",
    }

    /// The W3C PROV relation an edge stands for, stored as the edge's `prov:base_type`: the
    /// relationship types above marked `as prov`, by the same names, in the same order.
    pub enum ProvRelation;
}

str_enum! {
    /// The TrustGraph types (`https://trustgraph.ai/ns/…`) and the TrustGraph design note's node types that
    /// become labels of an `Explain` node besides its own (docs/FORMATS.md, "TrustGraph query-time provenance"). Only these: a
    /// label never comes from input text.
    pub enum TgType {
        Question => "Question",
        AgentQuestion => "AgentQuestion",
        GraphRagQuestion => "GraphRagQuestion",
        DocRagQuestion => "DocRagQuestion",
        Grounding => "Grounding",
        Exploration => "Exploration",
        Focus => "Focus",
        Synthesis => "Synthesis",
        Analysis => "Analysis",
        ToolUse => "ToolUse",
        Conclusion => "Conclusion",
        Answer => "Answer",
        Reflection => "Reflection",
        Thought => "Thought",
        Observation => "Observation",
        Error => "Error",
        Decomposition => "Decomposition",
        Finding => "Finding",
        Plan => "Plan",
        StepResult => "StepResult",
        PatternDecision => "PatternDecision",
        EdgeSelection => "EdgeSelection",
        ChunkSelection => "ChunkSelection",
        Document => "Document",
        Page => "Page",
        Section => "Section",
        Chunk => "Chunk",
        Image => "Image",
        Subgraph => "Subgraph",
        Retrieval => "Retrieval",
        ToolInvocation => "ToolInvocation",
        Reasoning => "Reasoning",
        Fact => "Fact",
    }
}

/// The node property that lists a node's further labels ([`TgType`] names); the store sets
/// them as labels after the node's upsert.
pub const EXTRA_LABELS: &str = "provex:labels";

impl ProvRelation {
    /// The edge type of a W3C PROV relation: the same name (`USED` is both).
    pub const fn rel_type(self) -> RelType {
        PROV_RELATIONS[self as usize].0
    }

    /// Its name in PROV-DM, PROV-N and PROV-JSON (`used`, `wasGeneratedBy`).
    pub const fn prov_name(self) -> &'static str {
        PROV_RELATIONS[self as usize].1
    }
}

impl From<ProvRelation> for RelType {
    /// [`ProvRelation::rel_type`].
    fn from(prov: ProvRelation) -> RelType {
        prov.rel_type()
    }
}

impl RelType {
    /// The edge kind of the A2AP relationship types (A2AP): the PROV relation the edge
    /// stands for where one exists, else [`EdgeKind::Plain`]. `None` for the A2A runtime
    /// types, whose kind depends on the event that made them.
    ///
    /// - `GENERATED` (Agent → Statement): `WAS_ATTRIBUTED_TO` (the statement is attributed to
    ///   the agent; the edge points the semantic way, as the runtime events' edges do).
    /// - `CITES` (Statement → Chunk), `PART_OF` (Chunk → Document), `SOURCED_FROM`
    ///   (Document → Source): `WAS_DERIVED_FROM`.
    /// - `VALIDATES` (Verification → Statement): `USED` (the verification activity used it).
    /// - `PERFORMED_BY` (Verification → Agent): `WAS_ASSOCIATED_WITH`.
    /// - `SUPPORTS`, `CONTRADICTS`, `REQUESTED_VERIFICATION`, `VERIFIED`, `CHALLENGED`:
    ///   plain domain relations, no PROV counterpart.
    pub const fn a2ap_kind(self) -> Option<EdgeKind> {
        use RelType::*;
        match self {
            Generated => Some(EdgeKind::Prov(ProvRelation::WasAttributedTo)),
            Cites | PartOf | SourcedFrom => Some(EdgeKind::Prov(ProvRelation::WasDerivedFrom)),
            Validates => Some(EdgeKind::Prov(ProvRelation::Used)),
            PerformedBy => Some(EdgeKind::Prov(ProvRelation::WasAssociatedWith)),
            Supports | Contradicts | RequestedVerification | Verified | Challenged => Some(EdgeKind::Plain),
            _ => None,
        }
    }
}

/// What makes an edge unique besides its endpoints and type: its PROV relation, its A2A
/// relation, or nothing (domain relations with no PROV counterpart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    Prov(ProvRelation),
    A2a(A2aRelation),
    Plain,
}

impl EdgeKind {
    /// The edge property that stores the discriminator, with its value.
    pub fn key(self) -> Option<(&'static str, &'static str)> {
        match self {
            EdgeKind::Prov(r) => Some((PROV_BASE_TYPE, r.as_str())),
            EdgeKind::A2a(r) => Some((A2A_RELATION, r.as_str())),
            EdgeKind::Plain => None,
        }
    }
}

/// Property names that the model itself relies on.
pub const NAME: &str = "name";
pub const PROV_TYPE: &str = "prov:type";
pub const PROV_BASE_TYPE: &str = "prov:base_type";
pub const A2A_RELATION: &str = "a2a:relation";
/// The node property naming the log leaves a node came from (a list of leaf indexes;
/// docs/FORMATS.md, "Tamper-evident log").
pub const LEAVES_PROP: &str = "log_leaves";
/// The node property holding the digest of the properties its records gave it.
pub const DIGEST_PROP: &str = "log_digest";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_prov_relation_is_an_edge_type_of_the_same_name() {
        assert_eq!(ProvRelation::ALL.len(), 15);
        for &p in ProvRelation::ALL {
            assert_eq!(RelType::from(p).as_str(), p.as_str());
            assert_eq!(ProvRelation::parse(p.as_str()), Some(p));
        }
        let marked: Vec<_> =
            RelType::ALL.iter().filter(|r| ProvRelation::parse(r.as_str()).is_some()).collect();
        assert_eq!(marked.len(), ProvRelation::ALL.len());
    }

    /// The stored names do not move: the golden tests and docs/FORMATS.md pin them.
    #[test]
    fn prov_relations_keep_their_stored_and_prov_dm_names() {
        let names: Vec<_> = ProvRelation::ALL.iter().map(|p| (p.as_str(), p.prov_name())).collect();
        assert_eq!(
            names,
            [
                ("WAS_GENERATED_BY", "wasGeneratedBy"),
                ("USED", "used"),
                ("WAS_DERIVED_FROM", "wasDerivedFrom"),
                ("WAS_ASSOCIATED_WITH", "wasAssociatedWith"),
                ("WAS_ATTRIBUTED_TO", "wasAttributedTo"),
                ("WAS_INFORMED_BY", "wasInformedBy"),
                ("ACTED_ON_BEHALF_OF", "actedOnBehalfOf"),
                ("WAS_STARTED_BY", "wasStartedBy"),
                ("WAS_ENDED_BY", "wasEndedBy"),
                ("WAS_INVALIDATED_BY", "wasInvalidatedBy"),
                ("SPECIALIZATION_OF", "specializationOf"),
                ("ALTERNATE_OF", "alternateOf"),
                ("HAD_MEMBER", "hadMember"),
                ("WAS_INFLUENCED_BY", "wasInfluencedBy"),
                ("MENTION_OF", "mentionOf"),
            ]
        );
        assert_eq!(serde_json::to_value(ProvRelation::WasGeneratedBy).unwrap(), "WAS_GENERATED_BY");
        assert_eq!(serde_json::to_value(RelType::WasGeneratedBy).unwrap(), "WAS_GENERATED_BY");
    }
}
