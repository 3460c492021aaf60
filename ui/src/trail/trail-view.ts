// A claim's trail: its standing as the headline (the worst thing true of it), the claim, each evidence quote in its transcript context (speaker, time,
// mismatches and why), the transcript itself, every verification in time order with its
// signature and whether it counted, and how the consensus moved. One instance, shown in the
// Trail tab or inside the Walkthrough.

import { trailLogBadge } from "../log/trail-badge";
import type { Backend } from "../api/backend";
import type { SourceText, Trail, TrailEvidence, TrailVerification } from "../api/contract";
import type { GraphModel } from "../graph/model";
import type { AgentNames, Notifier, SelectFn } from "../shared/host";
import { SIGNATURE_HELP, agentName, byTime, clip, score, signatureText, verdictTone } from "./labels";
import { STANDING_HELP, STANDING_TEXT, brokenHeadline, isBroken, standingIcon, standingTone } from "./standing";
import { parseUtterance, quoteContext, splitLines, type Line } from "./transcript";
import { byteRangeToIndices } from "./utf8";
import { h, replace, svg } from "../shared/dom";
import { errorState } from "../shared/error-state";

interface Doc {
  source: SourceText;
  lines: Line[];
}

/** A quote located in its document: string indices, and what the transcript says there. */
interface Located {
  ev: TrailEvidence;
  index: number;
  doc: Doc | null;
  start: number;
  end: number;
}

const EVIDENCE_TEXT = { match: "Quote matches the transcript", mismatch: "Quote does not match the transcript", unchecked: "Not checked" } as const;

/** What the trail view needs of the app. */
export interface TrailHost extends AgentNames {
  readonly backend: Pick<Backend, "trail" | "source" | "logInclusion">;
  readonly graph: string | null;
  readonly model: Pick<GraphModel, "nodes">;
  readonly toasts: Notifier;
  select: SelectFn;
  /** "Show on graph": the trail alone on the canvas (absent: no button). */
  showTrail?(trail: Trail): void;
}

export class TrailView {
  readonly el = h("div", { class: "trail", testid: "trail" });
  statementId: string | null = null;
  trail: Trail | null = null;
  private verification: string | null = null;
  private trails = new Map<string, Trail>();
  private docs = new Map<string, Promise<Doc | null>>();
  private stale = false;
  private token = 0;
  /** Bumped when another graph is opened: answers asked for before are not cached. */
  private generation = 0;
  // Focusable, so the keyboard can scroll it too.
  private transcript = h("div", { class: "transcript", testid: "transcript", tabindex: 0, role: "region", "aria-label": "Transcript" });
  private transcriptTitle = h("span");
  private transcriptDoc: string | null = null;
  private located: Located[] = [];

  constructor(private readonly app: TrailHost) {
    this.renderEmpty();
  }

  /** Shows a statement's trail (null: nothing selected); `verification` is marked as current. */
  async show(statementId: string | null, opts: { verification?: string | null } = {}): Promise<void> {
    const token = ++this.token;
    this.verification = opts.verification ?? null;
    if (statementId === null) {
      this.statementId = null;
      this.trail = null;
      this.renderEmpty();
      return;
    }
    const graph = this.app.graph;
    if (!graph) return;
    if (statementId === this.statementId && this.trail && !this.stale) {
      this.markCurrent();
      return;
    }
    const sameStatement = statementId === this.statementId;
    this.statementId = statementId;
    if (!sameStatement) replace(this.el, h("p", { class: "muted" }, "Loading the trail…"));
    let trail = this.trails.get(statementId);
    try {
      if (!trail) {
        const generation = this.generation;
        trail = await this.app.backend.trail({ graph, statement: statementId });
        // Kept only while the graph it came from is open (another may share its ids).
        if (generation === this.generation) this.trails.set(statementId, trail);
      }
      const t = trail;
      await this.app.resolveNames([t.agent, ...t.verifications.map((v) => v.agent), ...t.requests.map((r) => r.agent)]);
      const docIds = [...new Set(t.evidence.filter((e) => e.document.available).map((e) => e.document.id))];
      const docs = new Map<string, Doc | null>();
      await Promise.all(docIds.map(async (id) => docs.set(id, await this.doc(graph, id))));
      if (token !== this.token) return;
      this.stale = false;
      this.trail = t;
      this.render(t, docs);
    } catch (e) {
      if (token !== this.token) return;
      this.trail = null;
      this.app.toasts.error(e, "Loading the trail");
      replace(this.el, errorState("load this claim's trail", e, () => void this.show(statementId, opts)));
    }
  }

  /** Marks cached trails out of date (new verification results arrived). */
  invalidate(): void {
    this.trails.clear();
    if (this.statementId) this.stale = true;
  }

  isStale(): boolean {
    return this.stale;
  }

  async refresh(): Promise<void> {
    if (this.statementId) await this.show(this.statementId, { verification: this.verification });
  }

  resetGraph(): void {
    this.token += 1;
    this.generation += 1;
    this.trails.clear();
    this.docs.clear();
    this.statementId = null;
    this.trail = null;
    this.stale = false;
    this.renderEmpty();
  }

  /** Loads a trail without showing it (for the walkthrough). */
  async fetch(statementId: string): Promise<Trail> {
    const graph = this.app.graph;
    if (!graph) throw new Error("No graph open");
    const cached = this.trails.get(statementId);
    if (cached) return cached;
    const generation = this.generation;
    const t = await this.app.backend.trail({ graph, statement: statementId });
    if (generation === this.generation) this.trails.set(statementId, t);
    return t;
  }

  private doc(graph: string, id: string): Promise<Doc | null> {
    let p = this.docs.get(id);
    if (!p) {
      p = this.app.backend.source({ graph, id }).then(
        (source) => ({ source, lines: splitLines(source.text) }),
        (e) => {
          if (this.docs.get(id) === p) this.docs.delete(id);
          this.app.toasts.error(e, `Loading the source document ${id}`);
          return null;
        });
      this.docs.set(id, p);
    }
    return p;
  }

  private renderEmpty(): void {
    replace(this.el, h("div", { class: "empty-state" },
      h("p", null, "Select a claim (a Statement node) to see its evidence and verification trail."),
      h("p", { class: "muted" }, "Selecting a verification or a cited chunk shows the trail of its claim.")));
  }

  // ---------------------------------------------------------------- rendering

  private render(t: Trail, docs: Map<string, Doc | null>): void {
    this.located = t.evidence.map((ev, index) => {
      const doc = docs.get(ev.document.id) ?? null;
      const { start, end } = doc ? byteRangeToIndices(doc.source.text, ev.byte_range) : { start: 0, end: 0 };
      return { ev, index, doc, start, end };
    });
    const firstDoc = this.located.find((l) => l.doc)?.doc ?? null;
    const inOrder = byTime(t.verifications, (v) => v.time);
    const scroll = this.el.closest(".tab-body")?.scrollTop ?? 0;
    replace(this.el,
      this.claim(t),
      h("section", { class: "trail-section" },
        h("h3", null, `Evidence (${t.evidence.length})`),
        t.evidence.length === 0 ? h("p", { class: "muted" }, "The claim cites no evidence.") : null,
        this.located.map((l) => this.evidence(l))),
      firstDoc ? h("section", { class: "trail-section" },
        h("details", { class: "transcript-wrap", open: true },
          h("summary", null, h("h3", null, "Transcript: ", this.transcriptTitle)),
          this.transcript)) : null,
      h("section", { class: "trail-section" },
        h("h3", null, `Verifications (${t.verifications.length})`),
        t.requests.map((r) => h("p", { class: "request" },
          `Requested by ${agentName(r.agent, this.app.names)}`, r.time ? ` at ${clock(r.time)}` : "",
          r.criteria.length ? ` · checks ${r.criteria.join(", ")}` : "", " ",
          this.sigBadge(r.signature))),
        t.verifications.length === 0 ? h("p", { class: "muted" }, "No agent has verified this claim yet.") : null,
        inOrder.map((v, i) => this.verificationRow(v, inOrder[i - 1] ?? null))),
      this.consensus(t));
    if (firstDoc) this.renderTranscript(firstDoc);
    const body = this.el.closest(".tab-body");
    if (body && this.statementId === t.statement_id) body.scrollTop = scroll;
    this.markCurrent();
  }

  private sigBadge(status: string, testid?: string): HTMLElement {
    return h("span", {
      class: "badge sig", "data-sig": status, testid, "data-signature": testid ? status : undefined,
      title: (SIGNATURE_HELP as Record<string, string>)[status] ?? status,
    }, signatureText(status));
  }

  private claim(t: Trail): HTMLElement {
    const link = (id: string) => h("button", { class: "link", onclick: () => void this.app.select(id, { focus: true, from: "panel" }) },
      clip(this.app.model.nodes.get(id)?.text ?? id, 90));
    const relations: Array<[string, string[]]> = [["Supports", t.supports], ["Contradicts", t.contradicts], ["Contradicted by", t.contradicted_by]];
    return h("section", { class: "claim" },
      standingBanner(t),
      h("div", { class: "chips" },
        h("span", { class: "chip chip-label" }, "Claim"),
        this.sigBadge(t.signature, "statement-signature"),
        trailLogBadge({ backend: this.app.backend, graph: this.app.graph }, t),
        this.app.showTrail ? h("button", {
          class: "btn btn-small trail-show", testid: "trail-show-on-graph",
          title: "Show this claim's trail alone on the graph: who made it, its quotes, each verification and its verifier",
          onclick: () => this.app.showTrail?.(t),
        }, "Show on graph") : null),
      h("blockquote", { class: "claim-text", testid: "claim" }, t.claim.text),
      h("p", { class: "meta" },
        h("strong", null, agentName(t.agent, this.app.names)),
        t.generated_at ? ` · ${clock(t.generated_at)}` : "",
        t.claim.confidence !== null ? ` · confidence ${score(t.claim.confidence)}` : "",
        t.claim.generation_method ? ` · ${t.claim.generation_method}` : ""),
      t.problems.length > 0 ? h("ul", { class: "problems" }, t.problems.map((p) => h("li", null, h("code", null, p.code), " ", p.message))) : null,
      relations.filter(([, ids]) => ids.length > 0).map(([name, ids]) =>
        h("div", { class: `relation relation-${name.toLowerCase().replace(/ /g, "-")}` }, h("span", { class: "relation-name" }, `${name}:`), ids.map(link))));
  }

  private evidence(l: Located): HTMLElement {
    const { ev, doc } = l;
    const ctx = doc ? quoteContext(doc.lines, l.start, l.end, 1, 1) : null;
    const time = ctx?.time ?? ev.timestamp?.start ?? null;
    const actual = doc ? doc.source.text.slice(l.start, l.end) : null;
    const quote = ev.quote ?? actual ?? "";
    return h("div", { class: `evidence ev-${ev.status}`, testid: "evidence", "data-status": ev.status, "data-chunk": ev.chunk_id },
      h("div", { class: "ev-head" },
        h("span", { class: `badge ev-badge`, "data-ev": ev.status }, EVIDENCE_TEXT[ev.status] ?? ev.status),
        time ? h("span", { class: "ev-time", testid: "evidence-time" }, time) : null,
        ctx?.speaker ? h("span", { class: "ev-speaker", testid: "evidence-speaker" }, ctx.speaker) : null),
      h("button", { class: "quote", title: doc ? "Show in the transcript" : "The source document is not available",
        disabled: !doc, onclick: () => this.reveal(l.index) }, `“${quote}”`),
      ev.status === "mismatch" ? h("div", { class: "mismatch" },
        (ev.reasons ?? []).length > 0 ? h("ul", { class: "reasons" }, (ev.reasons ?? []).map((r) => h("li", null, r))) : null,
        actual !== null ? h("p", null, h("span", { class: "muted" }, `The transcript at bytes ${ev.byte_range.start}–${ev.byte_range.end} says: `), `“${actual}”`) : null) : null,
      ctx && doc ? h("div", { class: "context" }, ctx.lines.map((line) =>
        h("div", { class: `ctx-line${line.index >= ctx.first && line.index <= ctx.last ? " ctx-hit" : ""}` },
          this.lineContent(line, [{ start: l.start, end: l.end, status: ev.status, index: l.index }])))) : null,
      h("p", { class: "ev-source" },
        ev.document.title ?? ev.document.id,
        ev.document.source_name ? " · " : "",
        ev.document.source_url && ev.document.source_name
          ? h("a", { href: ev.document.source_url, target: "_blank", rel: "noopener noreferrer" }, ev.document.source_name)
          : ev.document.source_name ?? "",
        !ev.document.available ? h("span", { class: "muted" }, " (document not in the graph)") : null));
  }

  /** A transcript line as spans: the `[time] SPEAKER:` part dimmed, quotes marked. */
  private lineContent(line: Line, marks: Array<{ start: number; end: number; status: string; index: number }>): Array<HTMLElement | string> {
    const u = parseUtterance(line.text);
    const metaEnd = u ? line.start + u.bodyStart : line.start;
    const cuts = new Set<number>([line.start, line.end, metaEnd]);
    const inLine = marks.filter((m) => m.end > line.start && m.start < line.end);
    for (const m of inLine) {
      cuts.add(Math.max(line.start, m.start));
      cuts.add(Math.min(line.end, m.end));
    }
    const points = [...cuts].sort((a, b) => a - b);
    const out: Array<HTMLElement | string> = [];
    for (let i = 0; i + 1 < points.length; i++) {
      const a = points[i];
      const b = points[i + 1];
      if (b <= a) continue;
      const text = line.text.slice(a - line.start, b - line.start);
      const mark = inLine.find((m) => m.start <= a && m.end >= b);
      const meta = b <= metaEnd;
      if (mark) out.push(h("mark", { class: `ev-mark ev-mark-${mark.status}${meta ? " t-meta" : ""}`, "data-ev": String(mark.index) }, text));
      else if (meta) out.push(h("span", { class: "t-meta" }, text));
      else out.push(text);
    }
    if (out.length === 0) out.push("\u00a0");
    return out;
  }

  private renderTranscript(doc: Doc): void {
    this.transcriptDoc = doc.source.id;
    this.transcriptTitle.textContent = doc.source.title ?? doc.source.id;
    const marks = this.located.filter((l) => l.doc === doc).map((l) => ({ start: l.start, end: l.end, status: l.ev.status, index: l.index }));
    replace(this.transcript, doc.lines.map((line) =>
      h("div", { class: "t-line", "data-line": String(line.index) }, this.lineContent(line, marks))));
  }

  /** Scrolls the transcript to evidence `index` and flashes its quote. */
  reveal(index: number): void {
    const l = this.located[index];
    if (!l?.doc) return;
    if (this.transcriptDoc !== l.doc.source.id) this.renderTranscript(l.doc);
    const wrap = this.transcript.closest("details");
    if (wrap) wrap.open = true;
    const marks = [...this.transcript.querySelectorAll<HTMLElement>(`mark[data-ev="${index}"]`)];
    for (const m of this.transcript.querySelectorAll(".flash")) m.classList.remove("flash");
    for (const m of marks) m.classList.add("flash");
    const first = marks[0];
    if (first) {
      const line = first.closest<HTMLElement>(".t-line");
      // Scroll only the transcript box, not the page.
      if (line) this.transcript.scrollTop = line.offsetTop - this.transcript.clientHeight / 2 + line.clientHeight / 2;
    }
  }

  private verificationRow(v: TrailVerification, before: TrailVerification | null): HTMLElement {
    const tone = verdictTone(v.verdict);
    const delta = before === null ? null : v.consensus_after - before.consensus_after;
    return h("div", {
      class: `verification${v.counted ? "" : " not-counted"}`, testid: "verification", "data-id": v.verification_id,
      "data-signature": v.signature, "data-verdict": v.verdict, "data-counted": String(v.counted),
    },
    h("div", { class: "v-head" },
      h("strong", { class: "v-agent" }, agentName(v.agent, this.app.names)),
      v.time ? h("span", { class: "muted", title: v.time }, clock(v.time)) : null,
      h("span", { class: "spacer" }),
      this.sigBadge(v.signature)),
    h("div", { class: "v-verdict" },
      h("span", { class: `pill tone-${tone}` }, v.verdict),
      h("span", null, `confidence ${score(v.confidence)}`),
      h("span", { class: v.counted ? "counted" : "excluded" },
        v.counted ? "counted" : `not counted${v.excluded_reason ? `: ${v.excluded_reason}` : ""}`)),
    v.findings.length > 0 ? h("ul", { class: "findings" }, v.findings.map((f) =>
      h("li", null,
        h("span", { class: `pill pill-small tone-${/^(pass|ok|met)$/i.test(f.status) ? "positive" : /^(fail|failed)$/i.test(f.status) ? "negative" : "neutral"}` }, f.status),
        ` ${f.criterion}`,
        f.evidence ? h("span", { class: "finding-evidence" }, ` — ${f.evidence}`) : null,
        f.confidence !== null ? h("span", { class: "muted" }, ` (${score(f.confidence)})`) : null))) : null,
    h("div", { class: "v-after" },
      `Consensus after: ${score(v.consensus_after)}`,
      delta !== null && Math.abs(delta) >= 0.005 ? h("span", { class: delta > 0 ? "up" : "down" }, ` ${delta > 0 ? "▲" : "▼"} ${Math.abs(delta).toFixed(2)}`) : null,
      ` · ${v.verified_after ? "verified" : "not verified"}`));
  }

  private consensus(t: Trail): HTMLElement {
    return h("section", { class: `consensus ${t.verified && t.standing === "verified" ? "is-verified" : "is-unverified"}`, testid: "consensus", "data-verified": String(t.verified) },
      h("div", { class: "consensus-head" },
        h("span", { class: "consensus-label" }, "Consensus"),
        h("span", { class: "consensus-value" }, score(t.consensus)),
        h("span", { class: "consensus-verdict" }, consensusVerdict(t)),
        h("span", { class: "muted" }, `threshold ${score(t.threshold)}`)),
      t.verifications.length > 0 ? sparkline(t, this.app.names) : null);
  }

  /** Marks the current verification (walkthrough step, or the selected Verification node). */
  markCurrent(): void {
    for (const row of this.el.querySelectorAll<HTMLElement>(".verification")) {
      const current = row.dataset.id === this.verification;
      row.classList.toggle("current", current);
      if (current) {
        const body = this.el.closest(".tab-body");
        if (body) body.scrollTop = Math.max(0, row.offsetTop - body.clientHeight / 3);
      }
    }
  }

  setCurrentVerification(id: string | null): void {
    this.verification = id;
    this.markCurrent();
  }
}

/** The trail's headline: the claim's standing, the worst thing true of it, in words and an
 *  icon, with what it means. */
function standingBanner(t: Trail): HTMLElement {
  const s = t.standing;
  const tone = standingTone(s);
  const head = isBroken(s) ? brokenHeadline(t) : STANDING_TEXT[s];
  return h("p", { class: `standing-banner tone-${tone}`, testid: "trail-standing", "data-standing": s, role: "status" },
    h("span", { class: "standing-icon", "aria-hidden": "true" }, `${standingIcon(s)} `),
    h("strong", null, head),
    h("span", { class: "standing-help" }, ` — ${STANDING_HELP[s]}`));
}

/** The consensus figure's verdict: verified only when the claim's standing is. */
function consensusVerdict(t: Trail): string {
  if (!t.verified) return "✗ not verified";
  if (t.standing === "verified") return "✓ verified";
  return `threshold reached, but not verified: ${STANDING_TEXT[t.standing].toLowerCase()}`;
}

/** "2025-10-15T09:00:21Z" → "09:00:21"; anything else unchanged. */
export function clock(iso: string): string {
  const m = /T(\d{2}:\d{2}:\d{2})/.exec(iso);
  return m ? m[1] : iso;
}

/** The consensus after each verification, as a step line against the threshold. */
function sparkline(t: Trail, names: ReadonlyMap<string, string>): SVGSVGElement {
  const steps = byTime(t.verifications, (v) => v.time);
  const W = 300;
  const H = 70;
  const pad = 8;
  const n = t.verifications.length;
  const x = (i: number) => pad + (n === 1 ? (W - 2 * pad) / 2 : (i * (W - 2 * pad)) / (n - 1));
  const y = (v: number) => H - pad - Math.max(0, Math.min(1, v)) * (H - 2 * pad);
  let d = "";
  steps.forEach((v, i) => {
    d += i === 0 ? `M ${x(0)} ${y(v.consensus_after)}` : ` H ${x(i)} V ${y(v.consensus_after)}`;
  });
  const ty = y(t.threshold);
  const el = svg("svg", { class: "sparkline", viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img",
    "aria-label": `Consensus after each verification: ${steps.map((v) => score(v.consensus_after)).join(", ")}` },
  svg("line", { class: "spark-threshold", x1: pad, x2: W - pad, y1: ty, y2: ty }),
  svg("text", { class: "spark-label", x: W - pad, y: ty - 3, "text-anchor": "end" }),
  svg("path", { class: "spark-line", d }),
  ...steps.map((v, i) => {
    const c = svg("circle", { class: `spark-dot tone-${verdictTone(v.verdict)}${v.counted ? "" : " hollow"}`, cx: x(i), cy: y(v.consensus_after), r: 4 });
    const title = svg("title");
    title.textContent = `${agentName(v.agent, names)}: ${v.verdict}${v.counted ? "" : " (not counted)"}, consensus ${score(v.consensus_after)}`;
    c.appendChild(title);
    return c;
  }));
  const label = el.querySelector(".spark-label");
  if (label) label.textContent = `threshold ${score(t.threshold)}`;
  return el;
}
