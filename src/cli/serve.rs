//! `provex serve`: the limits, the token's folder and the options of the HTTP server.

use std::path::Path;
use std::sync::Arc;

use provex::facade::Provex;
use provex::store::server::ServerOptions;

use super::{Command, ConnArgs};

/// Serves until stopped.
pub(super) async fn run(provex: Provex, conn: &ConnArgs, command: Command) -> anyhow::Result<()> {
    let Command::Serve {
        bind,
        token,
        ui,
        open,
        allow_dir,
        alignment,
        max_bodies,
        body_timeout,
        line_budget,
        shutdown_grace,
        otlp_grpc,
        otlp_max_exports,
        witness_log,
    } = command
    else {
        unreachable!("a serve command")
    };
    let mut logs = Vec::new();
    for k in witness_log {
        match std::fs::read_to_string(&k) {
            Ok(text) => logs.extend(text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned)),
            Err(_) => logs.push(k),
        }
    }
    provex.set_witnessed_logs(logs)?;
    if let Some(file) = alignment {
        provex.set_alignment(Some(provex::sources::knowledge::Alignment::load(&file)?));
    }
    let seconds = |s: f64, what: &str| {
        std::time::Duration::try_from_secs_f64(s)
            .map_err(|_| provex::Error::Usage(format!("{what} must be a number of seconds ≥ 0")))
    };
    let limits = provex::serve::ServeLimits {
        max_bodies: max_bodies.max(1),
        body_idle: seconds(body_timeout, "--body-timeout")?,
        line_budget_bytes: line_budget.saturating_mul(1 << 20),
        shutdown_grace: seconds(shutdown_grace, "--shutdown-grace")?,
        otlp_max_exports: otlp_max_exports.max(1),
        ..Default::default()
    };
    // A made token is kept in the data folder for the same user's tools.
    let token_dir = match &conn.data_dir {
        Some(d) => Some(d.clone()),
        None => ServerOptions::app_default().ok().and_then(|o| o.data_dir.parent().map(Path::to_path_buf)),
    };
    let opts =
        provex::serve::ServeOptions { bind, token, token_dir, ui, open, allow_dirs: allow_dir, limits };
    provex::serve::run(Arc::new(provex), opts, otlp_grpc).await?;
    Ok(())
}
