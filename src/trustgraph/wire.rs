//! TrustGraph's wire form (docs/FORMATS.md, "TrustGraph query-time provenance"), as `AgentResponseTranslator` and `TermTranslator`
//! write it: an `AgentResponse` bare or in the gateway's `{"id","response","complete"}`
//! envelope; its kind in `message_type`, or `chunk_type` / `chunk-type` from older
//! producers; explain triples `{"s","p","o","g"?}` whose terms are IRIs (`t: i`), literals
//! (`l`), blank nodes (`b`) or quoted triples (`t`).

use serde_json::Value;

/// An RDF term.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Term {
    Iri(String),
    Literal { value: String, datatype: Option<String>, lang: Option<String> },
    Blank(String),
    Quoted(Box<Triple>),
}

/// A triple (a quad when `g` names its graph).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Triple {
    pub s: Term,
    pub p: Term,
    pub o: Term,
    pub g: Option<String>,
}

fn text(v: &Value, key: &str) -> Option<String> {
    v.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned)
}

impl Term {
    /// Reads a term; the reason when it is not one.
    pub fn read(v: &Value) -> Result<Term, String> {
        let kind = v.get("t").and_then(Value::as_str).ok_or("a term needs its kind \"t\"")?;
        match kind {
            "i" => Ok(Term::Iri(text(v, "i").ok_or("an IRI term needs \"i\"")?)),
            "l" => Ok(Term::Literal {
                value: v.get("v").and_then(Value::as_str).ok_or("a literal term needs \"v\"")?.to_owned(),
                datatype: text(v, "dt"),
                lang: text(v, "ln"),
            }),
            "b" => Ok(Term::Blank(text(v, "d").ok_or("a blank-node term needs \"d\"")?)),
            "t" => Ok(Term::Quoted(Box::new(Triple::read(
                v.get("tr").ok_or("a quoted-triple term needs \"tr\"")?,
            )?))),
            other => Err(format!("unknown term kind {other:?} (i, l, b or t)")),
        }
    }

    /// The IRI, when it is one.
    pub fn iri(&self) -> Option<&str> {
        match self {
            Term::Iri(i) => Some(i),
            _ => None,
        }
    }

    /// The term as text: an IRI or blank node by its id, a literal by its value, a quoted
    /// triple as `<< s p o >>`.
    pub fn show(&self) -> String {
        match self {
            Term::Iri(i) => i.clone(),
            Term::Literal { value, .. } => value.clone(),
            Term::Blank(b) => format!("_:{b}"),
            Term::Quoted(t) => format!("<< {} {} {} >>", t.s.show(), t.p.show(), t.o.show()),
        }
    }
}

impl Triple {
    pub fn read(v: &Value) -> Result<Triple, String> {
        let part = |k: &str| v.get(k).ok_or_else(|| format!("a triple needs \"{k}\"")).and_then(Term::read);
        Ok(Triple { s: part("s")?, p: part("p")?, o: part("o")?, g: text(v, "g") })
    }
}

/// An `AgentResponse` as it is read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Response {
    /// `message_type` (or `chunk_type`, `chunk-type`): explain, thought, observation, answer,
    /// error, action, provenance.
    pub kind: String,
    pub content: Option<String>,
    pub explain_id: Option<String>,
    pub explain_graph: Option<String>,
    pub triples: Vec<Triple>,
    pub end_of_dialog: bool,
    pub in_token: Option<i64>,
    pub out_token: Option<i64>,
    pub model: Option<String>,
    pub error: Option<String>,
    pub message_id: Option<String>,
    /// The TrustGraph design note's `provenance` chunks.
    pub provenance_refs: Vec<String>,
}

/// One line of a TrustGraph stream: the response and the envelope's request id, if any.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub request: Option<String>,
    pub response: Response,
}

/// The kind field under any of its spellings.
pub fn kind_of(v: &serde_json::Map<String, Value>) -> Option<&str> {
    ["message_type", "chunk_type", "chunk-type"].iter().find_map(|k| v.get(*k).and_then(Value::as_str))
}

/// Whether a JSON object is a TrustGraph response (bare or enveloped).
pub fn looks_like(obj: &serde_json::Map<String, Value>) -> bool {
    if let (Some(r), true) = (obj.get("response").and_then(Value::as_object), obj.contains_key("id")) {
        return kind_of(r).is_some() || r.contains_key("explain_triples");
    }
    kind_of(obj).is_some()
        && (obj.contains_key("end_of_message")
            || obj.contains_key("end_of_dialog")
            || obj.contains_key("explain_id")
            || obj.contains_key("content")
            || obj.contains_key("provenance_refs"))
}

fn int(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| v.as_str().and_then(|s| s.parse().ok()))
}

impl Message {
    /// Reads a message from a JSON object already known to be one.
    pub fn read(v: &Value) -> Result<Message, String> {
        let (request, body) = match v.get("response") {
            Some(response) => {
                let id = v
                    .get("id")
                    .filter(|i| !i.is_null())
                    .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_owned));
                (id, response)
            }
            None => (None, v),
        };
        let obj = body.as_object().ok_or("a response is a JSON object")?;
        let kind = kind_of(obj).ok_or("a response needs message_type (or chunk_type)")?.to_owned();
        let triples = match obj.get("explain_triples") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, t)| Triple::read(t).map_err(|e| format!("explain_triples[{i}]: {e}")))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err("explain_triples is not a list".into()),
        };
        let refs = match obj.get("provenance_refs") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|r| r.as_str().map(str::to_owned).ok_or("provenance_refs holds a non-string"))
                .collect::<Result<_, _>>()?,
            Some(_) => return Err("provenance_refs is not a list".into()),
        };
        let error = match obj.get("error") {
            Some(Value::Object(e)) => e.get("message").and_then(Value::as_str).map(str::to_owned),
            Some(Value::String(s)) => Some(s.clone()),
            _ => None,
        };
        Ok(Message {
            request,
            response: Response {
                kind,
                content: text(body, "content"),
                explain_id: text(body, "explain_id"),
                explain_graph: text(body, "explain_graph"),
                triples,
                end_of_dialog: obj.get("end_of_dialog").and_then(Value::as_bool).unwrap_or(false),
                in_token: obj.get("in_token").and_then(int),
                out_token: obj.get("out_token").and_then(int),
                model: text(body, "model"),
                error,
                message_id: text(body, "message_id"),
                provenance_refs: refs,
            },
        })
    }
}
