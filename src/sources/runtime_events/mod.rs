//! A2A runtime events (`ProvEvent` JSON lines, `docs/FORMATS.md` "A2A runtime events"):
//! their wire types (`events`) and their mapping onto PROV nodes and edges (`normalise`).

pub mod events;
pub mod normalise;
pub mod source;
