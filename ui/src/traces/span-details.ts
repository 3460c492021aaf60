// One span's details beside the waterfall: what it was (kind, agent, model, service, time,
// tokens), its error with the exception's type, message and stack trace, the messages it read
// and wrote as a chat, a tool's arguments and result as pretty JSON, and every attribute
// recorded. An input message another call produced offers "Where did this come from?", which
// walks the data flow back to that call.

import type { JsonValue, MessageView, SpanDetails } from "../api/contract";
import { h } from "../shared/dom";
import { KIND_TEXT, duration, spanMs, tokens } from "./trace-format";

export interface SpanDetailsOptions {
  /** Names of the trace's spans, to say which call a message came from. */
  names: ReadonlyMap<string, string>;
  /** "Where did this message come from?" */
  origin(message: MessageView): void;
  /** Pick another span (a link, the producing call). */
  pick(id: string): void;
}

export function pretty(v: JsonValue | unknown): string {
  if (typeof v === "string") {
    try {
      return JSON.stringify(JSON.parse(v), null, 2);
    } catch {
      return v;
    }
  }
  return JSON.stringify(v, null, 2);
}

/** A message part: text as text, anything else (tool calls, their responses) as JSON. */
function part(p: JsonValue): HTMLElement {
  if (p && typeof p === "object" && !Array.isArray(p)) {
    const o = p as Record<string, JsonValue>;
    const text = o.content ?? o.text;
    if ((o.type === "text" || o.type === undefined) && typeof text === "string") return h("p", { class: "chat-text" }, text);
    const kind = typeof o.type === "string" ? o.type.replace(/_/g, " ") : "part";
    return h("div", { class: "chat-part" }, h("span", { class: "chat-part-kind" }, kind), h("pre", { class: "json" }, pretty(o)));
  }
  return h("p", { class: "chat-text" }, typeof p === "string" ? p : pretty(p));
}

function chat(messages: readonly MessageView[], opts: SpanDetailsOptions): HTMLElement {
  return h("ol", { class: "chat", testid: "span-messages" }, messages.map((m) => h("li", {
    class: `chat-msg role-${m.role ?? "unknown"} dir-${m.direction}`, testid: "span-message", "data-message": m.id, "data-role": m.role ?? "", "data-direction": m.direction,
  },
  h("div", { class: "chat-head" },
    h("strong", null, m.role ?? "message"),
    h("span", { class: "muted" }, m.direction === "input" ? ` read${m.index !== null ? ` #${m.index + 1}` : ""}` : ` written${m.index !== null ? ` #${m.index + 1}` : ""}`),
    m.produced_by ? h("span", { class: "muted" }, " · from ", h("button", { class: "linkish", testid: "message-producer", onclick: () => opts.pick(m.produced_by!) }, opts.names.get(m.produced_by) || "another call")) : null),
  m.parts.length ? m.parts.map(part) : h("p", { class: "muted" }, "(no content recorded)"),
  m.direction !== "input" ? null : h("button", { class: "btn btn-small", testid: "message-origin", title: "Walk the data flow back to the call that produced this message, and select it", onclick: () => opts.origin(m) }, "Where did this come from?"))));
}

function attrValue(v: JsonValue): string {
  return typeof v === "string" ? v : JSON.stringify(v);
}

export function spanDetails(d: SpanDetails, opts: SpanDetailsOptions): HTMLElement {
  const s = d.span;
  const facts: Array<[string, string | HTMLElement | null]> = [
    ["Kind", `${KIND_TEXT[s.label] ?? s.label} (${s.label})`],
    ["Status", s.status],
    ["Agent", s.agent],
    ["Model", s.model],
    ["Service", s.service],
    ["Duration", duration(spanMs(s))],
    ["Tokens", tokens(d.tokens_in, d.tokens_out)],
    ["Parent", s.parent ? h("button", { class: "linkish", onclick: () => opts.pick(s.parent!) }, opts.names.get(s.parent) || s.parent) : "none (a root)"],
    ["Links to", s.links.length ? h("span", null, s.links.map((l, i) => [i ? ", " : "", h("button", { class: "linkish", testid: "span-link", onclick: () => opts.pick(l.target) }, opts.names.get(l.target) || l.target)])) : null],
    ["Linked from", d.linked_from.length ? h("span", null, d.linked_from.map((l, i) => [i ? ", " : "", h("button", { class: "linkish", onclick: () => opts.pick(l) }, opts.names.get(l) || l)])) : null],
  ];
  const err = d.error;
  return h("div", { class: "span-details", testid: "span-details", "data-span": s.id },
    h("h3", { class: "span-title", testid: "span-title" }, s.name || s.id),
    h("dl", { class: "span-facts" }, facts.filter(([, v]) => v !== null && v !== "").map(([k, v]) => [h("dt", null, k), h("dd", null, v)])),
    err ? h("section", { class: "span-error", testid: "span-error", role: "alert" },
      h("h4", null, `✗ ${err.exception_type ?? "Error"}`),
      err.message || err.status_message ? h("p", null, err.message ?? err.status_message) : null,
      err.message && err.status_message && err.status_message !== err.message ? h("p", { class: "muted" }, `Status: ${err.status_message}`) : null,
      err.stacktrace ? h("details", null, h("summary", null, "Stack trace"), h("pre", { class: "stack" }, err.stacktrace)) : null) : null,
    d.messages.length ? [h("h4", null, `Messages (${d.messages.length})`), chat(d.messages, opts)] : null,
    d.tool_args ? [h("h4", null, "Tool arguments"), h("pre", { class: "json", testid: "tool-args" }, pretty(d.tool_args.value))] : null,
    d.tool_result ? [h("h4", null, "Tool result"), h("pre", { class: "json", testid: "tool-result" }, pretty(d.tool_result.value))] : null,
    h("h4", null, `Attributes (${Object.keys(d.attributes).length})`),
    h("table", { class: "attr-table", testid: "span-attributes" },
      h("tbody", null, Object.entries(d.attributes).map(([k, v]) => h("tr", null,
        h("th", { scope: "row" }, k.replace(/^otel:/, "")),
        h("td", null, attrValue(v)))))));
}
