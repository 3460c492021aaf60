// The `?` overlay listing the keyboard shortcuts.

import { h } from "../shared/dom";
import { SHORTCUTS } from "./keys";

export class HelpOverlay {
  readonly el: HTMLElement;
  open = false;

  constructor() {
    this.el = h("div", { class: "overlay", testid: "help", hidden: true, onclick: (ev) => { if (ev.target === this.el) this.toggle(false); } },
      h("div", { class: "dialog", role: "dialog", "aria-label": "Keyboard shortcuts" },
        h("div", { class: "dialog-head" },
          h("h2", null, "Keyboard shortcuts"),
          h("button", { class: "btn btn-ghost", "aria-label": "Close", onclick: () => this.toggle(false) }, "×")),
        h("table", { class: "shortcuts" },
          h("tbody", null, SHORTCUTS.map(([k, what]) => h("tr", null, h("td", null, h("kbd", null, k)), h("td", null, what)))))));
  }

  toggle(open = !this.open): void {
    this.open = open;
    this.el.hidden = !open;
  }
}
