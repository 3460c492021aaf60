//! The values some of the command line's options take (layout direction and format, export,
//! diff, verify and input formats), and what each stands for in the library.

use provex::ingest::Format;

use super::output::OutputFormat;

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LayoutDirection {
    Down,
    Right,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LayoutFormat {
    Json,
    Svg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ExportFormat {
    ProvJson,
    ProvN,
    ProvOTurtle,
    ProvOJsonld,
}

impl From<ExportFormat> for provex::sources::prov::ProvFormat {
    fn from(f: ExportFormat) -> Self {
        use provex::sources::prov::ProvFormat;
        match f {
            ExportFormat::ProvJson => ProvFormat::ProvJson,
            ExportFormat::ProvN => ProvFormat::ProvN,
            ExportFormat::ProvOTurtle => ProvFormat::ProvOTurtle,
            ExportFormat::ProvOJsonld => ProvFormat::ProvOJsonld,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DiffFormat {
    Text,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum VerifyFormat {
    Json,
    Text,
    Table,
}

impl From<VerifyFormat> for OutputFormat {
    fn from(f: VerifyFormat) -> Self {
        match f {
            VerifyFormat::Json => OutputFormat::Json,
            VerifyFormat::Text => OutputFormat::Text,
            VerifyFormat::Table => OutputFormat::Table,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum InputFormat {
    Auto,
    A2a,
    A2ap,
    ProvJson,
    /// W3C PROV-O in Turtle (docs/FORMATS.md "PROV-O (Turtle) in").
    #[value(name = "prov-o")]
    ProvO,
    Lineage,
    #[value(name = "trustgraph")]
    TrustGraph,
    /// OpenTelemetry traces, OTLP JSON (docs/FORMATS.md "OpenTelemetry traces").
    Otlp,
}

impl From<InputFormat> for Format {
    fn from(f: InputFormat) -> Self {
        match f {
            InputFormat::Auto => Format::Auto,
            InputFormat::A2a => Format::A2a,
            InputFormat::A2ap => Format::A2ap,
            InputFormat::ProvJson => Format::ProvJson,
            InputFormat::ProvO => Format::ProvO,
            InputFormat::Lineage => Format::Lineage,
            InputFormat::TrustGraph => Format::TrustGraph,
            InputFormat::Otlp => Format::Otlp,
        }
    }
}
