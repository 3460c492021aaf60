//! A session's side of witnessing (src/tlog/witness.rs, docs/FORMATS.md "Tamper-evident
//! log"): as a witness, deciding `add-checkpoint` requests against what it last cosigned of
//! each log (kept in its FalkorDB) and cosigning with its own key; as a log, sending the
//! current checkpoint to a witness with the consistency proof from what the witness last
//! cosigned, and keeping the cosigned checkpoint.

use serde::Serialize;

use super::Provex;
use crate::api::ErrorCode;
use crate::error::{Error, Result};
use crate::tlog::checkpoint::{self, instance_name};
use crate::tlog::witness::{
    self, AddCheckpoint, CosignatureVerifier, Refusal, Seen, WitnessKey, ADD_CHECKPOINT_PATH,
    WITNESS_KEY_FILE,
};

/// How long a witness is waited for.
const WITNESS_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);
/// The most bytes of a witness's answer read.
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// A checkpoint a witness cosigned, as `provex log witness` prints it.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct Witnessed {
    pub graph: String,
    pub origin: String,
    pub size: u64,
    /// The size the witness had cosigned before (0: it had seen none).
    pub old: u64,
    pub witness: String,
    /// When the witness cosigned it (POSIX seconds).
    pub time: u64,
    /// The signed checkpoint with the witness's cosignature appended (a C2SP signed note).
    pub checkpoint: String,
}

/// A witness's refusal as it answers it: the code, the message, and the size it last
/// cosigned when it names one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WitnessRefusal {
    pub code: ErrorCode,
    pub status: u16,
    pub message: String,
    pub size: Option<u64>,
}

impl From<&Refusal> for WitnessRefusal {
    fn from(r: &Refusal) -> Self {
        let code = match r {
            Refusal::Malformed(_) => ErrorCode::BadRequest,
            Refusal::UnknownLog(_) => ErrorCode::NotFound,
            Refusal::Unsigned { .. } => ErrorCode::LogUnsigned,
            Refusal::Stale { .. } | Refusal::Fork { .. } => ErrorCode::LogConflict,
            Refusal::Inconsistent { .. } => ErrorCode::LogInconsistent,
        };
        let size = match r {
            Refusal::Stale { have, .. } => Some(*have),
            _ => None,
        };
        WitnessRefusal { code, status: r.status(), message: r.to_string(), size }
    }
}

impl Provex {
    /// Witnesses the logs whose checkpoints these signed-note verifier keys sign (`provex
    /// log key` of each instance); none: this instance witnesses nothing.
    pub fn set_witnessed_logs(&self, keys: Vec<String>) -> Result<()> {
        for k in &keys {
            signed_note::StandardVerifier::new(k.trim()).map_err(|e| {
                Error::Usage(format!("{k:?} is not a log's verifier key (`provex log key`): {e}"))
            })?;
        }
        *self.logs.witnessed.lock().unwrap_or_else(std::sync::PoisonError::into_inner) =
            keys.into_iter().map(|k| k.trim().to_owned()).collect();
        Ok(())
    }

    /// The key this instance cosigns with as a witness (made on first use, mode 0600, in the
    /// data folder).
    pub fn witness_key(&self) -> Result<WitnessKey> {
        let name = format!("provex-witness/{}", instance_name());
        let (file, path) = super::tlog::load_or_create_key_file(
            &self.key_dir()?,
            WITNESS_KEY_FILE,
            "provex-witness",
            &name,
        )?;
        let key = file.signing_key().map_err(|reason| Error::Input { path: path.clone(), reason })?;
        WitnessKey::from_parts(&file.agent, key).map_err(|reason| Error::Input { path, reason })
    }

    /// Decides an `add-checkpoint` request as a witness: the cosignature lines to answer
    /// with, or the refusal. What was cosigned is kept before the answer.
    pub async fn witness_add_checkpoint(
        &self,
        body: &[u8],
    ) -> Result<std::result::Result<String, WitnessRefusal>> {
        let req = match AddCheckpoint::parse(body) {
            Ok(r) => r,
            Err(e) => return Ok(Err(WitnessRefusal::from(&Refusal::Malformed(e)))),
        };
        let logs = self.logs.witnessed.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        let key = self.witness_key()?;
        // Another request may move the same log on between reading and keeping: then the
        // request is decided again against what it moved to.
        for _ in 0..4 {
            let origin = match checkpoint::open(&req.checkpoint, None) {
                Ok(cp) => cp.origin,
                Err(e) => return Ok(Err(WitnessRefusal::from(&Refusal::Malformed(e.to_string())))),
            };
            let kept = self.store.witness_seen(&origin).await?;
            let seen = match kept.as_deref().map(Seen::from_text) {
                None => None,
                Some(Some(s)) => Some(s),
                Some(None) => {
                    return Err(Error::Query(format!("what this witness keeps of {origin} is damaged")))
                }
            };
            let cp = match witness::decide(&req, &logs, seen) {
                Ok(cp) => cp,
                Err(refusal) => {
                    tracing::warn!(origin, "witness refused a checkpoint: {refusal}");
                    return Ok(Err(WitnessRefusal::from(&refusal)));
                }
            };
            let now = Seen { size: cp.size, root: cp.root }.to_text();
            if self.store.witness_advance(&origin, kept.as_deref(), &now).await?.is_ok() {
                let time = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0, |d| d.as_secs());
                let text = witness::note_text(&req.checkpoint).map_err(Error::Query)?;
                return Ok(Ok(key.cosign(&text, time)));
            }
        }
        Err(Error::Busy("the witness's record of this log kept changing; send the checkpoint again".into()))
    }

    /// Sends the graph's current checkpoint to the witness at `url` (a `provex serve` base
    /// address, or its `add-checkpoint` address) with the consistency proof from what it
    /// last cosigned; checks its cosignature with the pinned `witness_vkey` and keeps the
    /// cosigned checkpoint as the graph's latest.
    pub async fn log_witness(
        &self,
        graph: &str,
        url: &str,
        token: Option<&str>,
        witness_vkey: &str,
    ) -> Result<Witnessed> {
        let verifier = CosignatureVerifier::new(witness_vkey)
            .map_err(|e| Error::Usage(format!("the witness key {witness_vkey:?}: {e}")))?;
        let endpoint = if url.trim_end_matches('/').ends_with(ADD_CHECKPOINT_PATH) {
            url.trim_end_matches('/').to_owned()
        } else {
            format!("{}{ADD_CHECKPOINT_PATH}", url.trim_end_matches('/'))
        };
        let note = self.log_checkpoint(graph).await?;
        let cp = checkpoint::open(&note, None).map_err(|e| Error::Query(e.to_string()))?;
        // Where the witness last was: this very checkpoint when it cosigned it, else it says.
        let mut old = if witness::cosigned_by(&note, witness_vkey).is_ok() { cp.size } else { 0 };
        let client = reqwest::Client::builder()
            .timeout(WITNESS_TIMEOUT)
            .build()
            .map_err(|e| Error::Usage(format!("HTTP client: {e}")))?;
        for attempt in 0..2 {
            let proof = self.consistency_path(graph, cp.size, old).await?;
            let body = AddCheckpoint { old, proof, checkpoint: note.clone() }.to_bytes();
            let mut req = client
                .post(&endpoint)
                .header(reqwest::header::CONTENT_TYPE, "text/plain; charset=utf-8")
                .header(reqwest::header::ACCEPT, "application/json")
                .body(body);
            if let Some(t) = token {
                req = req.bearer_auth(t);
            }
            let res = req.send().await.map_err(|e| Error::Witness {
                code: ErrorCode::Network,
                message: format!("{endpoint}: {e}"),
            })?;
            let status = res.status().as_u16();
            let bytes = read_capped(res)
                .await
                .map_err(|message| Error::Witness { code: ErrorCode::BadResponse, message })?;
            if status == 200 {
                let (cosigned, by) =
                    witness::accept_cosignatures(&note, &bytes, witness_vkey).map_err(|e| {
                        Error::Witness {
                            code: ErrorCode::BadResponse,
                            message: format!(
                                "{endpoint} answered without a valid cosignature of the pinned key: {e}"
                            ),
                        }
                    })?;
                self.keep_cosigned(graph, &cp, &cosigned).await?;
                return Ok(Witnessed {
                    graph: graph.to_owned(),
                    origin: cp.origin,
                    size: cp.size,
                    old,
                    witness: verifier.name().to_owned(),
                    time: by.time,
                    checkpoint: String::from_utf8_lossy(&cosigned).into_owned(),
                });
            }
            let refusal = read_refusal(status, &bytes);
            match refusal.size {
                // The witness has cosigned more of this log than it holds now.
                Some(have) if refusal.code == ErrorCode::LogConflict && have > cp.size => {
                    return Err(Error::Witness {
                        code: ErrorCode::LogConflict,
                        message: format!(
                            "witness {} has cosigned {have} leaves of {}, more than the log's {} now: records were removed or the history rewritten since",
                            verifier.name(),
                            cp.origin,
                            cp.size
                        ),
                    });
                }
                Some(have) if refusal.code == ErrorCode::LogConflict && attempt == 0 && have != old => {
                    old = have
                }
                _ => {
                    return Err(Error::Witness {
                        code: refusal.code,
                        message: format!("{endpoint} ({status}): {}", refusal.message),
                    })
                }
            }
        }
        Err(Error::Witness {
            code: ErrorCode::LogConflict,
            message: format!("{endpoint} kept naming another size it last cosigned"),
        })
    }

    /// Keeps a cosigned checkpoint as the graph's latest, unless the log moved on since.
    async fn keep_cosigned(&self, graph: &str, cp: &checkpoint::Opened, cosigned: &[u8]) -> Result<()> {
        let kept = self.store.log_checkpoint(graph).await?;
        let key = self.log_key()?.verifier_key();
        let still = kept
            .as_deref()
            .and_then(|k| checkpoint::open(k, Some(&key)).ok())
            .is_none_or(|k| k.size == cp.size && k.root == cp.root);
        if still {
            // Cosignatures other witnesses added meanwhile are kept too.
            let merged = match kept {
                Some(k) => witness::append_cosignatures(cosigned, &k[signature_block(&k)..])
                    .unwrap_or(cosigned.to_vec()),
                None => cosigned.to_vec(),
            };
            self.store.log_set_checkpoint(graph, &merged).await?;
        }
        Ok(())
    }
}

/// Where a signed note's signature lines start (after its blank line).
fn signature_block(note: &[u8]) -> usize {
    note.windows(2).rposition(|w| w == b"\n\n").map_or(note.len(), |i| i + 2)
}

/// A response body of at most [`MAX_ANSWER_BYTES`].
async fn read_capped(mut res: reqwest::Response) -> std::result::Result<Vec<u8>, String> {
    let mut out = Vec::new();
    while let Some(chunk) = res.chunk().await.map_err(|e| format!("reading the witness's answer: {e}"))? {
        if out.len() + chunk.len() > MAX_ANSWER_BYTES {
            return Err(format!("the witness's answer is over {MAX_ANSWER_BYTES} bytes"));
        }
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

/// A witness's refusal from its answer: Provex's `{code, message, size}`, or C2SP's bare
/// size (`text/x.tlog.size`) on 409, or any other text.
fn read_refusal(status: u16, body: &[u8]) -> WitnessRefusal {
    #[derive(serde::Deserialize)]
    struct Answer {
        code: ErrorCode,
        message: String,
        #[serde(default)]
        size: Option<u64>,
    }
    if let Ok(a) = serde_json::from_slice::<Answer>(body) {
        return WitnessRefusal { code: a.code, status, message: a.message, size: a.size };
    }
    let text = String::from_utf8_lossy(&body[..body.len().min(500)]).trim().to_owned();
    let code = match status {
        409 => ErrorCode::LogConflict,
        422 => ErrorCode::LogInconsistent,
        403 => ErrorCode::LogUnsigned,
        404 => ErrorCode::NotFound,
        401 => ErrorCode::Unauthorized,
        _ => ErrorCode::BadResponse,
    };
    let size = (status == 409).then(|| text.parse().ok()).flatten();
    WitnessRefusal { code, status, message: text, size }
}
