// The Runs view against a real `provex serve`: three graphs of different sources (the
// council demo, the runtime's example run, the PROV primer) are listed with the sizes the
// API's stats give and the sources and problems their files hold; a header sorts, the filters
// narrow, a fourth graph ingested while the view is open appears without a reload, and a
// click opens a graph. Screenshots (light and dark) go to docs/screenshots/runs-*.png.

import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ROOT, runDemo, screenshot, start, until } from "./harness.mjs";

const GRAPHS = ["council", "agent-run", "primer"];

describe("the Runs view", { timeout: 180_000 }, () => {
  let h;
  let page;
  /** Each graph's node count as the API's stats give it. */
  const nodes = new Map();

  /** The graphs of the rows shown, in order. */
  const shown = () => page.$$eval('[data-testid="runs-row"]', (rows) => rows.map((r) => r.dataset.graph));
  /** A row's cells' text by column. */
  const cells = (graph) => page.$eval(`[data-testid="runs-row"][data-graph="${graph}"]`, (r) => ({
    nodes: r.querySelector('[data-col="nodes"]').textContent,
    sources: [...r.querySelectorAll(".runs-source")].map((s) => s.textContent),
    invalid: r.querySelector('[data-col="invalid_signatures"]').textContent,
    challenged: r.querySelector('[data-col="challenged_claims"]').textContent,
    failed: r.querySelector('[data-col="failed_tools"]').textContent,
    agents: r.querySelector(".runs-agents").textContent,
  }));

  before(async () => {
    h = await start();
    page = h.page;
    await runDemo(h, "council");
    await h.cli("ingest", join(ROOT, "examples/a2a-run.jsonl"), "--graph", "agent-run");
    await h.cli("ingest", join(ROOT, "examples/prov/primer.json"), "--graph", "primer");
    for (const g of GRAPHS) nodes.set(g, (await h.api(`/api/graphs/${g}/stats`)).nodes);
    await h.open("/?graph=primer");
    await page.getByTestId("runs-button").click();
    await until(async () => (await shown()).length === 3, { what: "three rows" });
  });

  after(async () => {
    await h?.stop();
  });

  it("lists every graph with its sources, size and problems", async () => {
    assert.deepEqual([...(await shown())].sort(), [...GRAPHS].sort());
    for (const g of GRAPHS) assert.equal((await cells(g)).nodes, nodes.get(g).toLocaleString("en"), g);
    const council = await cells("council");
    assert.deepEqual(council.sources, ["Runtime events", "Signed statements", "Reasoning traces", "OpenTelemetry"]);
    // The demo's forged verification and its claim altered after signing; the two claims its
    // counted verifications challenge.
    assert.deepEqual([council.invalid, council.challenged, council.failed], ["2", "2", "0"]);
    const run = await cells("agent-run");
    assert.deepEqual(run.sources, ["Runtime events"]);
    assert.equal(run.failed, "1", "the example run's failed tool call");
    assert.match(run.agents, /^3 planner, researcher, writer$/);
    assert.deepEqual((await cells("primer")).sources, ["PROV"]);
    const api = await h.api("/api/runs");
    assert.deepEqual(api.rows.map((r) => r.graph).sort(), [...GRAPHS].sort(), "the view shows the operation's rows");
    assert.match(await page.getByTestId("runs-summary").textContent(), /^3 graphs, 2 with problems · live/);
    assert.deepEqual(h.errors, []);
  });

  it("sorts by a column, either way", async () => {
    const bySize = [...GRAPHS].sort((a, b) => nodes.get(b) - nodes.get(a));
    await page.locator('[data-sort="nodes"]').click();
    assert.deepEqual(await shown(), bySize);
    await page.locator('[data-sort="nodes"]').click();
    assert.deepEqual(await shown(), [...bySize].reverse());
    await page.locator('[data-sort="graph"]').click();
    assert.deepEqual(await shown(), ["agent-run", "council", "primer"]);
  });

  it("filters by name or agent, by source and by problems", async () => {
    await page.getByTestId("runs-filter").fill("writer");
    assert.deepEqual(await shown(), ["agent-run"], "an agent's name finds its run");
    await page.getByTestId("runs-filter").fill("");
    await page.getByTestId("runs-source").selectOption("prov");
    assert.deepEqual(await shown(), ["primer"]);
    await page.getByTestId("runs-source").selectOption("");
    await page.getByTestId("runs-problems").check();
    assert.deepEqual(await shown(), ["agent-run", "council"]);
    await page.getByTestId("runs-problems").uncheck();
    assert.deepEqual((await shown()).length, 3);
  });

  it("screenshots, light and dark", async () => {
    await screenshot(page, "runs-light.png");
    await page.evaluate(() => window.provex.app.setTheme("dark"));
    await screenshot(page, "runs-dark.png");
    await page.evaluate(() => window.provex.app.setTheme("light"));
  });

  it("grows live: a graph ingested while the view is open appears without a reload", async () => {
    const body = await (await import("node:fs/promises")).readFile(join(ROOT, "examples/lineage/summarise-prompt.jsonl"));
    const res = await fetch(`${h.base}/api/graphs/lineage/upload?name=summarise-prompt.jsonl`, { method: "POST", headers: h.auth, body });
    assert.equal(res.status, 200, await res.text());
    await until(async () => (await shown()).includes("lineage"), { ms: 10_000, what: "the new graph's row" });
    assert.deepEqual((await cells("lineage")).sources, ["Prompt lineage"]);
    assert.equal((await cells("lineage")).nodes, (await h.api("/api/graphs/lineage/stats")).nodes.toLocaleString("en"));
  });

  it("opens a graph from its row", async () => {
    await page.locator('[data-testid="runs-row"][data-graph="agent-run"]').click();
    await until(() => page.getByTestId("runs").isHidden(), { what: "the view closed" });
    assert.equal(await page.getByTestId("graph-picker").inputValue(), "agent-run");
    assert.deepEqual(h.errors, []);
  });
});
