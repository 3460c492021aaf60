// The small shared types of the seams between the app and its panels. Each panel declares
// the narrow interface it needs (its "host") in its own module and is given only that, so
// no panel imports app.ts; what several hosts have in common lives here.

export type Tab = "details" | "trail" | "timeline" | "walkthrough" | "console" | "lineages" | "reasoning" | "traces";

export type StreamState = "open" | "reconnecting" | "closed" | "off";

export interface SelectOptions {
  /** Shift-click: add to (or remove from) the selection instead of replacing it. */
  additive?: boolean;
  /** Centre the canvas on the node. */
  focus?: boolean;
  /** Who asked: the walkthrough keeps its own tab open. */
  from?: "canvas" | "panel" | "walkthrough" | "search";
}

/** Selects a node as a click would; resolves when its panels have loaded. */
export type SelectFn = (id: string, opts?: SelectOptions) => Promise<void>;

/** Where messages for the user go (backend errors with their code, confirmations); the
 *  corner's toasts (ui/toast.ts) are one. */
export interface Notifier {
  error(e: unknown, context?: string): void;
  info(message: string, ms?: number): void;
}

/** Agent id → display name, as far as it has been resolved. */
export interface AgentNames {
  readonly names: ReadonlyMap<string, string>;
  /** Fills `names` for these agent ids. */
  resolveNames(ids: Iterable<string>): Promise<void>;
}
