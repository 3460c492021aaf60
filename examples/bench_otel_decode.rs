//! Decode and normalise OTLP traces (docs/FORMATS.md "OpenTelemetry traces"), single-threaded,
//! as spans per second: protobuf (`decode_protobuf`) and OTLP JSON (`decode_json`), each
//! followed by the normaliser into a graph delta, on requests of 100 agent-like spans (an
//! LLM call with GenAI messages, a tool call with arguments and result, an agent invocation
//! over them). No database. Each input is timed twice: decoded alone, then decoded and
//! normalised (the difference is the normaliser's). Each figure is given by the wall clock
//! and by the thread's CPU time: on a machine shared with other work, the CPU time is the
//! steadier of the two (time spent waiting for the core is not counted).
//!
//! `cargo run --release --example bench_otel_decode [SPANS] [protobuf|json]` (default 200,000
//! spans, both inputs; naming one runs only it, for a profiler).

use std::time::Instant;

#[path = "support/otel_spans.rs"]
mod otel_spans;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's purge delay as `provex` sets it (`MIMALLOC_PURGE_DELAY_MS` in src/main.rs: freed
/// memory kept 10 s rather than 1 s, so pages are not zeroed again by the kernel when taken
/// back), unless `MIMALLOC_PURGE_DELAY` in the environment says otherwise (to compare).
fn tune_allocator() {
    extern "C" {
        fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
    }
    const MI_OPTION_PURGE_DELAY: std::ffi::c_int = 15;
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
        // SAFETY: sets one of mimalloc's options by its number in `mi_option_t`.
        unsafe { mi_option_set(MI_OPTION_PURGE_DELAY, 10_000) };
    }
}

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use provex::model::GraphDelta;
use provex::sources::otel::normalise;
use provex::sources::otel::wire::{decode_json, decode_protobuf, encode_json, encode_protobuf};

const PER_REQUEST: usize = 100;

/// Wall-clock and CPU time of the calling thread, from one moment.
struct Clock {
    wall: Instant,
    cpu: f64,
}

impl Clock {
    fn start() -> Self {
        Clock { wall: Instant::now(), cpu: thread_cpu_secs() }
    }

    /// Seconds since the start: (wall clock, this thread's CPU).
    fn elapsed(&self) -> (f64, f64) {
        (self.wall.elapsed().as_secs_f64(), thread_cpu_secs() - self.cpu)
    }
}

/// The process's minor page faults so far (pages the kernel had to map, and zero, afresh).
fn minor_faults() -> i64 {
    // SAFETY: `usage` is a valid rusage to write.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    usage.ru_minflt
}

/// This thread's CPU time in seconds (user and system).
fn thread_cpu_secs() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid timespec to write; the clock id is a constant the kernel knows.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 / 1e9
}

fn run(name: &str, bodies: &[Vec<u8>], decode: impl Fn(&[u8]) -> ExportTraceServiceRequest) {
    let spans = bodies.len() * PER_REQUEST;
    let rate = |secs: f64| spans as f64 / secs;
    // The decoder alone first (what is left of the time is the normaliser's).
    let clock = Clock::start();
    for b in bodies {
        std::hint::black_box(decode(b));
    }
    let (wall, cpu) = clock.elapsed();
    println!("{name:9} decode alone: {:.0} spans/s (CPU time: {:.0} spans/s)", rate(wall), rate(cpu));
    let faults = minor_faults();
    let clock = Clock::start();
    let mut nodes = 0;
    for b in bodies {
        let mut delta = GraphDelta::new();
        let counts = normalise(&decode(b), &mut delta);
        assert_eq!(counts.accepted as usize, PER_REQUEST);
        nodes += delta.node_count();
    }
    let (wall, cpu) = clock.elapsed();
    let bytes: usize = bodies.iter().map(Vec::len).sum();
    println!(
        "{name:9} {spans} spans in {wall:.3} s: {:.0} spans/s ({:.1} MB/s, {nodes} node upserts; \
         CPU time {cpu:.3} s: {:.0} spans/s; {} page faults)",
        rate(wall),
        bytes as f64 / wall / 1e6,
        rate(cpu),
        minor_faults() - faults
    );
}

fn main() {
    tune_allocator();
    let spans: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(200_000);
    let requests: Vec<_> =
        (0..spans.div_ceil(PER_REQUEST)).map(|n| otel_spans::request(n, PER_REQUEST)).collect();
    let only = std::env::args().nth(2);
    let wanted = |name: &str| only.as_deref().is_none_or(|o| o == name);
    if wanted("protobuf") {
        let proto: Vec<Vec<u8>> = requests.iter().map(encode_protobuf).collect();
        run("protobuf", &proto, |b| decode_protobuf(b).expect("protobuf"));
    }
    if wanted("json") {
        let json: Vec<Vec<u8>> = requests.iter().map(|r| encode_json(r).into_bytes()).collect();
        run("json", &json, |b| decode_json(b).expect("json"));
    }
}
