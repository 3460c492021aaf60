// The side panel's tab bar and tab bodies: which tab is open, and which are offered (the
// Lineages tab only when the graph has lineages, Reasoning when it has sessions, Traces when it has traces). What opening a tab does to the panels in
// it is the app's business (it is told through `onShow`).

import type { Tab } from "../shared/host";
import { h } from "../shared/dom";

const TABS: Array<[Tab, string]> = [
  ["details", "Details"], ["trail", "Trail"], ["timeline", "Timeline"], ["walkthrough", "Walkthrough"], ["console", "Console"],
  ["lineages", "Lineages"], ["reasoning", "Reasoning"], ["traces", "Traces"],
];
/** Tabs not offered until `setAvailable` says so. */
const OPTIONAL: ReadonlySet<Tab> = new Set(["lineages", "reasoning", "traces"]);

export class Tabs {
  readonly bar = h("div", { class: "tabs", role: "tablist" });
  readonly bodies = h("div", { class: "tab-bodies" });
  active: Tab = "details";
  private buttons = new Map<Tab, HTMLButtonElement>();
  private tabBodies = new Map<Tab, HTMLElement>();

  /** `contents`: each tab's element; `onShow`: a tab was chosen (by a click). */
  constructor(contents: Record<Tab, HTMLElement>, onShow: (tab: Tab) => void) {
    for (const [tab, title] of TABS) {
      const b = h("button", { class: "tab", role: "tab", testid: `tab-${tab}`, hidden: OPTIONAL.has(tab), onclick: () => onShow(tab) }, title);
      this.buttons.set(tab, b);
      this.bar.appendChild(b);
      const body = h("div", { class: "tab-body", role: "tabpanel", hidden: true }, contents[tab]);
      this.tabBodies.set(tab, body);
      this.bodies.appendChild(body);
    }
  }

  /** Marks `tab` open and shows its body only. */
  show(tab: Tab): void {
    this.active = tab;
    for (const [t, b] of this.buttons) {
      b.classList.toggle("active", t === tab);
      b.setAttribute("aria-selected", String(t === tab));
    }
    for (const [t, body] of this.tabBodies) body.hidden = t !== tab;
  }

  /** Offers a tab or takes it away (its button hidden). */
  setAvailable(tab: Tab, available: boolean): void {
    const b = this.buttons.get(tab);
    if (b) b.hidden = !available;
  }

  isAvailable(tab: Tab): boolean {
    return !this.buttons.get(tab)?.hidden;
  }
}
