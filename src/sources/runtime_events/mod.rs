//! A2A runtime events (`ProvEvent` JSON lines, `docs/FORMATS.md` "A2A runtime events"):
//! their wire types (`events`), the names they are written under (`names`), the scope rules
//! they keep (`validate`) and their mapping onto PROV nodes and edges (`normalise`).

pub mod events;
mod json_props;
pub mod names;
pub mod normalise;
pub mod source;
pub mod validate;
