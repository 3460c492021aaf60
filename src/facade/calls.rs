//! The implementation of every declared operation (`api::ops`), over the facade: what
//! `provex serve`'s routes and the desktop shell's generic command both run, so no
//! argument handling or default is written twice. A call carries what a transport knows
//! beyond the request: whether it needs a token, a cancel flag for ingests, the body's
//! bytes for the operations that take a file, and, in the desktop shell, the host that
//! does what needs the user's machine (dialogs, settings).

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use futures_util::future::BoxFuture;
use futures_util::stream::BoxStream;
use futures_util::StreamExt;
use tokio::io::AsyncWriteExt;

use super::{IngestReport, Provex, Quiet, ViewRequest as LiveViewRequest};
use crate::api::ops::{self, Args, Handlers};
use crate::api::*;
use crate::error::{Error, Result};
use crate::ingest::{IngestOptions, LineBudget};
use crate::sources::statements::Trail;
use crate::store::{NodeRecord, PathResult, Stats, Subgraph, Table};

/// A request body streamed in (an upload).
pub type Payload = BoxStream<'static, std::io::Result<Bytes>>;

/// What only the desktop shell can do: it implements this, `provex serve` has none.
pub trait DesktopHost: Send + Sync {
    fn settings(&self) -> Result<SettingsView>;
    fn save_settings(&self, update: SettingsUpdate) -> Result<SettingsView>;
    /// Asks where to save `bytes` (suggesting `name`) and saves them; `None` if cancelled.
    fn save_file(&self, name: String, bytes: Vec<u8>) -> BoxFuture<'_, Result<Option<String>>>;
    /// The window now shows `graph` (menu actions act on it).
    fn showing(&self, _graph: &str) {}
}

/// One operation call as a transport makes it.
pub struct Call<'a> {
    provex: &'a Arc<Provex>,
    host: Option<&'a dyn DesktopHost>,
    auth: bool,
    cancel: Arc<AtomicBool>,
    payload: Mutex<Option<Payload>>,
    limits: BodyLimits,
}

/// What a server allows a streamed request body (`POST …/events`).
#[derive(Debug, Clone)]
pub struct BodyLimits {
    /// The longest line taken; a longer one is rejected and the body goes on.
    pub max_line_bytes: usize,
    /// The memory every body's unfinished lines share.
    pub line_budget: Option<LineBudget>,
}

impl Default for BodyLimits {
    fn default() -> Self {
        BodyLimits { max_line_bytes: crate::ingest::DEFAULT_MAX_LINE_BYTES, line_budget: None }
    }
}

impl<'a> Call<'a> {
    /// A call over HTTP: `auth` says whether the server needs a token.
    pub fn http(provex: &'a Arc<Provex>, auth: bool) -> Self {
        Call {
            provex,
            host: None,
            auth,
            cancel: Arc::new(AtomicBool::new(false)),
            payload: Mutex::new(None),
            limits: BodyLimits::default(),
        }
    }

    /// A call from the desktop window; `cancel` is tripped when the app closes.
    pub fn desktop(provex: &'a Arc<Provex>, host: &'a dyn DesktopHost, cancel: Arc<AtomicBool>) -> Self {
        Call {
            provex,
            host: Some(host),
            auth: false,
            cancel,
            payload: Mutex::new(None),
            limits: BodyLimits::default(),
        }
    }

    /// The limits a streamed body is read under.
    pub fn with_limits(mut self, limits: BodyLimits) -> Self {
        self.limits = limits;
        self
    }

    /// The request body, for the operations that take a file's bytes.
    pub fn with_payload(self, payload: Payload) -> Self {
        *self.payload.lock().expect("payload") = Some(payload);
        self
    }

    /// The request body as one piece of bytes.
    pub fn with_bytes(self, bytes: Vec<u8>) -> Self {
        let chunk = Bytes::from(bytes);
        self.with_payload(futures_util::stream::once(async move { Ok(chunk) }).boxed())
    }

    /// Runs the operation `name`; the response as JSON text.
    pub async fn run(&self, name: &str, args: Args) -> Result<String> {
        let op =
            ops::find(name).ok_or_else(|| Error::NotFound { what: "operation", name: name.to_owned() })?;
        if op.transport == ops::Transport::Desktop && self.host.is_none() {
            return Err(Error::Unsupported(format!("`{name}` is only offered by the desktop app")));
        }
        ops::dispatch(self, name, args).await
    }

    fn host(&self) -> Result<&'a dyn DesktopHost> {
        self.host.ok_or_else(|| Error::Unsupported("only the desktop app offers this".into()))
    }

    fn take_payload(&self) -> Result<Payload> {
        self.payload
            .lock()
            .expect("payload")
            .take()
            .ok_or_else(|| Error::BadRequest("the file's bytes are missing".into()))
    }

    async fn ingest_paths(
        &self,
        graph: &str,
        paths: &[PathBuf],
        format: Option<&str>,
    ) -> Result<IngestReport> {
        crate::store::validate_graph_name(graph)?;
        let format = super::parse_format(format)?;
        let opts = IngestOptions { format, ..Default::default() };
        self.provex.ingest(graph, paths, opts, self.cancel.clone(), Arc::new(Quiet)).await
    }
}

impl Handlers for Call<'_> {
    async fn health(&self, _: NoArgs) -> Result<Health> {
        Ok(self.provex.health(self.auth))
    }

    async fn graphs(&self, _: NoArgs) -> Result<Vec<String>> {
        self.provex.graphs().await
    }

    async fn delete_graph(&self, req: GraphRequest) -> Result<()> {
        self.provex.delete_graph(&req.graph).await
    }

    async fn stats(&self, req: GraphRequest) -> Result<Stats> {
        self.provex.stats(&req.graph).await
    }

    async fn view(&self, req: ViewRequest) -> Result<View> {
        let aspect = match (req.viewport_width, req.viewport_height) {
            (Some(w), Some(h)) if w > 0 && h > 0 => Some(f64::from(w) / f64::from(h)),
            _ => None,
        };
        let live = LiveViewRequest {
            root: req.root.filter(|r| !r.is_empty()),
            depth: req.depth,
            limit: req.limit,
            aspect,
            cluster: req.cluster.filter(|c| !c.is_empty()),
        };
        let view = self.provex.view(&req.graph, live).await?;
        if let Some(host) = self.host {
            host.showing(&req.graph);
        }
        Ok(view)
    }

    async fn cluster_edges(&self, req: ClusterEdgesRequest) -> Result<Vec<ViewEdge>> {
        self.provex.cluster_edges(&req.graph, req.cluster.as_deref().filter(|c| !c.is_empty())).await
    }

    async fn node(&self, req: NodeRequest) -> Result<NodeRecord> {
        self.provex.node(&req.graph, &req.id).await
    }

    async fn neighbours(&self, req: NodeRequest) -> Result<Subgraph> {
        self.provex.neighbours(&req.graph, &req.id).await
    }

    async fn trace(&self, req: TraceRequest) -> Result<Subgraph> {
        self.provex.trace(&req.graph, &req.id, req.dir(), req.depth()).await
    }

    async fn path(&self, req: PathRequest) -> Result<Option<PathResult>> {
        self.provex.path(&req.graph, &req.from, &req.to).await
    }

    async fn diff(&self, req: DiffRequest) -> Result<crate::diff::GraphDiff> {
        self.provex.diff_graphs(&req.a, &req.b).await
    }

    async fn export_prov(&self, req: ExportRequest) -> Result<ExportedDocument> {
        let format: crate::sources::prov::ProvFormat = req.format.parse().map_err(Error::Usage)?;
        let text = self.provex.export_prov(&req.graph, format).await?;
        Ok(ExportedDocument {
            format: format.to_string(),
            media_type: format.media_type().to_owned(),
            file_name: format!("provex-{}.{}", req.graph, format.extension()),
            text,
        })
    }

    async fn bundle(&self, req: BundleRequest) -> Result<ExportedDocument> {
        let key = match req.key.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
            Some(k) => Some(self.provex.key_file_path(k)?),
            None => None,
        };
        let statements = req.statements.unwrap_or_default();
        let text = self.provex.bundle(&req.graph, &statements, key.as_deref()).await?;
        Ok(ExportedDocument {
            format: "audit-bundle".to_owned(),
            media_type: "application/ld+json".to_owned(),
            file_name: format!("provex-{}-bundle.jsonld", req.graph),
            text,
        })
    }

    async fn ask(&self, req: AskRequest) -> Result<crate::ask::Answer> {
        self.provex.ask(&req.graph, &req.question).await
    }

    async fn knowledge(&self, req: NodeRequest) -> Result<crate::facade::knowledge::ResourceKnowledge> {
        self.provex.kg_resource(&req.graph, &req.id).await
    }

    async fn sessions(
        &self,
        req: GraphRequest,
    ) -> Result<Vec<crate::sources::reasoning::views::SessionSummary>> {
        self.provex.sessions(&req.graph).await
    }

    async fn reasoning(&self, req: NodeRequest) -> Result<crate::sources::reasoning::views::ReasoningChain> {
        self.provex.reasoning(&req.graph, &req.id).await
    }

    async fn lineages(
        &self,
        req: GraphRequest,
    ) -> Result<Vec<crate::sources::lineage::views::LineageSummary>> {
        self.provex.lineages(&req.graph).await
    }

    async fn lineage(&self, req: NodeRequest) -> Result<crate::sources::lineage::views::LineageGraph> {
        self.provex.lineage_graph(&req.graph, &req.id).await
    }

    async fn lineage_compare(
        &self,
        req: LineageCompareRequest,
    ) -> Result<crate::sources::lineage::views::Comparison> {
        self.provex.lineage_compare(&req.graph, &req.a, &req.b, true, true).await
    }

    async fn query(&self, req: QueryRequest) -> Result<Table> {
        self.provex.query(&req.graph, &req.cypher).await
    }

    async fn trail(&self, req: StatementRequest) -> Result<Trail> {
        self.provex.trail(&req.graph, &req.statement).await
    }

    async fn source(&self, req: NodeRequest) -> Result<SourceText> {
        self.provex.source_text(&req.graph, &req.id).await
    }

    async fn search(&self, req: SearchRequest) -> Result<Vec<SearchHit>> {
        self.provex.search(&req.graph, &req.q, req.limit()).await
    }

    async fn upload(&self, req: UploadRequest) -> Result<IngestReport> {
        crate::store::validate_graph_name(&req.graph)?;
        super::parse_format(req.format.as_deref())?;
        let mut body = self.take_payload()?;
        let path = self.provex.new_upload_path(&req.name)?;
        let mut file = tokio::fs::File::create(&path).await.map_err(|e| Error::io(&path, e))?;
        while let Some(chunk) = body.next().await {
            let chunk = chunk.map_err(|e| match e.kind() {
                std::io::ErrorKind::FileTooLarge => Error::PayloadTooLarge(e.to_string()),
                _ => Error::Usage(format!("upload interrupted: {e}")),
            })?;
            file.write_all(&chunk).await.map_err(|e| Error::io(&path, e))?;
        }
        file.flush().await.map_err(|e| Error::io(&path, e))?;
        drop(file);
        self.ingest_paths(&req.graph, &[path], req.format.as_deref()).await
    }

    async fn events(&self, req: EventsRequest) -> Result<IngestReport> {
        crate::store::validate_graph_name(&req.graph)?;
        let format = super::parse_format(req.format.as_deref())?;
        let body = self.take_payload()?;
        let rejects = self.provex.new_upload_path(&format!("events-{}.jsonl", req.graph))?;
        let opts = IngestOptions {
            format,
            rejects: Some(rejects.with_extension("rejected.jsonl")),
            max_line_bytes: self.limits.max_line_bytes,
            line_budget: self.limits.line_budget.clone(),
            ..Default::default()
        };
        let name = PathBuf::from(format!("POST /api/graphs/{}/events", req.graph));
        // On a task of its own: a client that goes away mid-body ends the body, and every
        // line it sent whole is still written.
        let (provex, cancel) = (self.provex.clone(), self.cancel.clone());
        let ingest = tokio::spawn(async move {
            provex.ingest_stream(&req.graph, name, body, opts, cancel, Arc::new(Quiet)).await
        });
        ingest.await.map_err(|e| Error::Server(format!("events ingest: {e}")))?
    }

    async fn follow(&self, req: FollowRequest) -> Result<Job> {
        self.provex.start_follow(&req.graph, PathBuf::from(req.path), req.format.as_deref())
    }

    async fn demo(&self, req: DemoRequest) -> Result<Job> {
        self.provex.start_demo(&req.graph, req.pace_ms)
    }

    async fn tidy(&self, req: TidyRequest) -> Result<TidyResult> {
        let save = req.save.unwrap_or(false);
        let moves = if save {
            self.provex.tidy(&req.graph).await?
        } else {
            self.provex.tidy_preview(&req.graph).await?
        };
        Ok(TidyResult { moves, saved: save })
    }

    async fn jobs(&self, _: NoArgs) -> Result<Vec<Job>> {
        Ok(self.provex.jobs())
    }

    async fn stop_job(&self, req: JobRequest) -> Result<Job> {
        self.provex.stop_job(&req.id)
    }

    async fn ingest_files(&self, req: IngestFilesRequest) -> Result<IngestReport> {
        self.host()?;
        let paths: Vec<PathBuf> = req.paths.into_iter().map(PathBuf::from).collect();
        self.ingest_paths(&req.graph, &paths, req.format.as_deref()).await
    }

    async fn get_settings(&self, _: NoArgs) -> Result<SettingsView> {
        self.host()?.settings()
    }

    async fn save_settings(&self, req: SettingsUpdate) -> Result<SettingsView> {
        self.host()?.save_settings(req)
    }

    async fn save_file(&self, req: SaveFileRequest) -> Result<Option<String>> {
        let host = self.host()?;
        let mut body = self.take_payload()?;
        let mut bytes = Vec::new();
        while let Some(chunk) = body.next().await {
            bytes.extend_from_slice(&chunk.map_err(|e| Error::Usage(format!("save interrupted: {e}")))?);
        }
        host.save_file(req.name, bytes).await
    }
}
