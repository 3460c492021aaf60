//! The knowledge-graph extension's A2A extension as a JSON-RPC 2.0 service over a graph: the request parsing and
//! error codes (`rpc`), the agent card (`card`), and which statements a subscription wants
//! (`subscription`). The HTTP side lives in `serve::a2a`.

pub mod card;
pub mod rpc;
pub mod subscription;
