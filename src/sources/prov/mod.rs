//! W3C PROV out of any graph (docs/FORMATS.md "W3C PROV-JSON"): each node becomes the PROV record of
//! its base type (entity, activity, agent) and each edge the PROV relation in its
//! `prov:base_type`, or `wasInfluencedBy` when it has none or its ends do not fit that
//! relation. A node's semantic label is kept as `prov:type` (an edge's type too), and every
//! property as an attribute in the `provex:` namespace. Written as PROV-JSON, PROV-N and
//! PROV-O (Turtle, JSON-LD), all from one [`doc::Document`]; the attributes keep names, labels
//! and typed values so that a PROV-JSON export imports as the same graph (`native`). The
//! export operation is `ops`.

pub mod doc;
pub mod import;
mod json;
mod keys;
pub mod native;
pub mod ops;
mod provn;
mod rdf;
pub mod relations;
pub mod source;
pub mod terms;
pub mod turtle;

use std::fmt;
use std::str::FromStr;

pub use doc::Document;

/// A PROV serialisation Provex writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProvFormat {
    ProvJson,
    ProvN,
    ProvOTurtle,
    ProvOJsonld,
}

impl ProvFormat {
    pub const ALL: [ProvFormat; 4] =
        [ProvFormat::ProvJson, ProvFormat::ProvN, ProvFormat::ProvOTurtle, ProvFormat::ProvOJsonld];

    pub fn as_str(self) -> &'static str {
        match self {
            ProvFormat::ProvJson => "prov-json",
            ProvFormat::ProvN => "prov-n",
            ProvFormat::ProvOTurtle => "prov-o-turtle",
            ProvFormat::ProvOJsonld => "prov-o-jsonld",
        }
    }

    /// The usual file extension.
    pub fn extension(self) -> &'static str {
        match self {
            ProvFormat::ProvJson => "json",
            ProvFormat::ProvN => "provn",
            ProvFormat::ProvOTurtle => "ttl",
            ProvFormat::ProvOJsonld => "jsonld",
        }
    }

    /// The media type a download is served with.
    pub fn media_type(self) -> &'static str {
        match self {
            ProvFormat::ProvJson => "application/json",
            ProvFormat::ProvN => "text/provenance-notation",
            ProvFormat::ProvOTurtle => "text/turtle",
            ProvFormat::ProvOJsonld => "application/ld+json",
        }
    }

    /// The document in this format.
    pub fn write(self, doc: &Document) -> String {
        match self {
            ProvFormat::ProvJson => json::write(doc),
            ProvFormat::ProvN => provn::write(doc),
            ProvFormat::ProvOTurtle => rdf::turtle(doc),
            ProvFormat::ProvOJsonld => rdf::jsonld(doc),
        }
    }
}

impl fmt::Display for ProvFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ProvFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        ProvFormat::ALL.into_iter().find(|f| f.as_str() == s).ok_or_else(|| {
            let names: Vec<&str> = ProvFormat::ALL.iter().map(|f| f.as_str()).collect();
            format!("unknown PROV format {s:?} (one of {})", names.join(", "))
        })
    }
}
