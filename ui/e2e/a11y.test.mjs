// Accessibility (issue 16) in Chromium on the council demo: axe-core (npm) runs on each panel
// (Details, Trail, Timeline, Walkthrough, Console), the top bar, the legend and the first-run
// screen, in the light and the dark theme, and finds no serious or critical violation.

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import { runDemo, start, until } from "./harness.mjs";

const require = createRequire(import.meta.url);
const AXE = require.resolve("axe-core/axe.min.js");
const GRAPH = "council";

describe("accessibility of the explorer (axe-core)", { timeout: 150_000 }, () => {
  let h;
  let page;
  let claim;

  before(async () => {
    h = await start();
    page = h.page;
    await runDemo(h, GRAPH, null);
    const rows = await h.api(`/api/graphs/${GRAPH}/query`, { method: "POST", json: { cypher: "MATCH (s:Statement) RETURN s.name LIMIT 1" } });
    claim = rows.rows[0][0];
    await h.open(`/?graph=${GRAPH}`);
    await until(() => page.evaluate(() => window.provex.canvas.stats().frames > 0), { what: "a frame drawn" });
  });

  after(async () => {
    await h?.stop();
  });

  /** Serious and critical axe violations inside `selector`, as readable lines. */
  async function violations(selector) {
    if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: AXE });
    const found = await page.evaluate(async (sel) => {
      const r = await window.axe.run(sel, { resultTypes: ["violations"] });
      return r.violations
        .filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
    }, selector);
    return found;
  }

  /** Checks the open tab's panel and the top bar. */
  async function checkTab(tab, prepare) {
    await page.getByTestId(`tab-${tab}`).click();
    if (prepare) await prepare();
    await page.waitForTimeout(150);
    const found = [...await violations('[role="tabpanel"]:not([hidden])'), ...await violations('[role="tablist"]')];
    assert.deepEqual(found, [], `${tab} panel`);
  }

  for (const theme of ["light", "dark"]) {
    it(`each panel, the top bar and the legend: no serious or critical violation (${theme})`, async () => {
      if ((await page.evaluate(() => document.documentElement.dataset.theme)) !== theme) {
        await page.getByTestId("theme-toggle").click();
        await page.waitForSelector(`html[data-theme="${theme}"]`);
      }
      assert.deepEqual(await violations(".topbar"), [], "top bar");
      // Nothing selected: the claims at a glance.
      await checkTab("details", async () => {
        await page.evaluate(() => document.activeElement?.blur());
        await page.keyboard.press("Escape");
        await until(async () => (await page.getByTestId("claim-row").count()) > 0, { what: "the claims list" });
      });
      await checkTab("details", async () => {
        await page.evaluate((id) => window.provex.select(id), claim);
        await page.getByTestId("tab-details").click();
        await until(async () => (await page.getByTestId("details").locator("table.props").count()) === 1, { what: "details of a claim" });
      });
      await checkTab("trail", () => until(async () => (await page.getByTestId("trail").getByTestId("claim").count()) === 1, { what: "a trail" }));
      await checkTab("timeline");
      await checkTab("walkthrough", () => until(async () => /claims?, \d+ steps/.test((await page.getByTestId("walkthrough-caption").textContent()) ?? ""), { what: "the walkthrough" }));
      await checkTab("console");
      await page.getByTestId("legend-toggle").click();
      assert.deepEqual(await violations(".legend-corner"), [], "legend");
      await page.getByTestId("legend-toggle").click();
      assert.deepEqual(await violations(".statusbar"), [], "status bar");
    });
  }

  it("arrow keys move the selection along edges; Tab reaches the controls", async () => {
    const view = await h.api(`/api/graphs/${GRAPH}/view`);
    const at = new Map(view.nodes.map((n) => [n.id, n]));
    const neighbours = (id) => new Set(view.edges.filter((e) => e.source === id || e.target === id).map((e) => (e.source === id ? e.target : e.source)));
    const selected = () => page.evaluate(() => window.provex.app.selection.at(-1) ?? null);
    const ways = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    let moves = 0;
    for (const [key, [dx, dy]] of Object.entries(ways)) {
      await page.evaluate((id) => window.provex.select(id), claim);
      await until(async () => (await selected()) === claim, { what: "the claim selected" });
      await page.evaluate(() => document.activeElement?.blur());
      await page.keyboard.press(key);
      await page.waitForTimeout(150);
      const now = await selected();
      if (now === claim) continue;
      moves++;
      assert.ok(neighbours(claim).has(now), `${key} went to ${now}, which shares an edge with the claim`);
      const [vx, vy] = [at.get(now).x - at.get(claim).x, at.get(now).y - at.get(claim).y];
      assert.ok(vx * dx + vy * dy > 0, `${key} went that way (${vx}, ${vy})`);
    }
    assert.ok(moves > 0, "some arrow moved the selection");
    // The breadcrumb: a verification of the claim sits under it; its crumb goes back to it.
    const verification = view.edges.find((e) => e.target === claim && e.type === "VALIDATES")?.source;
    assert.ok(verification, "the claim has a verification");
    await page.evaluate((id) => window.provex.select(id), verification);
    const crumbs = page.getByTestId("breadcrumb");
    await until(async () => (await crumbs.locator('[aria-current="location"]').getAttribute("data-id")) === verification, { what: "the breadcrumb of the verification" });
    assert.equal(await crumbs.getByTestId("crumb-graph").textContent(), GRAPH);
    assert.equal(await crumbs.getByTestId("crumb-claim").getAttribute("data-id"), claim);
    // Activated from the keyboard, as a keyboard user would.
    await crumbs.getByTestId("crumb-claim").focus();
    await page.keyboard.press("Enter");
    await until(async () => (await selected()) === claim, { what: "the claim crumb selects the claim" });
    assert.deepEqual(await violations('[data-testid="breadcrumb"]'), [], "breadcrumb");
    // Tab walks through the controls: the search box, the legend and the panels' tabs are on its way.
    await page.evaluate(() => document.body.focus());
    const reached = new Set();
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press("Tab");
      reached.add(await page.evaluate(() => document.activeElement?.dataset?.testid ?? document.activeElement?.tagName));
    }
    for (const id of ["search-input", "ingest-menu", "theme-toggle", "legend-toggle", "tab-details"]) {
      assert.ok(reached.has(id), `Tab reaches ${id}: ${[...reached].join(", ")}`);
    }
  });

  it("the first-run screen: no serious or critical violation", async () => {
    await page.evaluate(() => { localStorage.clear(); document.documentElement.dataset.theme = "light"; });
    await h.open("/");
    await until(() => page.getByTestId("welcome").isVisible(), { what: "the welcome" });
    await page.getByTestId("welcome-connect").click();
    assert.deepEqual(await violations('[data-testid="welcome"]'), []);
    assert.deepEqual(h.errors, [], "no page errors");
  });
});
