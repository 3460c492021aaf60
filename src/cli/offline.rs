//! The commands that need no database: checking signed files and audit bundles, keys,
//! a log file, the generated TypeScript contract, signing, comparing two files, laying out a
//! graph file, and writing the demo's files.

use std::path::Path;

use anyhow::Context as _;
use provex::facade;

use super::output::{self, render, OutputFormat};
use super::{
    log, Command, ConnArgs, DemoCommand, DiffFormat, KeysCommand, LayoutDirection, LayoutFormat, EXIT_FAILED,
};

/// What became of a command here.
pub(super) enum Offline {
    /// It ran, with this exit status.
    Done(u8),
    /// It needs the database.
    Needs(Box<Command>),
}

/// Runs `command` if it needs no database (a diff of two files; of graphs it opens `conn`).
pub(super) async fn run(command: Command, conn: &ConnArgs) -> anyhow::Result<Offline> {
    match command {
        Command::Verify { files, graph: None, keys, trust, since, witness, format }
            if trust.is_some()
                || since.is_some()
                || !witness.is_empty()
                || (files.len() == 1 && (facade::is_bundle_file(&files[0]) || is_blank(&files[0]))) =>
        {
            if keys.is_some() {
                anyhow::bail!(
                    "a bundle carries its own keys: --keys does not apply (pin whom you trust with --trust)"
                );
            }
            let [file] = files.as_slice() else {
                anyhow::bail!("--trust checks one audit bundle at a time");
            };
            let witnesses = witness
                .iter()
                .map(|w| match std::fs::read_to_string(w) {
                    Ok(text) => text.trim().to_owned(),
                    Err(_) => w.trim().to_owned(),
                })
                .collect::<Vec<_>>();
            let check = facade::verify_bundle_file(file, trust.as_deref(), since.as_deref(), &witnesses)?;
            print!("{}", render(&check, format.into())?);
            Ok(Offline::Done(match check.trust {
                provex::sources::statements::trust::TrustStatus::Failed => EXIT_FAILED,
                _ => 0,
            }))
        }
        Command::Verify { files, graph: None, keys, format, .. } => {
            let report = facade::verify_files(&files, keys.as_deref())?;
            print!("{}", render(&report, format.into())?);
            Ok(Offline::Done(if report.exit_code() == 0 { 0 } else { EXIT_FAILED }))
        }
        Command::Keys { command } => Ok(Offline::Done(keys(command)?)),
        Command::Log {
            command: log::LogCommand::Verify { file: Some(file), key, graph: None, witness, .. },
        } => {
            let (text, ok) = log::verify_file(&file, key.as_deref(), &witness)?;
            print!("{text}");
            Ok(Offline::Done(if ok { 0 } else { EXIT_FAILED }))
        }
        Command::Contract { root } => {
            for (path, text) in
                provex::api::typescript::generated(provex::facade::OPERATIONS, &provex::graphql::sdl())
            {
                let out = root.join(path);
                std::fs::write(&out, text).with_context(|| out.display().to_string())?;
                eprintln!("wrote {}", out.display());
            }
            Ok(Offline::Done(0))
        }
        Command::Sign { file, key, embed, out } => {
            let signed = facade::sign_file(&file, &key, embed)?;
            match out {
                Some(path) => std::fs::write(&path, signed).with_context(|| path.display().to_string())?,
                None => print!("{signed}"),
            }
            Ok(Offline::Done(0))
        }
        Command::Diff { a, b, traces, format } => {
            let traced = match traces.as_slice() {
                [] => None,
                [ta, tb] => Some((ta.as_str(), tb.as_str())),
                _ => anyhow::bail!("give --trace twice (a trace of A, then one of B), or not at all"),
            };
            let Some(b) = b.or_else(|| traced.map(|_| a.clone())) else {
                anyhow::bail!("give two graphs or files to compare, or one with --trace twice");
            };
            let (a, b) = (facade::DiffSide::parse(&a), facade::DiffSide::parse(&b));
            let d = match (&a, &b, traced) {
                (facade::DiffSide::File(fa), facade::DiffSide::File(fb), None) => facade::diff_files(fa, fb)?,
                (facade::DiffSide::File(fa), facade::DiffSide::File(fb), Some((ta, tb))) => {
                    facade::diff_file_traces(fa, fb, ta, tb)?
                }
                (_, _, None) => super::open(conn).await?.diff(&a, &b).await?,
                (_, _, Some((ta, tb))) => super::open(conn).await?.diff_traces(&a, &b, ta, tb).await?,
            };
            match format {
                DiffFormat::Text => print!("{}", provex::diff::render_text(&d)),
                DiffFormat::Json => println!("{}", serde_json::to_string_pretty(&d)?),
            }
            let differs = match (&d.traces, traced) {
                (Some(t), Some(_)) => t.differs(),
                _ => !d.is_empty(),
            };
            Ok(Offline::Done(if differs { EXIT_FAILED } else { 0 }))
        }
        Command::Layout { graph: None, input: Some(input), direction, format, out, .. } => {
            let laid = facade::layout_file(&input, &layout_options(direction))?;
            emit_layout(&laid, format, out.as_deref())?;
            Ok(Offline::Done(0))
        }
        Command::Demo { command: DemoCommand::Council { graph: None, pace: _, out: Some(dir) } } => {
            let files = facade::write_council_files(&dir)?;
            let report = facade::DemoReport { files, ..Default::default() };
            print!("{}", render(&report, OutputFormat::Text)?);
            Ok(Offline::Done(0))
        }
        other => Ok(Offline::Needs(Box::new(other))),
    }
}

/// Whether a file holds nothing but white space (nothing to verify: a failed check).
fn is_blank(path: &Path) -> bool {
    std::fs::read(path).is_ok_and(|b| b.iter().all(u8::is_ascii_whitespace))
}

pub(super) fn layout_options(direction: LayoutDirection) -> provex::layout::LayoutOptions {
    let direction = match direction {
        LayoutDirection::Down => provex::layout::Direction::Down,
        LayoutDirection::Right => provex::layout::Direction::Right,
    };
    provex::layout::LayoutOptions { direction, ..Default::default() }
}

pub(super) fn emit_layout(
    laid: &facade::LaidOut,
    format: LayoutFormat,
    out: Option<&Path>,
) -> anyhow::Result<()> {
    let text = match format {
        LayoutFormat::Json => laid.to_json() + "\n",
        LayoutFormat::Svg => laid.to_svg(),
    };
    match out {
        Some(path) => std::fs::write(path, text).with_context(|| path.display().to_string())?,
        None => print!("{text}"),
    }
    Ok(())
}

fn keys(command: KeysCommand) -> anyhow::Result<u8> {
    match command {
        KeysCommand::Generate { id, agent, out, registry } => {
            if out.exists() {
                anyhow::bail!("{} exists: not overwriting a key file", out.display());
            }
            let key = facade::generate_key(&id, &agent)?;
            write_secret(&out, &key.to_json())?;
            println!("wrote {} (key {id} for {agent}; keep it secret)", out.display());
            if let Some(reg) = registry {
                facade::add_key(&reg, &out)?;
                println!("added {id} to {}", reg.display());
            }
        }
        KeysCommand::Add { key_file, registry } => {
            let reg = facade::add_key(&registry, &key_file)?;
            println!("{}: {} keys", registry.display(), reg.len());
        }
        KeysCommand::List { registry, format } => {
            let mut keys = facade::read_registry(&registry)?.entries();
            keys.sort_by(|a, b| a.key_id.cmp(&b.key_id));
            print!("{}", render(&output::KeyList { keys }, format.format)?);
        }
    }
    Ok(0)
}

/// Writes a file readable by its owner only.
fn write_secret(path: &Path, text: &str) -> anyhow::Result<()> {
    use std::io::Write as _;
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        opts.mode(0o600);
    }
    let mut f = opts.open(path).with_context(|| path.display().to_string())?;
    f.write_all(text.as_bytes())?;
    Ok(())
}
