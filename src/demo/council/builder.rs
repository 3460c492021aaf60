//! The demo's builder: its clock, and the A2A runtime events and A2AP documents (evidence
//! segments, statements, requests, responses) the scenario emits.

use serde_json::{json, Value};

use super::transcript::transcript;
use super::*;

pub(super) fn iso(offset_ms: u64) -> String {
    let t = chrono::DateTime::from_timestamp_millis(BASE_TIME_MS + offset_ms as i64).unwrap_or_default();
    t.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

pub(super) fn doc_uuid(parts: &[&str]) -> String {
    format!("urn:uuid:{}", Uuid::new_v5(&ID_NAMESPACE, parts.join("|").as_bytes()))
}

pub(super) const CRITERIA: [&str; 3] = ["source-accuracy", "logical-consistency", "evidence-sufficiency"];

/// A verifier's finding on one criterion.
pub(super) struct F(pub &'static str, pub &'static str, pub &'static str, pub f64);

impl Builder {
    pub(super) fn new() -> Self {
        let (text, spans) = transcript();
        Builder { records: Vec::new(), clock: 0, event_seq: 0, message_seq: 0, text, spans }
    }

    pub(super) fn tick(&mut self, ms: u64) {
        self.clock += ms;
    }

    pub(super) fn emit(&mut self, stream: Stream, value: &Value) {
        self.records.push(PacedRecord {
            offset_ms: self.clock,
            stream,
            line: serde_json::to_string(value).unwrap_or_default(),
        });
    }

    pub(super) fn event(&mut self, task_id: Option<&str>, data: Value) {
        let id = format!("prov-{}", self.event_seq);
        self.event_seq += 1;
        let ts = BASE_TIME_MS + self.clock as i64;
        let envelope = match task_id {
            Some(task) => {
                json!({"Task": {"id": id, "context_id": CONTEXT_ID, "task_id": task, "timestamp_ms": ts, "data": data}})
            }
            None => {
                json!({"Global": {"id": id, "context_id": CONTEXT_ID, "timestamp_ms": ts, "data": data}})
            }
        };
        self.emit(Stream::Events, &envelope);
    }

    pub(super) fn status(&mut self, task: &str, old: Option<&str>, new: &str) {
        self.event(
            Some(task),
            // An absent previous status is left out, not written null.
            json!({"TaskStatusChanged": match old {
                Some(old) => json!({"task_id": task, "old_status": old, "new_status": new}),
                None => json!({"task_id": task, "new_status": new}),
            }}),
        );
    }

    pub(super) fn message(
        &mut self,
        task: &str,
        sent: bool,
        role: &str,
        content: &str,
        (from, to): (&Agent, Option<&Agent>),
        doc: Option<&str>,
    ) {
        let id = format!("m-{}", self.message_seq);
        self.message_seq += 1;
        let mut metadata = json!({"agent_id": from.runtime_id, "a2ap_agent": from.id});
        if let Some(to) = to {
            metadata["to_agent_id"] = json!(to.runtime_id);
        }
        if let Some(doc) = doc {
            metadata["a2ap_document"] = json!(doc);
        }
        let variant = if sent { "MessageSent" } else { "MessageReceived" };
        self.event(
            Some(task),
            json!({variant: {"id": id, "role": role, "content": [content], "metadata": metadata}}),
        );
    }

    pub(super) fn llm(
        &mut self,
        task: &str,
        a: &Agent,
        function: &str,
        system: &str,
        user: &str,
        completion_tokens: u64,
    ) {
        let prompt =
            json!({"messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]});
        let scope = json!({"Task": {"task_id": task}});
        self.event(Some(task), json!({"LlmCallStarted": {"scope": scope, "client": a.client, "model": a.model, "function_name": function, "prompt": prompt, "metadata": {"agent_id": a.runtime_id}}}));
        let duration = 900 + completion_tokens * 12;
        self.tick(duration);
        let prompt_tokens = (system.len() + user.len()) as u64 / 4;
        self.event(Some(task), json!({"LlmCallCompleted": {"scope": scope, "client": a.client, "model": a.model, "function_name": function, "prompt": prompt, "metadata": {"agent_id": a.runtime_id},
            "usage": {"Known": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens}},
            "duration_ms": duration, "success": true}}));
    }

    pub(super) fn tool(&mut self, task: &str, a: &Agent, tool: &str, args: Value, duration: u64) {
        let scope = json!({"Task": {"task_id": task}});
        self.event(Some(task), json!({"ToolCallStarted": {"scope": scope, "tool_name": tool, "function_name": tool, "args": args, "metadata": {"agent_id": a.runtime_id}}}));
        self.tick(duration);
        self.event(Some(task), json!({"ToolCallCompleted": {"scope": scope, "tool_name": tool, "function_name": tool, "args": args, "metadata": {"agent_id": a.runtime_id}, "duration_ms": duration, "success": true}}));
    }

    /// An evidence segment quoting `quote` from the first utterance (in order) containing it.
    pub(super) fn segment(&self, quote: &str, relevance: f64) -> Value {
        let span = self
            .spans
            .iter()
            .find(|s| self.text[s.byte_start..s.byte_end].contains(quote))
            .unwrap_or(&self.spans[0]);
        let start = span.byte_start + self.text[span.byte_start..span.byte_end].find(quote).unwrap_or(0);
        let end = start + quote.len();
        json!({
            "@type": "a2ap:EvidenceSegment",
            "sourceDocument": DOCUMENT_ID,
            "chunkId": chunk_id(DOCUMENT_ID, start as u64),
            "byteRange": {"start": start, "end": end},
            "timestamp": {"start": span.start_time, "end": span.end_time},
            "quoteText": &self.text[start..end],
            "relevanceScore": relevance,
            "contentHash": sha256_tag(&self.text.as_bytes()[start..end]),
        })
    }

    pub(super) fn statement(
        &self,
        by: &Agent,
        claim: &str,
        confidence: f64,
        evidence: Vec<Value>,
        extra: &[(&str, Value)],
    ) -> (String, Value) {
        let id = statement_id(by.id, claim);
        let mut doc = json!({
            "@context": {"@vocab": "https://schema.org/", "prov": "http://www.w3.org/ns/prov#", "a2ap": "https://williams-librarian.njit.edu/a2ap/v0.1#"},
            "@type": "a2ap:ProvenanceStatement",
            "@id": id,
            "generatedAtTime": iso(self.clock),
            "agent": {"@type": "prov:SoftwareAgent", "@id": by.id, "name": by.name, "version": by.version, "publisher": by.publisher, "capabilities": by.capabilities},
            "claim": {"@type": "a2ap:Claim", "text": claim, "confidence": confidence, "generationMethod": "transcript-summarisation", "contentHash": sha256_tag(claim.as_bytes())},
            "evidence": evidence,
        });
        for (k, v) in extra {
            doc[*k] = v.clone();
        }
        doc["verificationStatus"] =
            json!({"verified": false, "validators": [], "challenges": [], "consensusScore": 0.0});
        sign(&mut doc, &demo_key(by.id));
        (id, doc)
    }

    pub(super) fn request(&self, by: &Agent, target: &str) -> (String, Value) {
        let id = doc_uuid(&[by.id, "request", target]);
        let mut doc = json!({
            "@context": "https://williams-librarian.njit.edu/a2ap/v0.1",
            "@type": "a2ap:VerificationRequest",
            "@id": id,
            "requestedAt": iso(self.clock),
            "requestingAgent": by.id,
            "targetStatement": target,
            "verificationCriteria": CRITERIA,
        });
        sign(&mut doc, &demo_key(by.id));
        (id, doc)
    }

    pub(super) fn response(
        &self,
        by: &Agent,
        target: &str,
        (verdict, confidence, findings): (&str, f64, &[F]),
        key: &KeyFile,
        salt: &str,
    ) -> (String, Value) {
        let id = doc_uuid(&[by.id, "verification", target, salt]);
        let mut doc = json!({
            "@context": "https://williams-librarian.njit.edu/a2ap/v0.1",
            "@type": "a2ap:VerificationResponse",
            "@id": id,
            "respondedAt": iso(self.clock),
            "respondingAgent": by.id,
            "targetStatement": target,
            "inResponseTo": doc_uuid(&[SUMMARISER, "request", target]),
            "verdict": verdict,
            "confidence": confidence,
            "findings": findings.iter().map(|F(c, s, e, conf)| json!({"criterion": c, "status": s, "evidence": e, "confidence": conf})).collect::<Vec<_>>(),
        });
        sign(&mut doc, key);
        (id, doc)
    }
}

pub(super) fn sign(doc: &mut Value, key: &KeyFile) {
    // The demo signs only its own well-formed documents with their agents' keys, so this
    // cannot fail; the tests verify every signature.
    let _ = sign_value(doc, key, KeyRef::KeyId);
}
