// Messages in the corner: every backend error (code and message) and short confirmations.
// Nothing the backend reports is swallowed; errors stay until dismissed or 12 s pass.

import { BackendError } from "../api/backend";
import { h } from "./dom";

export class Toasts {
  readonly el = h("div", { class: "toasts", role: "status", "aria-live": "polite" });

  error(e: unknown, context?: string): void {
    let code = "error";
    let message: string;
    if (e instanceof BackendError) {
      code = e.code;
      message = e.message;
    } else if (e instanceof Error) {
      message = e.message;
    } else {
      message = String(e);
    }
    console.error(context ?? "provex", e);
    this.show("error", message, code, context, 12_000);
  }

  info(message: string, ms = 5000): void {
    this.show("info", message, null, undefined, ms);
  }

  private show(kind: "error" | "info", message: string, code: string | null, context: string | undefined, ms: number): void {
    const close = h("button", { class: "toast-close", title: "Dismiss", "aria-label": "Dismiss", onclick: () => t.remove() }, "×");
    const t = h("div", { class: `toast toast-${kind}`, testid: "toast", "data-code": code ?? undefined },
      h("div", { class: "toast-body" },
        context ? h("div", { class: "toast-context" }, context) : null,
        code ? h("code", { class: "toast-code" }, code) : null,
        h("span", { class: "toast-message" }, message)),
      close);
    this.el.appendChild(t);
    while (this.el.children.length > 5) this.el.firstElementChild?.remove();
    setTimeout(() => t.remove(), ms);
  }
}
