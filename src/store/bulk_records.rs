//! How a node or an edge is written in a bulk build's spill file (`bulk_spill`), and read
//! back: a compact binary record, bounded in depth, read only from the file this process
//! wrote.

use std::io;

use crate::model::vocab::{A2aRelation, EdgeKind, Label, ProvRelation, RelType};
use crate::model::{Edge, Node, NodeRef, PropValue, Props};

/// How deep lists may nest in a spilled value (the model's values nest one level).
const MAX_DEPTH: usize = 32;

// The record encoding: a node is its label, name and properties; an edge its type, kind,
// endpoints (label and name each) and properties. Strings are a `u32` length and UTF-8;
// properties a `u32` count, then name and value each; a value a tag and its content.

fn put_str(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

fn put_value(out: &mut Vec<u8>, v: &PropValue) {
    match v {
        PropValue::Bool(b) => out.extend_from_slice(&[0, u8::from(*b)]),
        PropValue::Int(i) => {
            out.push(1);
            out.extend_from_slice(&i.to_le_bytes());
        }
        PropValue::Float(f) => {
            out.push(2);
            out.extend_from_slice(&f.to_bits().to_le_bytes());
        }
        PropValue::Str(s) => {
            out.push(3);
            put_str(out, s);
        }
        PropValue::List(items) => {
            out.push(4);
            out.extend_from_slice(&(items.len() as u32).to_le_bytes());
            for item in items {
                put_value(out, item);
            }
        }
    }
}

fn put_props(out: &mut Vec<u8>, props: &Props) {
    out.extend_from_slice(&(props.len() as u32).to_le_bytes());
    for (k, v) in props {
        put_str(out, k);
        put_value(out, v);
    }
}

pub(super) fn kind_code(kind: EdgeKind) -> [u8; 2] {
    match kind {
        EdgeKind::Prov(r) => [0, r as u8],
        EdgeKind::A2a(r) => [1, r as u8],
        EdgeKind::Plain => [2, 0],
    }
}

/// Appends a node's record.
pub fn encode_node(out: &mut Vec<u8>, n: &Node) {
    out.push(n.label as u8);
    put_str(out, &n.name);
    put_props(out, &n.props);
}

/// Appends an edge's record.
pub fn encode_edge(out: &mut Vec<u8>, e: &Edge) {
    out.push(e.rel as u8);
    out.extend_from_slice(&kind_code(e.kind));
    for end in [&e.source, &e.target] {
        out.push(end.label as u8);
        put_str(out, &end.name);
    }
    put_props(out, &e.props);
}

/// The bytes of a partition not decoded yet.
pub struct Reader<'a>(pub &'a [u8]);

fn bad(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, format!("spill file: {what}"))
}

impl Reader<'_> {
    pub(super) fn take(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.0.len() < n {
            return Err(bad("a record is cut short"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    pub(super) fn u8(&mut self) -> io::Result<u8> {
        Ok(self.take(1)?[0])
    }

    pub(super) fn u32(&mut self) -> io::Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")))
    }

    pub(super) fn u64(&mut self) -> io::Result<u64> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8 bytes")))
    }

    pub(super) fn string(&mut self) -> io::Result<String> {
        let n = self.u32()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| bad("a string is not UTF-8"))
    }

    pub(super) fn label(&mut self) -> io::Result<Label> {
        Label::ALL.get(self.u8()? as usize).copied().ok_or_else(|| bad("unknown label"))
    }

    pub(super) fn value(&mut self, depth: usize) -> io::Result<PropValue> {
        Ok(match self.u8()? {
            0 => PropValue::Bool(self.u8()? != 0),
            1 => PropValue::Int(self.u64()? as i64),
            2 => PropValue::Float(f64::from_bits(self.u64()?)),
            3 => PropValue::Str(self.string()?),
            4 if depth < MAX_DEPTH => {
                let n = self.u32()? as usize;
                let mut items = Vec::with_capacity(n.min(self.0.len()));
                for _ in 0..n {
                    items.push(self.value(depth + 1)?);
                }
                PropValue::List(items)
            }
            4 => return Err(bad("lists nested too deep")),
            _ => return Err(bad("unknown value type")),
        })
    }

    pub(super) fn props(&mut self) -> io::Result<Props> {
        let mut props = Props::new();
        for _ in 0..self.u32()? {
            let k = self.string()?;
            props.insert(k.into(), self.value(0)?);
        }
        Ok(props)
    }
}

/// Reads the next node's record.
pub fn decode_node(r: &mut Reader<'_>) -> io::Result<Node> {
    let label = r.label()?;
    let name = r.string()?;
    Ok(Node { label, name, props: r.props()? })
}

/// Reads the next edge's record.
pub fn decode_edge(r: &mut Reader<'_>) -> io::Result<Edge> {
    let rel = RelType::ALL.get(r.u8()? as usize).copied().ok_or_else(|| bad("unknown type"))?;
    let (tag, code) = (r.u8()?, r.u8()? as usize);
    let kind = match tag {
        0 => EdgeKind::Prov(*ProvRelation::ALL.get(code).ok_or_else(|| bad("unknown PROV relation"))?),
        1 => EdgeKind::A2a(*A2aRelation::ALL.get(code).ok_or_else(|| bad("unknown A2A relation"))?),
        2 => EdgeKind::Plain,
        _ => return Err(bad("unknown edge kind")),
    };
    let source = NodeRef { label: r.label()?, name: r.string()? };
    let target = NodeRef { label: r.label()?, name: r.string()? };
    Ok(Edge { rel, kind, source, target, props: r.props()? })
}
