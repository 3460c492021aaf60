// The first-run screen: two lines on what Provex is, and three ways to start: the
// council demo with its walkthrough, a file of one's own, or another server. Shown over the
// canvas when there is no graph yet, or on a first visit that did not ask for a graph; it
// never blocks the top bar, and it goes once a graph opens.

import type { Backend } from "../api/backend";
import { h } from "../shared/dom";

const SEEN_KEY = "provex.welcomed";

/** What the first-run screen needs of the app. */
export interface WelcomeHost {
  readonly backend: Pick<Backend, "saveSettings">;
  /** Runs the council demo into a graph, opens it and its walkthrough. */
  demoWithWalkthrough(): Promise<void>;
  /** Uploads a file into a graph named after it, and opens that graph. */
  uploadFile(file: File): Promise<void>;
  readonly toasts: { info(text: string, ms?: number): void, error(e: unknown, context: string): void };
}

/** A graph name made from a file's name: its stem, with what graph names may not hold as "-". */
export function graphNameFor(fileName: string): string {
  const stem = fileName.replace(/\.[^.]*$/, "") || fileName;
  const clean = stem.replace(/[^A-Za-z0-9_.:-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 200);
  return clean || "uploads";
}

/** Whether this browser has seen the first-run screen before. */
export function welcomed(): boolean {
  try {
    return localStorage.getItem(SEEN_KEY) === "1";
  } catch {
    return false;
  }
}

function rememberWelcomed(): void {
  try {
    localStorage.setItem(SEEN_KEY, "1");
  } catch {
    // shown again next time
  }
}

export class Welcome {
  private readonly file = h("input", { type: "file", class: "sr-only", testid: "welcome-file-input", "aria-label": "File to open", accept: ".jsonl,.json,.jsonld,.ndjson,.txt,application/json,application/ld+json" });
  private readonly url = h("input", { type: "url", testid: "welcome-url", placeholder: "http://host:7878", "aria-label": "Server address" });
  private readonly token = h("input", { type: "password", testid: "welcome-token", placeholder: "token (if the server has one)", "aria-label": "Server token" });
  private readonly connectForm = h("form", { class: "welcome-connect", testid: "welcome-connect-form", hidden: true,
    onsubmit: (ev: Event) => { ev.preventDefault(); void this.connect(); } },
  this.url, this.token, h("button", { class: "btn btn-primary", type: "submit", testid: "welcome-connect-go" }, "Connect"));
  readonly el = h("section", { class: "welcome", testid: "welcome", "aria-labelledby": "provex-welcome-title", hidden: true },
    h("h2", { id: "provex-welcome-title" }, "Welcome to Provex"),
    h("p", { testid: "welcome-what" }, "Provex shows where an AI system's output came from: each claim, the quotes and sources behind it, and the agents that made and checked it."),
    h("p", { testid: "welcome-why" }, "It checks every signature and quote, so you can see which claim was challenged, which quote was altered and which verification was forged."),
    h("div", { class: "welcome-actions" },
      h("button", { class: "btn btn-primary", testid: "welcome-demo", onclick: () => void this.demo() }, "Council demo, with a walkthrough"),
      h("button", { class: "btn", testid: "welcome-open", onclick: () => this.file.click() }, "Open a file…"),
      h("button", { class: "btn", testid: "welcome-connect", "aria-expanded": "false", onclick: (ev: Event) => this.toggleConnect(ev.currentTarget as HTMLElement) }, "Connect to a server…"),
      this.file),
    this.connectForm,
    h("button", { class: "welcome-close", testid: "welcome-close", onclick: () => this.hide(true) }, "Explore on my own"));

  constructor(private readonly host: WelcomeHost, private readonly desktop: boolean) {
    this.file.addEventListener("change", () => {
      const f = this.file.files?.[0];
      this.file.value = "";
      if (f) {
        this.hide(true);
        void this.host.uploadFile(f);
      }
    });
    if (desktop) {
      this.url.placeholder = "redis://host:6379 (a FalkorDB server)";
      this.url.type = "text";
      this.url.setAttribute("aria-label", "Database address");
      this.token.placeholder = "password (if it has one)";
    }
  }

  get shown(): boolean {
    return !this.el.hidden;
  }

  show(): void {
    this.el.hidden = false;
  }

  /** Hides the screen; `seen`: the user chose, so a later visit does not show it again. */
  hide(seen = false): void {
    this.el.hidden = true;
    if (seen) rememberWelcomed();
  }

  private async demo(): Promise<void> {
    this.hide(true);
    await this.host.demoWithWalkthrough();
  }

  private toggleConnect(button: HTMLElement): void {
    this.connectForm.hidden = !this.connectForm.hidden;
    button.setAttribute("aria-expanded", String(!this.connectForm.hidden));
    if (!this.connectForm.hidden) this.url.focus();
  }

  /** In a browser: goes to that server's explorer (with its token). In the desktop app: uses
   *  that database server from now on. */
  private async connect(): Promise<void> {
    const address = this.url.value.trim();
    if (this.desktop) {
      try {
        await this.host.backend.saveSettings({ url: address || undefined, password: this.token.value || undefined, tls: address.startsWith("rediss://") });
        this.host.toasts.info("Saved. The app uses that database server from its next start.", 8000);
        this.hide(true);
      } catch (e) {
        this.host.toasts.error(e, "Connecting to a database server");
      }
      return;
    }
    let url: URL;
    try {
      url = new URL(address);
      if (url.protocol !== "http:" && url.protocol !== "https:") throw new Error("not http");
    } catch {
      this.host.toasts.info("Type the explorer's address, such as http://host:7878 (where `provex serve` runs).", 8000);
      return;
    }
    if (this.token.value) url.searchParams.set("token", this.token.value);
    rememberWelcomed();
    window.location.assign(url.toString());
  }
}
