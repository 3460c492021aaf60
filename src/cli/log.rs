//! `provex log …`: the tamper-evident log of a graph (docs/FORMATS.md, "Tamper-evident
//! log"): signed checkpoints, inclusion and consistency proofs, and checking them offline.

use std::path::PathBuf;

use anyhow::{bail, Context as _};
use clap::Subcommand;
use provex::facade::log_verify::GraphCheck;
use provex::facade::Provex;
use provex::tlog::checkpoint;
use provex::tlog::proof::{self, ProofFile};

#[derive(Debug, Subcommand)]
pub enum LogCommand {
    /// Sign a checkpoint of the graph's log now and print it (a C2SP signed note).
    Checkpoint {
        #[arg(long, short)]
        graph: String,
        /// Write it here as well.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Print the instance's verifier key (give it to auditors: `log verify --key`, and to
    /// witnesses: `serve --witness-log`).
    Key {
        /// Print the key this instance cosigns with as a witness instead (for `log witness
        /// --witness-key` and `verify --witness`).
        #[arg(long)]
        witness: bool,
    },
    /// Have a witness (another `provex serve --witness-log KEY`) cosign the graph's current
    /// checkpoint: it is sent with a consistency proof from what the witness last cosigned,
    /// and the witness refuses a history that does not extend that. The cosigned checkpoint
    /// is kept (bundles and proofs carry it) and printed.
    Witness {
        /// The witness's address (`http://HOST:PORT`).
        url: String,
        #[arg(long, short)]
        graph: String,
        /// The witness's key (`provex log key --witness` there), or a file holding it: its
        /// cosignature must verify with it.
        #[arg(long, value_name = "KEY")]
        witness_key: String,
        /// The witness server's token.
        #[arg(long, env = "PROVEX_WITNESS_TOKEN", hide_env_values = true)]
        token: Option<String>,
        /// Write the cosigned checkpoint here as well.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// An inclusion proof that a record is in the log, at a new checkpoint.
    Prove {
        #[arg(long, short)]
        graph: String,
        /// The leaf's index in the log.
        #[arg(long, required_unless_present = "node", conflicts_with = "node")]
        index: Option<u64>,
        /// A node: the proof is for the last record it came from.
        #[arg(long)]
        node: Option<String>,
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// A consistency proof that the log now extends an earlier checkpoint.
    Consistency {
        #[arg(long, short)]
        graph: String,
        /// The earlier checkpoint (a file `log checkpoint` wrote).
        #[arg(long, value_name = "CHECKPOINT")]
        since: PathBuf,
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Check a proof or a checkpoint file offline (exit 1 if it does not hold); or, with
    /// --graph, re-hash what the graph holds against its log and name every node changed
    /// behind it (records logged since the latest signed checkpoint are named as not yet
    /// checkpointed: partly verified, exit 0).
    Verify {
        /// A proof file (inclusion or consistency) or a signed checkpoint.
        #[arg(required_unless_present = "graph", conflicts_with = "graph")]
        file: Option<PathBuf>,
        /// The instance's verifier key (`provex log key`), or a file holding it; without it
        /// signatures are not checked (and the output says so).
        #[arg(long)]
        key: Option<String>,
        /// A witness's key (`provex log key --witness`), or a file holding it (repeatable):
        /// the checkpoint(s) must carry its valid cosignature.
        #[arg(long, value_name = "KEY", conflicts_with = "graph")]
        witness: Vec<String>,
        #[arg(long, short)]
        graph: Option<String>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

fn read_key(key: Option<&str>) -> anyhow::Result<Option<String>> {
    Ok(match key {
        None => None,
        Some(k) if std::path::Path::new(k).is_file() => {
            Some(std::fs::read_to_string(k).with_context(|| k.to_owned())?.trim().to_owned())
        }
        Some(k) => Some(k.trim().to_owned()),
    })
}

fn emit(text: &str, out: Option<&PathBuf>) -> anyhow::Result<String> {
    if let Some(p) = out {
        std::fs::write(p, text).with_context(|| p.display().to_string())?;
    }
    Ok(text.to_owned())
}

/// Checks that each checkpoint carries a valid cosignature of each witness key; the lines
/// saying so, and whether all do.
fn witnessed(notes: &[&[u8]], witnesses: &[String]) -> anyhow::Result<(String, bool)> {
    let mut text = String::new();
    let mut ok = true;
    for w in witnesses {
        let w = read_key(Some(w))?.unwrap_or_default();
        for note in notes {
            match provex::tlog::witness::cosigned_by(note, &w) {
                Ok(c) => text.push_str(&format!("  cosigned by witness {} at {}\n", c.witness, c.time)),
                Err(e) => {
                    ok = false;
                    text.push_str(&format!("  NOT WITNESSED: {e}\n"));
                }
            }
        }
    }
    Ok((text, ok))
}

/// Checks a proof or checkpoint file offline (and, with `witnesses`, the cosignatures of its
/// checkpoints); returns the text and whether it holds.
pub fn verify_file(
    file: &PathBuf,
    key: Option<&str>,
    witnesses: &[String],
) -> anyhow::Result<(String, bool)> {
    let (text, ok) = verify_one(file, key)?;
    if witnesses.is_empty() || !ok {
        return Ok((text, ok));
    }
    let bytes = std::fs::read(file).with_context(|| file.display().to_string())?;
    let notes: Vec<Vec<u8>> = match proof::parse(&bytes) {
        Ok(ProofFile::Inclusion(p)) => vec![p.checkpoint.into_bytes()],
        Ok(ProofFile::Consistency(p)) => vec![p.new.into_bytes()],
        Err(_) => vec![bytes],
    };
    let (more, all) = witnessed(&notes.iter().map(Vec::as_slice).collect::<Vec<_>>(), witnesses)?;
    Ok((text + &more, all))
}

fn verify_one(file: &PathBuf, key: Option<&str>) -> anyhow::Result<(String, bool)> {
    let key = read_key(key)?;
    let bytes = std::fs::read(file).with_context(|| file.display().to_string())?;
    let unsigned = if key.is_none() { " (signature not checked: give --key)" } else { "" };
    let name = file.display();
    if bytes.first() == Some(&b'{') {
        let parsed = match proof::parse(&bytes) {
            Ok(p) => p,
            Err(e) => return Ok((format!("{name}: {e}\n"), false)),
        };
        return Ok(match parsed {
            ProofFile::Inclusion(p) => match proof::verify_inclusion(&p, key.as_deref()) {
                Ok(cp) => (
                    format!("{name}: leaf {} is in {} at size {}{unsigned}\n", p.index, cp.origin, cp.size),
                    true,
                ),
                Err(e) => (format!("{name}: {e}\n"), false),
            },
            ProofFile::Consistency(p) => match proof::verify_consistency(&p, key.as_deref()) {
                Ok((old, new)) => (
                    format!(
                        "{name}: {} at size {} extends size {}{unsigned}\n",
                        new.origin, new.size, old.size
                    ),
                    true,
                ),
                Err(e) => (format!("{name}: {e}\n"), false),
            },
        });
    }
    Ok(match checkpoint::open(&bytes, key.as_deref()) {
        Ok(cp) => (format!("{name}: checkpoint of {} at size {}{unsigned}\n", cp.origin, cp.size), true),
        Err(e) => (format!("{name}: {e}\n"), false),
    })
}

/// The text of a graph's log check: what was checked and against what, in words that say
/// exactly which part holds (as the explorer's log status does: records logged since the
/// latest signed checkpoint are "not yet checkpointed", not a disagreement).
pub fn render_check(check: &GraphCheck) -> String {
    let (n, k) = (check.log_size, check.nodes_checked);
    let checked = format!(
        "{k} node{} checked against {}",
        plural(k),
        if k == 1 { "its leaves" } else { "their leaves" }
    );
    let mut s = match (check.checkpoint_size, check.checkpoint_matches) {
        (None, true) if n == 0 => format!("log of {}: no records logged, no checkpoint; {checked}\n", check.graph),
        (None, true) => format!(
            "log of {}: partly verified: no checkpoint yet: {n} record{} logged, not yet checkpointed; {checked}\n",
            check.graph,
            plural(n)
        ),
        (Some(size), true) if check.pending > 0 => format!(
            "log of {}: {n} leaves, {checked}, checkpoint of {size} leaves matches (the log extends it); partly verified: {} record{} logged since, not yet checkpointed\n",
            check.graph,
            check.pending,
            plural(check.pending)
        ),
        (Some(_), true) => format!("log of {}: {n} leaves, {checked}, checkpoint matches\n", check.graph),
        (Some(size), false) => format!(
            "log of {}: {n} leaves, {checked}, checkpoint DOES NOT MATCH the log: the log does not extend the signed checkpoint of {size} leaves (its history was rewritten)\n",
            check.graph
        ),
        (None, false) => format!(
            "log of {}: {n} leaves, {checked}, checkpoint DOES NOT MATCH the log: the latest checkpoint kept is not signed by this instance's log key\n",
            check.graph
        ),
    };
    if check.pending > 0 && check.mismatches.is_empty() {
        s.push_str(&format!(
            "(an ingest signs a checkpoint when it ends; `provex log checkpoint -g {}` signs one now)\n",
            check.graph
        ));
    }
    for m in &check.mismatches {
        s.push_str(&format!(
            "changed behind the log: {} ({}, leaves {:?}): {}\n",
            m.name, m.label, m.leaves, m.reason
        ));
    }
    s
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// Runs a log command that needs the database; returns its output and whether it holds.
pub async fn run(provex: &Provex, command: LogCommand) -> anyhow::Result<(String, bool)> {
    Ok(match command {
        LogCommand::Checkpoint { graph, out } => {
            let note = provex.log_checkpoint(&graph).await?;
            (emit(&String::from_utf8_lossy(&note), out.as_ref())?, true)
        }
        LogCommand::Key { witness: false } => (format!("{}\n", provex.log_key()?.verifier_key()), true),
        LogCommand::Key { witness: true } => (format!("{}\n", provex.witness_key()?.verifier_key()), true),
        LogCommand::Witness { url, graph, witness_key, token, out, json } => {
            let key = read_key(Some(&witness_key))?.unwrap_or_default();
            let w = provex.log_witness(&graph, &url, token.as_deref(), &key).await?;
            if let Some(p) = &out {
                std::fs::write(p, &w.checkpoint).with_context(|| p.display().to_string())?;
            }
            let text = if json {
                serde_json::to_string_pretty(&w)? + "\n"
            } else {
                eprintln!(
                    "witness {} cosigned {} at size {} (it had cosigned {} leaves before)",
                    w.witness, w.origin, w.size, w.old
                );
                w.checkpoint.clone()
            };
            (text, true)
        }
        LogCommand::Prove { graph, index, node, out } => {
            let index = match (index, node) {
                (Some(i), _) => i,
                (None, Some(name)) => {
                    let n = provex.node(&graph, &name).await?;
                    let leaves =
                        n.properties.get(provex::tlog::LEAVES_PROP).and_then(|v| v.as_array()).cloned();
                    match leaves.and_then(|l| l.last().and_then(serde_json::Value::as_u64)) {
                        Some(i) => i,
                        None => bail!("node {name} names no leaf of the log (it was written before the log or not by an ingest)"),
                    }
                }
                (None, None) => bail!("give --index or --node"),
            };
            let p = provex.log_prove(&graph, index).await?;
            (emit(&(serde_json::to_string_pretty(&p)? + "\n"), out.as_ref())?, true)
        }
        LogCommand::Consistency { graph, since, out } => {
            let old = std::fs::read(&since).with_context(|| since.display().to_string())?;
            let p = provex.log_consistency(&graph, &old).await?;
            (emit(&(serde_json::to_string_pretty(&p)? + "\n"), out.as_ref())?, true)
        }
        LogCommand::Verify { graph: Some(graph), json, .. } => {
            let check = provex.verify_graph_log(&graph).await?;
            let ok = check.mismatches.is_empty() && check.checkpoint_matches;
            let text = if json { serde_json::to_string_pretty(&check)? + "\n" } else { render_check(&check) };
            (text, ok)
        }
        LogCommand::Verify { file: Some(file), key, witness, .. } => {
            verify_file(&file, key.as_deref(), &witness)?
        }
        LogCommand::Verify { .. } => bail!("give a file or --graph"),
    })
}
