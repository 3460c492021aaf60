// Compare on two runs of the same agent (other trace ids, span ids and times; its weather
// tool answering rain the second time), made by the real OpenTelemetry SDK
// (tests/data/otel/tool-agent-run-{a,b}.jsonl): after the claims part, the runs part says
// what differs call by call, as the API's diff does, and a call selects its span. Screenshots
// in light and dark go to docs/screenshots/.

import assert from "node:assert/strict";
import { join } from "node:path";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import { ROOT, screenshot as shot, start, statusCounts, until } from "./harness.mjs";

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const RUN_A = join(ROOT, "tests/data/otel/tool-agent-run-a.jsonl");
const RUN_B = join(ROOT, "tests/data/otel/tool-agent-run-b.jsonl");

describe("compare two runs of an agent", { timeout: 180_000 }, () => {
  let h;
  let page;
  let diff;

  before(async () => {
    h = await start();
    page = h.page;
    await h.cli("ingest", RUN_A, "--graph", "run_a");
    await h.cli("ingest", RUN_B, "--graph", "run_b");
    diff = await h.api("/api/diff?a=run_a&b=run_b");
    await h.open("/?graph=run_b");
    const stats = await h.api("/api/graphs/run_b/stats");
    await until(async () => (await statusCounts(page)).nodes === stats.nodes, { what: "run b drawn" });
  });

  after(async () => {
    await h?.stop();
  });

  it("says which calls, messages, tool results and agents differ, as the API does, and a call selects its span", async () => {
    const t = diff.traces;
    assert.ok(t, "the API's diff compares the runs");
    assert.equal(t.calls.length, 4);
    await page.getByTestId("compare-button").click();
    await until(() => page.getByTestId("compare").isVisible(), { what: "the compare panel" });
    await page.getByTestId("compare-other").selectOption("run_a");
    await page.getByTestId("compare-run").click();
    const runs = page.getByTestId("compare-runs");
    await until(() => runs.isVisible(), { what: "the runs part" });
    // Right after the claims part.
    const order = await page.locator('[data-testid="compare"] .compare-body > *').evaluateAll((els) => els.map((e) => e.dataset.testid ?? ""));
    assert.deepEqual(order.slice(0, 2), ["compare-claims", "compare-runs"]);
    assert.equal(await page.getByTestId("runs-headline").textContent(), "same calls, 3 differ, 2 messages differ, tool get_weather result differs");
    const calls = await page.getByTestId("runs-calls").locator("li").evaluateAll((ls) => ls.map((l) => ({ change: l.dataset.change, path: l.dataset.path })));
    assert.deepEqual(calls, t.calls.filter((c) => c.changes.length > 0).map((c) => ({ change: "changed", path: c.path })));
    const result = page.getByTestId("runs-tools").locator('[data-tool="get_weather"] [data-what="result"]');
    assert.match(await result.locator(".before").textContent(), /"forecast":"sunny"/);
    assert.match(await result.locator(".after").textContent(), /"forecast":"rain"/);
    const messages = await page.getByTestId("runs-messages").locator("li").evaluateAll((ls) => ls.map((l) => l.dataset.change));
    assert.deepEqual(messages, ["removed", "removed", "added", "added"]);
    assert.equal(await page.getByTestId("runs-agents").textContent(), "Agents: 1 in both");
    await shot(page, "compare-runs-light.png");
    await page.getByTestId("theme-toggle").click();
    await page.waitForSelector('html[data-theme="dark"]');
    await shot(page, "compare-runs-dark.png");
    // The tool call, in run b (drawn), is selected from its line.
    const tool = t.calls.find((c) => c.operation === "execute_tool");
    await page.getByTestId("runs-calls").locator(`li[data-path="${tool.path}"] button`).click();
    await until(() => page.evaluate((id) => window.provex.app.selection.includes(id), tool.b), { what: "the tool span selected" });
    // Accessible in both themes.
    await page.addScriptTag({ path: AXE });
    for (const theme of ["dark", "light"]) {
      if ((await page.evaluate(() => document.documentElement.dataset.theme)) !== theme) {
        await page.getByTestId("theme-toggle").click();
        await page.waitForSelector(`html[data-theme="${theme}"]`);
      }
      const found = await page.evaluate(async () => (await window.axe.run('[data-testid="compare-runs"]', { resultTypes: ["violations"] }))
        .violations.filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`));
      assert.deepEqual(found, [], `runs part, ${theme}`);
    }
  });

  it("compares two runs held in one graph, trace by trace, as the API does", async () => {
    await h.cli("ingest", RUN_A, RUN_B, "--graph", "runs_both");
    const api = await h.api(`/api/diff?a=runs_both&b=runs_both&trace_a=${diff.traces.a.traces[0]}&trace_b=${diff.traces.b.traces[0]}`);
    assert.deepEqual(api.traces.calls.map((c) => c.changes), diff.traces.calls.map((c) => c.changes));
    await page.getByTestId("compare-close").click();
    await h.open("/?graph=runs_both");
    await page.getByTestId("compare-button").click();
    await until(() => page.getByTestId("compare-traces").isVisible(), { what: "the choice of runs" });
    await page.getByTestId("compare-trace-a").selectOption(diff.traces.a.traces[0]);
    await page.getByTestId("compare-trace-b").selectOption(diff.traces.b.traces[0]);
    await page.getByTestId("compare-run-traces").click();
    await until(() => page.getByTestId("compare-runs").isVisible(), { what: "the runs part" });
    assert.equal(await page.getByTestId("runs-headline").textContent(), "same calls, 3 differ, 2 messages differ, tool get_weather result differs");
    assert.match(await page.getByTestId("compare-summary").textContent(), /^trace 1b2ee718 against trace 30709857: /);
    assert.match(await page.getByTestId("compare-runs").locator(".muted").first().textContent(), /^A: trace 30709857 \(4 spans\) · B: trace 1b2ee718 \(4 spans\)/);
    await shot(page, "compare-runs-one-graph-light.png");
    await page.getByTestId("theme-toggle").click();
    await page.waitForSelector('html[data-theme="dark"]');
    await shot(page, "compare-runs-one-graph-dark.png");
  });
});
