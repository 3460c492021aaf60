//! Background runs a UI starts and may stop: following a growing file, and the paced
//! council demo. Each is a tokio task with a cancel flag; its state is kept for the UI to
//! list.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::{Provex, Quiet};
use crate::api::{Job, JobKind, JobState};
use crate::error::{Error, Result};
use crate::ingest::{Format, IngestOptions};

struct Entry {
    job: Job,
    cancel: Arc<AtomicBool>,
}

/// The jobs of a session.
#[derive(Default)]
pub(super) struct Jobs {
    next: AtomicU64,
    entries: Mutex<BTreeMap<u64, Entry>>,
}

impl Jobs {
    fn add(&self, kind: JobKind, graph: &str, detail: String) -> (u64, Job, Arc<AtomicBool>) {
        let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let job = Job {
            id: format!("job-{n}"),
            kind,
            graph: graph.to_owned(),
            state: JobState::Running,
            detail: Some(detail),
        };
        let cancel = Arc::new(AtomicBool::new(false));
        self.entries.lock().expect("jobs").insert(n, Entry { job: job.clone(), cancel: cancel.clone() });
        (n, job, cancel)
    }

    fn finish(&self, n: u64, result: Result<String>) {
        let mut entries = self.entries.lock().expect("jobs");
        if let Some(e) = entries.get_mut(&n) {
            let stopped = e.cancel.load(Ordering::Relaxed);
            match result {
                Ok(detail) => {
                    e.job.state = if stopped { JobState::Stopped } else { JobState::Done };
                    e.job.detail = Some(detail);
                }
                Err(err) => {
                    e.job.state = JobState::Failed;
                    e.job.detail = Some(format!("{} ({})", err, err.code()));
                }
            }
        }
    }
}

fn job_number(id: &str) -> Option<u64> {
    id.strip_prefix("job-")?.parse().ok()
}

/// Parses a format name a UI sends (`a2a`, `a2ap`, `auto` or none).
pub fn parse_format(name: Option<&str>) -> Result<Format> {
    match name.map(str::trim).filter(|s| !s.is_empty()) {
        None | Some("auto") => Ok(Format::Auto),
        Some("a2a") => Ok(Format::A2a),
        Some("a2ap") => Ok(Format::A2ap),
        Some("prov-json") => Ok(Format::ProvJson),
        Some("prov-o") => Ok(Format::ProvO),
        Some("lineage") => Ok(Format::Lineage),
        Some("trustgraph") => Ok(Format::TrustGraph),
        Some("otlp") => Ok(Format::Otlp),
        Some(other) => Err(Error::Usage(format!(
            "unknown format {other:?}: use a2a, a2ap, prov-json, prov-o, lineage, trustgraph, otlp or auto"
        ))),
    }
}

impl Provex {
    /// Streams the council demo into `graph` in the background, paced.
    pub fn start_demo(self: &Arc<Self>, graph: &str, pace_ms: Option<u64>) -> Result<Job> {
        crate::store::validate_graph_name(graph)?;
        let detail = match pace_ms {
            Some(p) => format!("council demo, one record every {p} ms"),
            None => "council demo".to_owned(),
        };
        let (n, job, cancel) = self.jobs.add(JobKind::Demo, graph, detail);
        let this = self.clone();
        let graph = graph.to_owned();
        tokio::spawn(async move {
            let r = this.demo_council(&graph, pace_ms, cancel).await;
            let r = r.map(|rep| format!("{} events, {} documents", rep.events, rep.documents));
            this.jobs.finish(n, r);
        });
        Ok(job)
    }

    /// Follows a growing file on this machine into `graph` in the background, until stopped.
    pub fn start_follow(self: &Arc<Self>, graph: &str, path: PathBuf, format: Option<&str>) -> Result<Job> {
        crate::store::validate_graph_name(graph)?;
        let format = parse_format(format)?;
        let path = self.paths.check(&path, "the file to follow")?;
        if !path.is_file() {
            return Err(Error::io(&path, std::io::Error::new(std::io::ErrorKind::NotFound, "no such file")));
        }
        let (n, job, cancel) = self.jobs.add(JobKind::Follow, graph, format!("following {}", path.display()));
        let this = self.clone();
        let graph = graph.to_owned();
        tokio::spawn(async move {
            let opts = IngestOptions { format, follow: true, ..Default::default() };
            let r = this.ingest(&graph, &[path], opts, cancel, Arc::new(Quiet)).await;
            let r = r.map(|rep| format!("{} events, {} rejected", rep.events, rep.rejected));
            this.jobs.finish(n, r);
        });
        Ok(job)
    }

    /// Every job of this session, oldest first.
    pub fn jobs(&self) -> Vec<Job> {
        self.jobs.entries.lock().expect("jobs").values().map(|e| e.job.clone()).collect()
    }

    /// Asks a job to stop; it ends at its next record.
    pub fn stop_job(&self, id: &str) -> Result<Job> {
        let entries = self.jobs.entries.lock().expect("jobs");
        let e = job_number(id)
            .and_then(|n| entries.get(&n))
            .ok_or_else(|| Error::NotFound { what: "job", name: id.to_owned() })?;
        e.cancel.store(true, Ordering::Relaxed);
        Ok(e.job.clone())
    }

    /// Stops every running job (on shutdown).
    pub fn stop_all_jobs(&self) {
        for e in self.jobs.entries.lock().expect("jobs").values() {
            e.cancel.store(true, Ordering::Relaxed);
        }
    }
}
