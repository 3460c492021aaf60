// The Traces tab in Chromium against a real `provex serve`, on OpenTelemetry spans made by the
// real Python SDK (tests/data/otel/): the tab lists the traces the API's `traces` returns; a
// trace opens as a waterfall whose rows are the API's spans, nested by parent, the failing
// ones and the span links marked; a row selects its node on the canvas and a span clicked on
// the canvas is picked in the waterfall; the agent view draws the agents and the delegations
// between them; a span's details show its messages as a chat, its tool's JSON and its
// exception; "Where did this come from?" walks a message back to the call that produced it.
// Live: spans posted to the graph while the page is open appear in the list. Screenshots of
// each view go to docs/screenshots/traces-*.png.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import { ROOT, nodeOnPage, screenshot, start, statusCounts, until } from "./harness.mjs";

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const GRAPH = "agents";
const DATA = join(ROOT, "tests/data/otel");

async function shot(page, name) {
  // The canvas draws a large scene over several frames: let it finish.
  await page.waitForTimeout(1000);
  await screenshot(page, name);
}

describe("the Traces tab", { timeout: 240_000 }, () => {
  let h;
  let page;
  let traces;

  const rows = () => page.$$eval('[data-testid="wf-row"]', (rs) => rs.map((r) => ({
    id: r.dataset.span, depth: Number(r.dataset.depth), pressed: r.getAttribute("aria-pressed") === "true", text: r.textContent,
  })));
  async function violations(selector) {
    if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: AXE });
    return page.evaluate(async (sel) => {
      const r = await window.axe.run(sel, { resultTypes: ["violations"] });
      return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
    }, selector);
  }
  const selected = () => page.evaluate(() => window.provex.app.selection.at(-1) ?? null);

  before(async () => {
    h = await start();
    page = h.page;
    await h.cli("ingest", join(DATA, "genai-tool-agent.jsonl"), join(DATA, "links-and-failure.jsonl"), "--graph", GRAPH, "--format", "otlp");
    traces = await h.api(`/api/graphs/${GRAPH}/traces`);
    await h.open(`/?graph=${GRAPH}`);
    const stats = await h.api(`/api/graphs/${GRAPH}/stats`);
    await until(async () => (await statusCounts(page)).nodes === stats.nodes, { what: "the graph drawn" });
  });

  after(async () => {
    await h?.stop();
  });

  it("lists the traces the API returns, newest first, with root, service, agents, spans, errors and tokens", async () => {
    assert.equal(traces.total, 4, "one trace of the tool agent, three of the review board");
    const tab = page.getByTestId("tab-traces");
    await until(() => tab.isVisible(), { what: "the Traces tab offered" });
    await tab.click();
    const shown = await until(async () => {
      const r = await page.$$eval('[data-testid="trace-row"]', (rs) => rs.map((x) => ({ id: x.dataset.trace, text: x.textContent })));
      return r.length === traces.traces.length ? r : null;
    }, { what: "a row per trace" });
    assert.deepEqual(shown.map((r) => r.id), traces.traces.map((t) => t.trace_id));
    for (const t of traces.traces) {
      const r = shown.find((x) => x.id === t.trace_id);
      assert.ok(r.text.includes(t.root_name), r.text);
      assert.ok(r.text.includes(`${t.spans} span`), r.text);
      for (const a of t.agents) assert.ok(r.text.includes(a), `${a} in ${r.text}`);
      if (t.tokens_in) assert.ok(r.text.includes(`${t.tokens_in} in`), r.text);
      if (t.errors) assert.ok(r.text.includes(`${t.errors} error`), r.text);
    }
    await shot(page, "traces-list.png");
  });

  it("opens a waterfall of the API's spans nested by parent; a row selects its node on the canvas", async () => {
    const merger = traces.traces.find((t) => t.root_name === "invoke_agent merger");
    const api = await h.api(`/api/graphs/${GRAPH}/traces/${merger.trace_id}`);
    await page.locator(`[data-testid="trace-row"][data-trace="${merger.trace_id}"]`).click();
    const shown = await until(async () => { const r = await rows(); return r.length === api.spans.length ? r : null; }, { what: "the waterfall" });
    assert.deepEqual(shown.map((r) => r.id).sort(), api.spans.map((s) => s.id).sort());
    // Children sit under their parent.
    for (const s of api.spans) {
      const r = shown.find((x) => x.id === s.id);
      assert.equal(r.depth, s.parent && api.spans.some((p) => p.id === s.parent) ? 1 : 0, s.name);
    }
    assert.equal(await page.getByTestId("wf-error").count(), api.spans.filter((s) => s.status === "error").length);
    const linker = api.spans.find((s) => s.links.length === 2);
    assert.equal(await page.locator(`[data-testid="wf-row"][data-span="${linker.id}"] [data-testid="wf-link"]`).textContent(), "⤳2");
    // A failing tool: the row selects the span's node; details show the exception.
    const tool = api.spans.find((s) => s.label === "ToolCall" && s.status === "error");
    await page.locator(`[data-testid="wf-row"][data-span="${tool.id}"]`).click();
    await until(async () => (await selected()) === tool.id, { what: "the tool's node selected on the canvas" });
    const details = await h.api(`/api/graphs/${GRAPH}/span?id=${encodeURIComponent(tool.id)}`);
    const err = page.getByTestId("span-error");
    await until(() => err.isVisible(), { what: "the exception" });
    assert.ok((await err.textContent()).includes(details.error.exception_type));
    assert.ok((await err.textContent()).includes(details.error.message));
    await shot(page, "traces-waterfall.png");
    assert.deepEqual(await violations('[data-testid="trace-view"]'), [], "the trace view");
    assert.deepEqual(await violations('[data-testid="traces"]'), [], "the Traces tab");
  });

  it("draws the agents and the delegations between them", async () => {
    await page.getByTestId("trace-mode-agents").click();
    const merger = traces.traces.find((t) => t.root_name === "invoke_agent merger");
    const api = await h.api(`/api/graphs/${GRAPH}/traces/${merger.trace_id}/agents`);
    await until(async () => (await page.getByTestId("agent-box").count()) === api.agents.length, { what: "a box per agent" });
    const boxes = await page.$$eval('[data-testid="agent-box"]', (bs) => bs.map((b) => b.dataset.agent));
    assert.deepEqual(boxes, api.agents.map((a) => a.id));
    await page.getByTestId("trace-close").click();
    // The tool agent's trace: one agent doing everything.
    const tool = traces.traces.find((t) => t.root_name === "invoke_agent travel-planner");
    await page.locator(`[data-testid="trace-row"][data-trace="${tool.trace_id}"]`).click();
    await until(async () => (await page.getByTestId("agent-box").count()) === 1, { what: "the travel planner's box" });
    assert.ok((await page.getByTestId("agent-box").textContent()).includes("2 LLM calls"));
    await page.getByTestId("trace-mode-waterfall").click();
  });

  it("shows a call's messages as a chat and walks a message back to the call that produced it", async () => {
    const tool = traces.traces.find((t) => t.root_name === "invoke_agent travel-planner");
    const api = await h.api(`/api/graphs/${GRAPH}/traces/${tool.trace_id}`);
    const calls = api.spans.filter((s) => s.label === "LlmCall").sort((a, b) => a.start_ns - b.start_ns);
    await until(async () => (await rows()).length === api.spans.length, { what: "the waterfall" });
    await page.locator(`[data-testid="wf-row"][data-span="${calls[1].id}"]`).click();
    const details = await h.api(`/api/graphs/${GRAPH}/span?id=${encodeURIComponent(calls[1].id)}`);
    await until(async () => (await page.getByTestId("span-message").count()) === details.messages.length, { what: "the chat" });
    const roles = await page.$$eval('[data-testid="span-message"]', (ms) => ms.map((m) => m.dataset.role));
    assert.deepEqual(roles, details.messages.map((m) => m.role));
    await page.getByTestId("span-messages").scrollIntoViewIfNeeded();
    await shot(page, "traces-span-details.png");
    const i = details.messages.findIndex((m) => m.produced_by === calls[0].id);
    assert.ok(i >= 0, "the second call reads what the first wrote");
    await page.getByTestId("message-origin").nth(i).click();
    await until(async () => (await selected()) === calls[0].id, { what: "the producing call selected" });
    const note = page.getByTestId("message-origin-result");
    await until(() => note.isVisible(), { what: "the origin said" });
    assert.ok((await note.textContent()).includes(calls[0].name));
    assert.deepEqual((await rows()).filter((r) => r.pressed).map((r) => r.id), [calls[0].id]);
  });

  it("picks a span clicked on the canvas in its waterfall", async () => {
    await page.getByTestId("trace-close").click();
    const tool = traces.traces.find((t) => t.root_name === "invoke_agent travel-planner");
    const api = await h.api(`/api/graphs/${GRAPH}/traces/${tool.trace_id}`);
    const target = api.spans.find((s) => s.label === "ToolCall");
    await page.evaluate((id) => window.provex.canvas.focus(id), target.id);
    // Once the camera has settled on it, inside the canvas.
    let last = null;
    const at = await until(async () => {
      const p = await nodeOnPage(page, target.id);
      const inside = p && p.x > p.box.x + 10 && p.x < p.box.x + p.box.width - 10 && p.y > p.box.y + 10 && p.y < p.box.y + p.box.height - 10;
      const still = inside && last && Math.abs(last.x - p.x) < 0.5 && Math.abs(last.y - p.y) < 0.5;
      last = p;
      return still ? p : null;
    }, { what: "the tool's node on screen" });
    await page.mouse.click(at.x, at.y);
    await until(async () => (await rows()).filter((r) => r.pressed).map((r) => r.id)[0] === target.id, { what: "the span picked in the waterfall" });
    assert.equal(await selected(), target.id);
  });

  it("lists a trace that arrives while the page is open", async () => {
    const body = await readFile(join(DATA, "openinference-agents.jsonl"), "utf8");
    const post = await fetch(`${h.base}/api/graphs/${GRAPH}/events?format=otlp`, { method: "POST", headers: { ...h.auth, "Content-Type": "application/x-ndjson" }, body });
    assert.equal(post.status, 200, await post.text());
    await until(async () => (await page.getByTestId("trace-row").count()) === traces.traces.length + 1, { what: "the new trace listed" });
    // Its agents: the triage agent delegates to a researcher and a writer.
    const now = await h.api(`/api/graphs/${GRAPH}/traces`);
    const triage = now.traces.find((t) => t.root_name === "triage");
    const api = await h.api(`/api/graphs/${GRAPH}/traces/${triage.trace_id}/agents`);
    await page.locator(`[data-testid="trace-row"][data-trace="${triage.trace_id}"]`).click();
    await page.getByTestId("trace-mode-agents").click();
    await until(async () => (await page.getByTestId("handoff").count()) === api.hand_offs.length, { what: "the hand-offs drawn" });
    const hands = await page.$$eval('[data-testid="handoff"]', (hs) => hs.map((x) => `${x.dataset.from}>${x.dataset.to}:${x.dataset.kind}`));
    assert.deepEqual(hands, api.hand_offs.map((x) => `${x.from}>${x.to}:${x.kind}`));
    assert.ok(hands.includes("triage>researcher:delegation"), hands.join());
    await page.locator('[data-testid="agent-box"][data-agent="researcher"]').click();
    await until(async () => (await page.getByTestId("span-details").count()) === 1, { what: "the researcher's span" });
    await shot(page, "traces-agents.png");
    assert.deepEqual(await violations('[data-testid="trace-view"]'), [], "the agent view");
    assert.deepEqual(h.errors, []);
  });
});
