// The Backend over Tauri IPC, in the desktop window: each method invokes the command of the
// same name in src-tauri/src/commands.rs, which calls the core's facade. Errors arrive as the
// `{code, message}` of every boundary. Streams come over a Tauri Channel, in seq order.
//
// The desktop shell also talks to the page through events (menu items, files opened or
// dropped, notices). Each is re-dispatched on `window` as a cancelable DOM event
// (`provex:menu`, `provex:ingest`, `provex:notice`, detail = the payload); when no listener
// calls preventDefault(), a default handling here uses the app's public pieces (toasts,
// refreshGraphs, openGraph, canvas export, help).

import { Channel, invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import {
  ERROR_CODES, OPERATIONS, SHELL_EVENTS, type Bytes, type OperationName, type Requests, type Responses,
  type StreamHandlers, type StreamMessages, type StreamName, type StreamRequests, type Subscription, type Transport,
} from "./client";
import type { IngestEvent, MenuEvent, Notice, StreamMessage } from "./contract";
import { BackendError, backendOver, isApiError, type Backend } from "./backend";
import { resubscribing } from "./resubscribe";

/** The BackendError of a failed invoke: the command's `{code, message}`, or Tauri's own
 *  error text (a missing permission, an unknown command). */
export function toBackendError(e: unknown): BackendError {
  if (e instanceof BackendError) return e;
  if (isApiError(e, ERROR_CODES)) return BackendError.from(e);
  const text = e instanceof Error ? e.message : String(e);
  return new BackendError("ipc", text);
}

async function bytesOf(data: Bytes | string): Promise<Uint8Array> {
  if (typeof data === "string") return new TextEncoder().encode(data);
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return new Uint8Array(await data.arrayBuffer());
}

/** `provex:menu`, `provex:ingest`, `provex:notice`: the shell's events as the page hears
 *  them (types generated from the Rust declarations). */
export type MenuEventDetail = MenuEvent;
export type IngestEventDetail = IngestEvent;
export type NoticeEventDetail = Notice;

/** The parts of the app the default event handling uses, looked up at run time so this
 *  file does not depend on the app's internals. */
interface AppHooks {
  graph?: string | null;
  toasts?: { info(message: string, ms?: number): void; error(e: unknown, context?: string): void };
  refreshGraphs?(): Promise<void>;
  openGraph?(graph: string): Promise<void>;
  canvas?: { toSVG(): string; toPNG(): Promise<Blob> };
  help?: { toggle(open?: boolean): void };
  tidy?(): Promise<void>;
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

/** The IPC transport: every operation through the shell's one `call` command. */
export class TauriTransport implements Transport {
  readonly kind = "tauri" as const;

  constructor() {
    void this.listenToShell();
  }

  async call<K extends OperationName>(op: K, req: Requests[K], bytes?: Bytes): Promise<Responses[K]> {
    const headers: Record<string, string> = { op };
    try {
      if (OPERATIONS[op].args === "bytes") {
        // Header values must be ASCII: the arguments go as percent-encoded JSON.
        headers.args = encodeURIComponent(JSON.stringify(req));
        return await invoke<Responses[K]>("call", await bytesOf(bytes ?? new Uint8Array()), { headers });
      }
      return await invoke<Responses[K]>("call", req as unknown as Record<string, unknown>, { headers });
    } catch (e) {
      throw toBackendError(e);
    }
  }

  subscribe<K extends StreamName>(_stream: K, req: StreamRequests[K], handlers: StreamHandlers<StreamMessages[K]>): Subscription {
    // The shell sends in order without repeats; reconnecting is resubscribe.ts's.
    return resubscribing(req.since ?? 0, handlers, (since, attempt) => {
      const ch = new Channel<StreamMessage>();
      let id: number | null = null;
      ch.onmessage = (msg) => attempt.message(msg);
      invoke<number>("subscribe", { req: { ...req, since }, channel: ch }).then(
        (subId) => {
          if (!attempt.current) {
            void invoke("unsubscribe", { id: subId }).catch(() => undefined);
            return;
          }
          id = subId;
          attempt.opened();
        },
        (e) => {
          if (!attempt.current) return;
          console.error("provex: subscribe failed", toBackendError(e));
          attempt.failed();
        },
      );
      return () => {
        ch.onmessage = () => undefined;
        if (id !== null) void invoke("unsubscribe", { id }).catch(() => undefined);
        id = null;
      };
    });
  }

  // ---------------------------------------------------------------- shell events

  private async listenToShell(): Promise<void> {
    try {
      await listen<MenuEventDetail>(SHELL_EVENTS.menu, (ev) => this.relay("provex:menu", ev.payload, () => this.onMenu(ev.payload)));
      await listen<IngestEventDetail>(SHELL_EVENTS.ingest, (ev) => this.relay("provex:ingest", ev.payload, () => this.onIngest(ev.payload)));
      await listen<NoticeEventDetail>(SHELL_EVENTS.notice, (ev) => this.relay("provex:notice", ev.payload, () => this.onNotice(ev.payload)));
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
        const saved = await this.call("save_file", { name: `${fileBase(graph)}.${svg ? "svg" : "png"}` }, await bytesOf(data));
        if (saved) app.toasts?.info(`Saved ${saved}`);
        return;
      }
      case "help":
        app?.help?.toggle(true);
        return;
      case "tidy":
        // The viewer's own layout until they save it for everyone (see tidy/own-layout.ts).
        await app?.tidy?.();
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
      const err = d.error ?? { code: "job_failed", message: "the ingest failed" };
      app?.toasts?.error(BackendError.from(err), `Ingesting ${what}`);
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
    if (d.level === "error") app?.toasts?.error(new BackendError("ipc", d.message));
    else app?.toasts?.info(d.message);
  }
}

/** The Backend in the desktop window. */
export function tauriBackend(): Backend {
  return backendOver(new TauriTransport());
}
