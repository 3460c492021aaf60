// The Backend over Tauri IPC, in the desktop window: each method invokes the command of the
// same name in src-tauri/src/commands.rs, which calls the core's facade. Errors arrive as the
// `{code, message}` of every boundary. Streams come over a Tauri Channel, in seq order.
//
// The desktop shell also talks to the page through events (menu items, files opened or
// dropped, notices). Each is re-dispatched on `window` as a cancelable DOM event
// (`provex:menu`, `provex:ingest`, `provex:notice`, detail = the payload); when no listener
// calls preventDefault(), a default handling here uses the app's public pieces (toasts,
// refreshGraphs, openGraph, canvas export, help).

import { Channel, invoke, type InvokeArgs } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import type {
  ApiError, DemoRequest, FollowRequest, Health, IngestReport, Job, NodeRecord, PathResult, SearchHit,
  SourceText, Stats, StreamMessage, Subgraph, Table, TraceDirection, Trail, View,
} from "./contract";
import { BackendError, type Backend, type StreamHandlers, type Subscription, type ViewOptions } from "./backend";

/** Delay before resubscribe attempt `n` (0-based): 0.5 s doubling to at most 10 s. */
function retryDelay(n: number): number {
  return Math.min(10_000, 500 * 2 ** Math.min(n, 5));
}

/** The BackendError of a failed invoke: the command's `{code, message}`, or Tauri's own
 *  error text (a missing permission, an unknown command). */
export function toBackendError(e: unknown): BackendError {
  if (e instanceof BackendError) return e;
  if (e && typeof e === "object" && typeof (e as ApiError).code === "string") {
    const err = e as ApiError;
    return new BackendError(err.code, typeof err.message === "string" ? err.message : err.code);
  }
  const text = e instanceof Error ? e.message : String(e);
  return new BackendError("ipc", text);
}

async function call<T>(cmd: string, args?: InvokeArgs, headers?: Record<string, string>): Promise<T> {
  try {
    return await invoke<T>(cmd, args, headers ? { headers } : undefined);
  } catch (e) {
    throw toBackendError(e);
  }
}

/** Header values must be ASCII: names and graphs go percent-encoded (decoded in Rust). */
function headerValues(values: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) if (v !== undefined) out[k] = encodeURIComponent(v);
  return out;
}

async function bytesOf(data: Blob | ArrayBuffer | string): Promise<Uint8Array> {
  if (typeof data === "string") return new TextEncoder().encode(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(await data.arrayBuffer());
}

/** The desktop database settings (the password never comes back, only whether one is set). */
export interface DesktopSettings {
  url: string | null;
  user: string | null;
  has_password: boolean;
  tls: boolean;
  /** Where they are stored. */
  file: string;
}

/** A settings change; `password` undefined keeps the stored one, "" clears it. Takes effect
 *  at the next start. */
export interface DesktopSettingsUpdate {
  url?: string | null;
  user?: string | null;
  password?: string;
  tls?: boolean;
}

/** `provex:menu`: a menu item the page carries out. */
export interface MenuEventDetail {
  action: "export-svg" | "export-png" | "help" | string;
  /** The graph the window shows, as the shell knows it. */
  graph: string | null;
}

/** `provex:ingest`: files opened, imported or dropped, being ingested. */
export interface IngestEventDetail {
  state: "started" | "done" | "failed";
  graph: string;
  files: string[];
  /** Show the graph when done (File ▸ Open). */
  open: boolean;
  report: IngestReport | null;
  error: ApiError | null;
}

/** `provex:notice`: something to tell the user. */
export interface NoticeEventDetail {
  level: "info" | "error";
  message: string;
}

/** The parts of the app the default event handling uses, looked up at run time so this
 *  file does not depend on the app's internals. */
interface AppHooks {
  graph?: string | null;
  toasts?: { info(message: string, ms?: number): void; error(e: unknown, context?: string): void };
  refreshGraphs?(): Promise<void>;
  openGraph?(graph: string): Promise<void>;
  canvas?: { toSVG(): string; toPNG(): Promise<Blob> };
  help?: { toggle(open?: boolean): void };
}

function appHooks(): AppHooks | undefined {
  return (window as unknown as { provex?: { app?: AppHooks } }).provex?.app;
}

function baseName(path: string): string {
  return path.split(/[\\/]/).pop() || path;
}

function fileBase(graph: string | null | undefined): string {
  return (graph ?? "graph").replace(/[^A-Za-z0-9._-]+/g, "-").replace(/^-+|-+$/g, "") || "graph";
}

export class TauriBackend implements Backend {
  readonly kind = "tauri" as const;

  constructor() {
    void this.listenToShell();
  }

  health(): Promise<Health> {
    return call("health");
  }

  graphs(): Promise<string[]> {
    return call("graphs");
  }

  async deleteGraph(graph: string): Promise<void> {
    await call("delete_graph", { graph });
  }

  stats(graph: string): Promise<Stats> {
    return call("stats", { graph });
  }

  view(graph: string, opts: ViewOptions = {}): Promise<View> {
    return call("view", { graph, root: opts.root, depth: opts.depth, limit: opts.limit });
  }

  node(graph: string, id: string): Promise<NodeRecord> {
    return call("node", { graph, id });
  }

  neighbours(graph: string, id: string): Promise<Subgraph> {
    return call("neighbours", { graph, id });
  }

  trace(graph: string, id: string, dir: TraceDirection, depth: number): Promise<Subgraph> {
    return call("trace", { graph, id, dir, depth });
  }

  async path(graph: string, from: string, to: string): Promise<PathResult | null> {
    return (await call<PathResult | null>("path", { graph, from, to })) ?? null;
  }

  query(graph: string, cypher: string): Promise<Table> {
    return call("query", { graph, cypher });
  }

  trail(graph: string, statement: string): Promise<Trail> {
    return call("trail", { graph, statement });
  }

  source(graph: string, id: string): Promise<SourceText> {
    return call("source", { graph, id });
  }

  search(graph: string, q: string, limit?: number): Promise<SearchHit[]> {
    return call("search", { graph, q, limit });
  }

  /** The bytes go as the raw request body; Rust saves them in the uploads folder and
   *  ingests them (nothing is written from here). */
  async upload(graph: string, name: string, data: Blob | ArrayBuffer, format?: string): Promise<IngestReport> {
    const bytes = await bytesOf(data);
    return call("ingest_bytes", bytes, headerValues({ graph, name, format }));
  }

  /** Ingests files on this machine by path (desktop only). */
  ingestFiles(graph: string, paths: string[], format?: string): Promise<IngestReport> {
    return call("ingest_files", { graph, paths, format });
  }

  follow(graph: string, req: FollowRequest): Promise<Job> {
    return call("follow", { graph, path: req.path, format: req.format });
  }

  demo(graph: string, req: DemoRequest): Promise<Job> {
    return call("demo", { graph, paceMs: req.pace_ms });
  }

  jobs(): Promise<Job[]> {
    return call("jobs");
  }

  stopJob(id: string): Promise<Job> {
    return call("stop_job", { id });
  }

  async tidy(graph: string): Promise<void> {
    await call("tidy", { graph });
  }

  /** Saves bytes (an export) where the user chooses in a native save dialog; the path
   *  written, or null when cancelled. Desktop only: a browser downloads instead. */
  saveFile(name: string, data: Blob | ArrayBuffer | string): Promise<string | null> {
    return bytesOf(data).then((bytes) => call<string | null>("save_file", bytes, headerValues({ name })));
  }

  settings(): Promise<DesktopSettings> {
    return call("get_settings");
  }

  saveSettings(update: DesktopSettingsUpdate): Promise<DesktopSettings> {
    return call("save_settings", { settings: update });
  }

  subscribe(graph: string, since: number, handlers: StreamHandlers): Subscription {
    let last = since;
    let closed = false;
    let attempt = 0;
    let id: number | null = null;
    let channel: Channel<StreamMessage> | null = null;
    let timer: ReturnType<typeof setTimeout> | null = null;

    const connect = (): void => {
      timer = null;
      if (closed) return;
      const ch = new Channel<StreamMessage>();
      channel = ch;
      ch.onmessage = (msg) => {
        if (closed || channel !== ch) return;
        // The shell sends in order without repeats; a reset restarts the numbering.
        if (msg.kind !== "reset" && msg.seq <= last) return;
        last = msg.seq;
        handlers.onMessage(msg);
      };
      invoke<number>("subscribe", { graph, since: last, channel: ch }).then(
        (subId) => {
          if (closed || channel !== ch) {
            void invoke("unsubscribe", { id: subId }).catch(() => undefined);
            return;
          }
          id = subId;
          attempt = 0;
          handlers.onStatus?.("open");
        },
        (e) => {
          if (closed || channel !== ch) return;
          console.error("provex: subscribe failed", toBackendError(e));
          channel = null;
          handlers.onStatus?.("reconnecting");
          timer = setTimeout(connect, retryDelay(attempt));
          attempt += 1;
        },
      );
    };

    connect();
    return {
      close() {
        if (closed) return;
        closed = true;
        if (timer !== null) clearTimeout(timer);
        if (channel) channel.onmessage = () => undefined;
        channel = null;
        if (id !== null) void invoke("unsubscribe", { id }).catch(() => undefined);
        id = null;
        handlers.onStatus?.("closed");
      },
    };
  }

  // ---------------------------------------------------------------- shell events

  private async listenToShell(): Promise<void> {
    try {
      await listen<MenuEventDetail>("provex://menu", (ev) => this.relay("provex:menu", ev.payload, () => this.onMenu(ev.payload)));
      await listen<IngestEventDetail>("provex://ingest", (ev) => this.relay("provex:ingest", ev.payload, () => this.onIngest(ev.payload)));
      await listen<NoticeEventDetail>("provex://notice", (ev) => this.relay("provex:notice", ev.payload, () => this.onNotice(ev.payload)));
    } catch (e) {
      console.error("provex: cannot listen to the desktop shell", e);
    }
  }

  /** Dispatches a shell event on `window`; runs the default unless a listener prevented it. */
  private relay<T>(name: string, detail: T, fallback: () => Promise<void> | void): void {
    const ev = new CustomEvent<T>(name, { detail, cancelable: true });
    if (window.dispatchEvent(ev)) void Promise.resolve(fallback()).catch((e) => appHooks()?.toasts?.error(e, name));
  }

  private async onMenu(d: MenuEventDetail): Promise<void> {
    const app = appHooks();
    const graph = app?.graph ?? d.graph;
    switch (d.action) {
      case "export-svg":
      case "export-png": {
        if (!app?.canvas || !graph) {
          app?.toasts?.info("Open a graph to export a picture of it.");
          return;
        }
        const svg = d.action === "export-svg";
        const data = svg ? app.canvas.toSVG() : await app.canvas.toPNG();
        const saved = await this.saveFile(`${fileBase(graph)}.${svg ? "svg" : "png"}`, data);
        if (saved) app.toasts?.info(`Saved ${saved}`);
        return;
      }
      case "help":
        app?.help?.toggle(true);
        return;
      default:
        console.warn("provex: unknown menu action", d.action);
    }
  }

  private async onIngest(d: IngestEventDetail): Promise<void> {
    const app = appHooks();
    const what = d.files.length === 1 ? baseName(d.files[0] ?? "") : `${d.files.length} files`;
    if (d.state === "started") {
      app?.toasts?.info(`Ingesting ${what} into “${d.graph}”…`, 3000);
      return;
    }
    if (d.state === "failed" || !d.report) {
      const err = d.error ?? { code: "ingest", message: "the ingest failed" };
      app?.toasts?.error(new BackendError(err.code, err.message), `Ingesting ${what}`);
      return;
    }
    const r = d.report;
    const rejected = r.rejected > 0 ? `, ${r.rejected} rejected (see the rejects file beside it)` : "";
    app?.toasts?.info(`${what}: ${r.events} events into “${r.graph}”${rejected}, ${r.nodes_written} nodes and ${r.edges_written} edges written in ${(r.elapsed_ms / 1000).toFixed(1)} s.`, 8000);
    await app?.refreshGraphs?.();
    if (d.open && app?.graph !== d.graph) await app?.openGraph?.(d.graph);
  }

  private onNotice(d: NoticeEventDetail): void {
    const app = appHooks();
    if (d.level === "error") app?.toasts?.error(new BackendError("shell", d.message));
    else app?.toasts?.info(d.message);
  }
}
