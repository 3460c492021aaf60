//! The arguments many commands share: which graph, and how to print the answer.

use clap::Args;

use super::output::OutputFormat;

#[derive(Debug, Args)]
pub struct GraphArg {
    /// The graph to use.
    #[arg(long, short)]
    pub graph: String,
}

#[derive(Debug, Args)]
pub struct FormatArg {
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Text)]
    pub format: OutputFormat,
}
