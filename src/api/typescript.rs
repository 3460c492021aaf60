//! What is generated from the contract, written by `provex contract` and checked fresh by a
//! test: the TypeScript types (`ui/src/api/contract.ts`, with `ts-rs`: every type the
//! declared operations, streams and shell events name, found from them), the TypeScript
//! client both UI transports use (`ui/src/api/client.ts`: one method per operation, the
//! routes and error codes of each), and the desktop shell's command list and capability
//! file (what the window may call). The operations are given by the caller (they are
//! declared above the sources, in the facade), as is the GraphQL schema.

use ts_rs::Config;

use super::ops::{self, OpInfo, Transport, DESKTOP_COMMANDS, STREAMS};
use super::registry::Registry;
use super::*;

/// Where the generated TypeScript types live, relative to the repository root.
pub const PATH: &str = "ui/src/api/contract.ts";
/// Where the generated TypeScript client lives.
pub const CLIENT_PATH: &str = "ui/src/api/client.ts";
/// The desktop shell's command names (read by its build script and its handler).
pub const COMMANDS_PATH: &str = "src-tauri/src/command_names.rs";
/// The desktop window's capability file.
pub const CAPABILITY_PATH: &str = "src-tauri/capabilities/default.json";

const HEADER: &str = "// Generated from src/api (the Rust contract) by `provex contract`. Do not edit:\n\
                      // change the Rust declarations and run `cargo run -- contract` (a test checks it is fresh).\n";

fn config() -> Config {
    // JavaScript numbers hold every count and sequence number Provex sends (< 2^53).
    Config::new().with_large_int("number")
}

/// The types the desktop shell's events and every error carry: named by no operation.
fn shell_types(r: &mut Registry) {
    r.add::<ErrorCode>();
    r.add::<ApiError>();
    r.add::<MenuEvent>();
    r.add::<IngestEvent>();
    r.add::<Notice>();
}

/// The generated types file: every type the operations, the streams and the shell's events
/// name, each once, by name.
pub fn contract_ts(operations: &[OpInfo]) -> String {
    let mut r = Registry::new(config());
    r.declared_elsewhere("JsonValue");
    shell_types(&mut r);
    for op in operations {
        (op.types)(&mut r);
    }
    for s in STREAMS {
        (s.types)(&mut r);
    }
    let mut out = String::from(HEADER);
    out.push_str(
        "\nexport type JsonValue = number | string | boolean | Array<JsonValue> | { [key in string]?: JsonValue } | null;\n\n",
    );
    // By name: ts-rs visits a type's dependencies in an order that changes between builds.
    let mut decls = r.into_decls();
    decls.sort();
    for (_, decl) in decls {
        out.push_str("export ");
        out.push_str(&decl);
        out.push_str("\n\n");
    }
    out.truncate(out.trim_end().len());
    out.push('\n');
    out
}

/// `delete_graph` → `deleteGraph`.
fn camel(name: &str) -> String {
    let mut out = String::new();
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// The declared type names a TypeScript type expression refers to (`Array<SearchHit>` →
/// `SearchHit`).
fn type_names(expr: &str) -> impl Iterator<Item = &str> {
    expr.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .filter(|w| w.starts_with(|c: char| c.is_ascii_uppercase()) && !matches!(*w, "Array" | "Record"))
}

fn jsdoc(doc: &str, indent: &str) -> String {
    let lines: Vec<&str> = doc.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    match lines.as_slice() {
        [] => String::new(),
        [one] => format!("{indent}/** {one} */\n"),
        many => {
            let mut s = format!("{indent}/**\n");
            for l in many {
                s.push_str(&format!("{indent} * {l}\n"));
            }
            s.push_str(&format!("{indent} */\n"));
            s
        }
    }
}

/// What the client file lists, gathered from the operations and streams.
#[derive(Default)]
struct ClientParts {
    imports: Vec<String>,
    requests: String,
    responses: String,
    table: String,
    methods: String,
    streams: String,
    stream_reqs: String,
    stream_msgs: String,
    stream_table: String,
}

impl ClientParts {
    /// One operation: its request and response types, its routing entry and its method.
    fn add_operation(&mut self, op: &OpInfo, cfg: &Config) {
        let (req, resp) = ((op.request)(cfg), (op.response)(cfg));
        self.imports.extend(type_names(&req).chain(type_names(&resp)).map(str::to_owned));
        self.requests.push_str(&format!("  {}: {req};\n", op.name));
        self.responses.push_str(&format!("  {}: {resp};\n", op.name));
        let errors: Vec<String> = op.errors.iter().map(|e| format!("\"{e}\"")).collect();
        self.table.push_str(&format!(
            "  {}: {{ method: \"{}\", path: \"{}\", args: \"{}\", desktopOnly: {}, errors: [{}] }},\n",
            op.name,
            op.method.as_str(),
            op.path,
            op.body.as_str(),
            op.transport == Transport::Desktop,
            errors.join(", "),
        ));
        self.methods.push_str(&jsdoc(op.doc, "  "));
        let default = if req == "NoArgs" { " = {}" } else { "" };
        let bytes = if op.body == ops::Body::Bytes { ", bytes: Bytes" } else { "" };
        let pass = if op.body == ops::Body::Bytes { ", bytes" } else { "" };
        self.methods.push_str(&format!(
            "  {}(req: {req}{default}{bytes}): Promise<{resp}> {{\n    return this.transport.call(\"{}\", req{pass});\n  }}\n\n",
            camel(op.name),
            op.name,
        ));
    }

    /// One stream: its request and message types, its path and its method.
    fn add_stream(&mut self, s: &ops::StreamInfo, cfg: &Config) {
        let (req, msg) = ((s.request)(cfg), (s.message)(cfg));
        self.imports.extend(type_names(&req).chain(type_names(&msg)).map(str::to_owned));
        self.stream_reqs.push_str(&format!("  {}: {req};\n", s.name));
        self.stream_msgs.push_str(&format!("  {}: {msg};\n", s.name));
        self.stream_table.push_str(&format!("  {}: {{ path: \"{}\" }},\n", s.name, s.path));
        self.streams.push_str(&jsdoc(s.doc, "  "));
        self.streams.push_str(&format!(
            "  {}(req: {req}, handlers: StreamHandlers<{msg}>): Subscription {{\n    return this.transport.subscribe(\"{}\", req, handlers);\n  }}\n\n",
            camel(s.name),
            s.name,
        ));
    }
}

/// The generated client file.
pub fn client_ts(operations: &[OpInfo]) -> String {
    let cfg = config();
    let mut parts = ClientParts { imports: vec!["ErrorCode".into()], ..ClientParts::default() };
    for op in operations {
        parts.add_operation(op, &cfg);
    }
    for s in STREAMS {
        parts.add_stream(s, &cfg);
    }
    parts.imports.sort();
    parts.imports.dedup();
    client_file(&parts)
}

/// The client file around its parts (the template).
fn client_file(p: &ClientParts) -> String {
    let ClientParts {
        imports,
        requests,
        responses,
        table,
        methods,
        streams,
        stream_reqs,
        stream_msgs,
        stream_table,
    } = p;
    let methods = format!("{methods}{streams}");
    let methods = methods.trim_end();
    format!(
        "{HEADER}
import type {{ {imports} }} from \"./contract\";

export type HttpMethod = \"GET\" | \"POST\" | \"DELETE\";

/** Where an operation's arguments travel over HTTP besides its path's fields: the query
 *  string, a JSON body, or the query string with a file's bytes as the body. */
export type ArgsIn = \"query\" | \"json\" | \"bytes\";

export interface OperationInfo {{
  readonly method: HttpMethod;
  /** Under `/api`; `{{field}}` segments are request fields. Empty: desktop only. */
  readonly path: string;
  readonly args: ArgsIn;
  readonly desktopOnly: boolean;
  /** The codes it can fail with besides bad_request, connection, connection_lost, server. */
  readonly errors: readonly ErrorCode[];
}}

export interface Requests {{
{requests}}}

export interface Responses {{
{responses}}}

export type OperationName = keyof Requests & keyof Responses;

export const OPERATIONS: {{ readonly [K in OperationName]: OperationInfo }} = {{
{table}}};

export interface StreamRequests {{
{stream_reqs}}}

export interface StreamMessages {{
{stream_msgs}}}

export type StreamName = keyof StreamRequests & keyof StreamMessages;

export const STREAMS: {{ readonly [K in StreamName]: {{ readonly path: string }} }} = {{
{stream_table}}};

/** Every error code, for checking what a server sent. */
export const ERROR_CODES: readonly ErrorCode[] = [{codes}];

/** The desktop shell's events, by what they carry. */
export const SHELL_EVENTS = {{ menu: \"{menu}\", ingest: \"{ingest}\", notice: \"{notice}\" }} as const;

/** A file's bytes, for the operations that take one. */
export type Bytes = Blob | ArrayBuffer | Uint8Array;

/** A live subscription; `close()` ends it. */
export interface Subscription {{
  close(): void;
}}

export interface StreamHandlers<M> {{
  /** Every message, in sequence order. */
  onMessage(msg: M): void;
  /** Connection state changes (the transport reconnects by itself). */
  onStatus?(status: \"open\" | \"reconnecting\" | \"closed\"): void;
}}

/** How a client reaches the backend: HTTP and server-sent events (http.ts), or Tauri IPC
 *  (tauri.ts). Failures reject with a `BackendError` carrying the `{{code, message}}`. */
export interface Transport {{
  readonly kind: \"http\" | \"tauri\";
  call<K extends OperationName>(op: K, req: Requests[K], bytes?: Bytes): Promise<Responses[K]>;
  subscribe<K extends StreamName>(stream: K, req: StreamRequests[K], handlers: StreamHandlers<StreamMessages[K]>): Subscription;
}}

/** Every operation and stream as a method, over either transport. */
export class Client {{
  constructor(readonly transport: Transport) {{}}

  get kind(): \"http\" | \"tauri\" {{
    return this.transport.kind;
  }}

{methods}
}}
",
        imports = imports.join(", "),
        codes = ErrorCode::ALL.iter().map(|c| format!("\"{c}\"")).collect::<Vec<_>>().join(", "),
        menu = events::MENU,
        ingest = events::INGEST,
        notice = events::NOTICE,
    )
}

/// The desktop shell's command names, as Rust source (`include!`d by its build script).
pub fn commands_rs() -> String {
    let mut s = String::from(
        "// Generated from src/api/ops.rs by `provex contract`. Do not edit. The desktop shell's IPC\n\
         // commands: read by build.rs (an `allow-<name>` permission each) and by the invoke handler.\n&[\n",
    );
    for c in DESKTOP_COMMANDS {
        s.push_str(&format!("    \"{c}\",\n"));
    }
    s.push_str("]\n");
    s
}

/// The main window's capability: its commands and the shell's events, nothing else.
pub fn capability_json(operations: &[OpInfo]) -> String {
    let mut permissions = vec!["core:event:allow-listen".to_owned(), "core:event:allow-unlisten".to_owned()];
    permissions.extend(DESKTOP_COMMANDS.iter().map(|c| format!("allow-{}", c.replace('_', "-"))));
    let desktop_ops: Vec<&str> = operations.iter().map(|o| o.name).collect();
    let value = serde_json::json!({
        "$schema": "../gen/schemas/desktop-schema.json",
        "identifier": "default",
        "description": format!(
            "Generated from src/api/ops.rs by `provex contract`. The main window: the Provex commands \
             (`call` runs the declared operations: {}), listening to the shell's events. No plugin is \
             reachable from the page (dialogs and window state are driven from Rust).",
            desktop_ops.join(", ")
        ),
        "windows": ["main"],
        "permissions": permissions,
    });
    let mut s = serde_json::to_string_pretty(&value).expect("json");
    s.push('\n');
    s
}

/// Every generated file: its path from the repository root and its content, from the
/// declared operations and the GraphQL schema (`graphql::sdl`).
pub fn generated(operations: &[OpInfo], graphql_sdl: &str) -> Vec<(&'static str, String)> {
    vec![
        (PATH, contract_ts(operations)),
        (CLIENT_PATH, client_ts(operations)),
        (COMMANDS_PATH, commands_rs()),
        (CAPABILITY_PATH, capability_json(operations)),
        (SCHEMA_PATH, graphql_schema(graphql_sdl)),
    ]
}

/// The GraphQL schema, for readers (generated like the rest, so it cannot go stale).
pub const SCHEMA_PATH: &str = "docs/schema.graphql";

fn graphql_schema(sdl: &str) -> String {
    format!(
        "# The GraphQL schema of `/graphql?graph=G` and `knowledge/query` (docs/FORMATS.md, \"Knowledge-graph statements\").\n\
         # Generated from the resolvers by `cargo run -- contract`; do not edit.\n\n{}",
        sdl.trim_start()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::facade::OPERATIONS;

    fn generated() -> Vec<(&'static str, String)> {
        super::generated(OPERATIONS, &crate::graphql::sdl())
    }

    /// CI fails here when a declaration changed and a generated file was not regenerated.
    #[test]
    fn committed_generated_files_are_fresh() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for (path, fresh) in generated() {
            let committed = std::fs::read_to_string(root.join(path)).unwrap_or_default();
            assert!(committed == fresh, "{path} is stale: run `cargo run -- contract` and commit the result");
        }
    }

    #[test]
    fn no_bigint_and_every_type_exported_once() {
        let ts = contract_ts(OPERATIONS);
        assert!(!ts.contains("bigint"), "counts must be plain numbers in TypeScript");
        for name in ["View", "StreamMessage", "Trail", "ApiError", "Job", "ErrorCode", "TraceRequest"] {
            assert_eq!(ts.matches(&format!("export type {name} =")).count(), 1, "{name}");
        }
        assert!(ts.contains("export type ApiError = { code: ErrorCode"), "codes are the enum");
    }

    #[test]
    fn the_client_has_every_operation_and_imports_what_it_names() {
        let client = client_ts(OPERATIONS);
        let contract = contract_ts(OPERATIONS);
        for op in OPERATIONS {
            assert!(client.contains(&format!("  {}(req: ", camel(op.name))), "{}", op.name);
            assert!(client.contains(&format!("  {}: {{ method: ", op.name)), "{}", op.name);
        }
        let imports = client.lines().find(|l| l.starts_with("import type")).unwrap();
        for name in imports.trim_start_matches("import type { ").split(" }").next().unwrap().split(", ") {
            assert!(contract.contains(&format!("export type {name} =")), "{name} is not in contract.ts");
        }
        assert_eq!(camel("delete_graph"), "deleteGraph");
        assert_eq!(type_names("Array<SearchHit> | null").collect::<Vec<_>>(), ["SearchHit"]);
    }

    #[test]
    fn the_capability_allows_exactly_the_desktop_commands() {
        let cap: serde_json::Value = serde_json::from_str(&capability_json(OPERATIONS)).unwrap();
        let perms: Vec<&str> =
            cap["permissions"].as_array().unwrap().iter().map(|p| p.as_str().unwrap()).collect();
        assert_eq!(
            perms,
            [
                "core:event:allow-listen",
                "core:event:allow-unlisten",
                "allow-call",
                "allow-subscribe",
                "allow-unsubscribe"
            ]
        );
    }
}
