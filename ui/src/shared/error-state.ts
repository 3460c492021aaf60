// The error state every panel shows when a request fails: what could not be done, why (the
// backend's message and code), what to do next, and a button that tries again. One place, so
// every panel says it the same way.

import { h } from "./dom";

/** The reason a request failed, in a sentence: the backend's message, with its code. */
export function reason(e: unknown): string {
  if (e && typeof e === "object") {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof message === "string" && message) return typeof code === "string" && code ? `${message} (${code})` : message;
  }
  return String(e);
}

/** "Could not ⟨what⟩: ⟨reason⟩", what to do next, and a Try again button running `retry`. */
export function errorState(what: string, e: unknown, retry: () => void): HTMLElement {
  const offline = /network|fetch|connect|unavailable|closing/i.test(reason(e));
  return h("div", { class: "error-state", role: "alert", testid: "error-state" },
    h("p", { class: "error-text" }, `Could not ${what}: ${reason(e)}`),
    h("p", { class: "muted" }, offline
      ? "The Provex server (or its FalkorDB) may be down: check the status bar, restart it, then try again."
      : "The graph may have changed since: try again, or pick the node again on the canvas."),
    h("button", { class: "btn btn-small", testid: "retry", onclick: retry }, "Try again"));
}
