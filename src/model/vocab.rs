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

str_enum! {
    /// The W3C PROV kind of a node, stored as `prov:base_type`.
    pub enum BaseType {
        Entity => "ProvEntity",
        Activity => "ProvActivity",
        Agent => "ProvAgent",
    }
}

str_enum! {
    /// Node labels. A2A runtime labels (seed 000) are the `prov:type` without `a2a:`.
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
        }
    }

    /// The namespaced `prov:type` stored on the node (for example `a2a:LlmCall`).
    pub fn prov_type(self) -> String {
        format!("a2a:{}", self.as_str())
    }
}

str_enum! {
    /// The W3C PROV relation an edge stands for, stored as the edge's `prov:base_type`.
    pub enum ProvRelation {
        Used => "USED",
        WasGeneratedBy => "WAS_GENERATED_BY",
        WasAssociatedWith => "WAS_ASSOCIATED_WITH",
        WasDerivedFrom => "WAS_DERIVED_FROM",
    }
}

str_enum! {
    /// Relations derived from the A2A domain (seed 000), stored as the edge's `a2a:relation`.
    pub enum A2aRelation {
        TaskCall => "A2A_TASK_CALL",
        MessageCall => "A2A_MESSAGE_CALL",
        TaskMessage => "A2A_TASK_MESSAGE",
        TaskArtifact => "A2A_TASK_ARTIFACT",
        TaskStatusTransition => "A2A_TASK_STATUS_TRANSITION",
    }
}

str_enum! {
    /// Relationship types: the semantic, past-tense passive labels of seed 000.
    pub enum RelType {
        WasUsedBy => "WAS_USED_BY",
        WasConsumedBy => "WAS_CONSUMED_BY",
        WasReceivedBy => "WAS_RECEIVED_BY",
        WasSpawnedBy => "WAS_SPAWNED_BY",
        WasUpdatedBy => "WAS_UPDATED_BY",
        WasBootstrappedBy => "WAS_BOOTSTRAPPED_BY",
        WasEmittedBy => "WAS_EMITTED_BY",
        WasGeneratedBy => "WAS_GENERATED_BY",
        WasCreatedBy => "WAS_CREATED_BY",
        WasExecutedBy => "WAS_EXECUTED_BY",
        WasInvokedBy => "WAS_INVOKED_BY",
        WasCalledBy => "WAS_CALLED_BY",
        WasTransitionedFrom => "WAS_TRANSITIONED_FROM",
        WasTransitionedTo => "WAS_TRANSITIONED_TO",
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
