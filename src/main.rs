//! The `provex` command line: parses arguments, runs one command through the core facade,
//! and exits 0 on success, 1 when records were rejected, 2 on usage or connection errors.

// The facade's futures (the falkordb client's) nest deeply.
#![recursion_limit = "256"]

mod cli;

use std::process::ExitCode;

use clap::Parser;

// Ingest allocates many small strings and maps; mimalloc halves the time spent in malloc.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// How long (ms) mimalloc keeps freed memory before giving it back to the OS. Its default
/// (1 s) returns pages between a server's requests, and the kernel zeroes each page again
/// when it is taken back: a sixth of the time of decoding and normalising OTLP spans
/// (docs/BENCHMARKS.md, "OpenTelemetry traces"). Memory unused for this long still goes back.
/// `bench_otel_decode` sets the same.
const MIMALLOC_PURGE_DELAY_MS: std::ffi::c_long = 10_000;

/// Sets mimalloc's purge delay, unless `MIMALLOC_PURGE_DELAY` in the environment (read by
/// mimalloc itself) says otherwise.
fn tune_allocator() {
    // mimalloc's option API (`mimalloc.h`); the `mimalloc` crate links it but does not
    // expose it without its `extended` feature.
    extern "C" {
        fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    }
    const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one of mimalloc's options by its number in `mi_option_t`; options
        // may be set at any time.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, MIMALLOC_PURGE_DELAY_MS) };
    }
}

fn main() -> ExitCode {
    tune_allocator();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("PROVEX_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let cli = cli::Cli::parse();
    // A command that prints and ends (`provex diff … | head`) ends quietly when its reader
    // stops early, as Unix tools do, rather than panicking on the closed pipe. The server and
    // the follower keep the runtime's default (the signal ignored, the error handled).
    #[cfg(unix)]
    if !matches!(cli.command, cli::Command::Serve { .. } | cli::Command::Ingest { .. }) {
        // SAFETY: restores the default action of SIGPIPE before any thread is started.
        unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("provex: cannot start the async runtime: {e}");
            return ExitCode::from(2);
        }
    };
    let result = runtime.block_on(cli::run(cli));
    // Work still running (a client's request after SIGTERM's grace period) is dropped, not
    // waited for.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            match e.downcast_ref::<provex::Error>() {
                Some(err) => eprintln!("provex: error[{}]: {err}", err.code()),
                None => eprintln!("provex: error: {e:#}"),
            }
            ExitCode::from(2)
        }
    }
}
