//! `provex search`: a search across every graph through the index the write path keeps
//! (`src/search/`), and `provex search reindex`, which rebuilds that index from the graphs.

use clap::{Args, Subcommand};
use comfy_table::{presets::UTF8_FULL_CONDENSED, Table as Grid};
use provex::facade::Provex;
use provex::search::GraphHit;
use serde::Serialize;

use super::graph_arg::FormatArg;
use super::output::{render, Render};

/// Search every graph: the words of a claim, a quote, a prompt, an agent or a document, or an
/// id (a node's name, a trace or span id) matched exactly; each hit with its graph.
/// `provex search reindex` rebuilds the index from the graphs (to search for the word itself:
/// `provex search -- reindex`).
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct SearchArgs {
    #[command(subcommand)]
    command: Option<SearchCommand>,
    /// What to look for (at most 256 characters and 16 words).
    query: Option<String>,
    /// The most hits (at most 200).
    #[arg(long, default_value_t = 20)]
    limit: u32,
    #[command(flatten)]
    format: FormatArg,
}

#[derive(Debug, Subcommand)]
pub enum SearchCommand {
    /// Rebuild the search index from what the graphs hold (one graph, or every graph).
    Reindex {
        /// Only this graph.
        #[arg(long, short)]
        graph: Option<String>,
    },
}

/// A search's hits, by graph.
#[derive(Serialize)]
struct Hits {
    hits: Vec<GraphHit>,
}

impl Render for Hits {
    fn text(&self) -> String {
        let mut s = String::new();
        let mut graph = None;
        for h in &self.hits {
            if graph != Some(&h.graph) {
                s.push_str(&format!("{}\n", h.graph));
                graph = Some(&h.graph);
            }
            s.push_str(&format!("  {:<12} {}  {}\n", h.kind, h.id, h.snippet));
        }
        if self.hits.is_empty() {
            s.push_str("no matches\n");
        }
        s
    }
    fn table(&self) -> Grid {
        let mut g = Grid::new();
        g.load_preset(UTF8_FULL_CONDENSED);
        g.set_header(["graph", "kind", "node", "matched", "snippet"]);
        for h in &self.hits {
            g.add_row([&h.graph, &h.kind, &h.id, &h.matched, &h.snippet]);
        }
        g
    }
}

/// Runs `provex search`: the text printed.
pub async fn run(provex: &Provex, args: SearchArgs) -> anyhow::Result<String> {
    let SearchArgs { command, query, limit, format } = args;
    match (command, query) {
        (Some(SearchCommand::Reindex { graph }), _) => {
            let report = provex.search_reindex(graph.as_deref()).await?;
            let mut s = String::new();
            for (g, n) in &report.graphs {
                s.push_str(&format!("{g}: {n} items\n"));
            }
            if report.graphs.is_empty() {
                s.push_str("no graphs\n");
            }
            Ok(s)
        }
        (None, Some(q)) => render(&Hits { hits: provex.search_all(&q, limit).await? }, format.format),
        (None, None) => Err(provex::Error::Usage(
            "give what to search for (provex search TEXT), or `provex search reindex`".into(),
        )
        .into()),
    }
}
