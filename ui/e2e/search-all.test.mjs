// The search box's "All graphs" mode in Chromium against a real `provex serve`: two graphs
// from different sources (signed statements; OpenTelemetry traces with a prompt lineage), a
// search lists the API's hits under their graph, and a hit of the other graph opens that
// graph with its node selected. Screenshots: docs/screenshots/search-all-{light,dark}.png, in
// which every pixel of the canvas is drawn, under and below the list of hits too.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ARTIFACTS, ROOT, openDrawn, screenshot, start, statusCounts, until } from "./harness.mjs";
import { decodePng } from "./png.mjs";

const MEETING = "meeting";
const SUMMARISER = "summariser";
const TRACE = "02f889e7e1e425ea27e356436224b835";
const ROOT_SPAN = `otel:${TRACE}:fbd8927b927da6f4`;

describe("search across every graph", { timeout: 240_000 }, () => {
  let h;
  let page;

  const groups = () => page.$$eval('[data-testid="search-group"]', (gs) => gs.map((g) => g.dataset.graph));
  const results = () => page.$$eval('[data-testid="search-result"]', (rs) => rs.map((r) => `${r.dataset.graph}/${r.dataset.id}`));

  async function type(text) {
    const input = page.getByTestId("search-input");
    await input.fill("");
    await input.fill(text);
  }

  /** Takes the screenshot `name`, and counts the pixels of the canvas's box it left undrawn
   *  (transparent: nothing of the canvas nor of the page under it composited there). */
  async function shotOfCanvas(name) {
    await screenshot(page, name);
    // The copy the harness kept under e2e/artifacts/ is the same picture.
    const img = decodePng(readFileSync(join(ARTIFACTS, name)));
    const box = await page.locator("canvas.provex-graph-canvas").boundingBox();
    // Chromium writes RGB when every pixel is opaque, RGBA when some are not.
    if (img.channels !== 4) return 0;
    let undrawn = 0;
    for (let y = Math.ceil(box.y); y < Math.floor(box.y + box.height); y++) {
      for (let x = Math.ceil(box.x); x < Math.floor(box.x + box.width); x++) {
        if (img.data[(y * img.width + x) * 4 + 3] < 255) undrawn++;
      }
    }
    return undrawn;
  }

  before(async () => {
    h = await start();
    page = h.page;
    await h.cli("ingest", join(ROOT, "examples/council/council-a2ap.jsonl"), "--graph", MEETING);
    await h.cli("ingest", join(ROOT, "examples/council/council-otel.jsonl"), "--graph", SUMMARISER);
    await h.cli("ingest", join(ROOT, "examples/lineage/summarise-prompt.jsonl"), "--graph", SUMMARISER);
    await openDrawn(h, MEETING);
  });

  after(async () => {
    await h?.stop();
  });

  it("lists the API's hits under their graph, each graph once, in the order of its best hit", async () => {
    const hits = await h.api(`/api/search?q=council&limit=50`);
    const graphs = [...new Set(hits.map((x) => x.graph))];
    assert.deepEqual([...graphs].sort(), [MEETING, SUMMARISER], "both graphs hold the word");
    await page.getByTestId("search-all-toggle").click();
    assert.equal(await page.getByTestId("search-all-toggle").getAttribute("aria-pressed"), "true");
    await type("council");
    await until(async () => (await results()).length === hits.length, { what: `${hits.length} results` });
    assert.deepEqual(await groups(), graphs);
    const expected = graphs.flatMap((g) => hits.filter((x) => x.graph === g).map((x) => `${x.graph}/${x.id}`));
    assert.deepEqual(await results(), expected);
    // The list is taller than its box (it scrolls): the canvas under and below it is drawn all
    // the same (a plain background colour on the list left a blank patch there).
    assert.ok(await page.$eval(".search-results", (l) => l.scrollHeight > l.clientHeight), "the list scrolls");
    assert.equal(await shotOfCanvas("search-all-light.png"), 0, "undrawn pixels in the canvas (light)");
    await page.getByTestId("theme-toggle").click();
    await page.getByTestId("search-input").focus();
    await until(() => page.locator(".search-results").isVisible(), { what: "the list open again" });
    // The canvas redraws its scene in the new theme over a few frames; the list stays open
    // (the box has its focus back before the close that followed the click elsewhere).
    await page.waitForTimeout(1500);
    assert.ok(await page.locator(".search-results").isVisible(), "the list still open");
    assert.equal(await shotOfCanvas("search-all-dark.png"), 0, "undrawn pixels in the canvas (dark)");
    await page.getByTestId("theme-toggle").click();
  });

  it("a trace id found in the other graph opens that graph with the trace's root span selected", async () => {
    await type(TRACE);
    const first = page.locator('[data-testid="search-result"]').first();
    await until(async () => (await first.getAttribute("data-id")) === ROOT_SPAN, { what: "the trace's root span first" });
    assert.equal(await first.getAttribute("data-graph"), SUMMARISER);
    await first.click();
    await until(() => page.evaluate(() => window.provex.app.graph), { what: "a graph open" });
    await until(async () => (await page.evaluate(() => window.provex.app.graph)) === SUMMARISER, { what: "the summariser graph open" });
    const stats = await h.api(`/api/graphs/${SUMMARISER}/stats`);
    await until(async () => (await statusCounts(page)).nodes === stats.nodes, { what: "the summariser graph drawn" });
    await until(async () => (await page.evaluate(() => window.provex.app.selection.at(-1) ?? null)) === ROOT_SPAN, { what: "the root span selected" });
    assert.equal(await page.getByTestId("graph-picker").inputValue(), SUMMARISER);
  });

  it("pressed again, the box searches the open graph only", async () => {
    await page.getByTestId("search-all-toggle").click();
    assert.equal(await page.getByTestId("search-all-toggle").getAttribute("aria-pressed"), "false");
    await type("Elm Street");
    await page.waitForTimeout(600);
    assert.deepEqual(await groups(), []);
    const named = await page.$$eval('[data-testid="search-result"]', (rs) => rs.filter((r) => r.dataset.graph).length);
    assert.equal(named, 0, "no hit names a graph: they are all of the open one");
    assert.ok(await page.evaluate(() => window.provex.app.graph) === SUMMARISER);
  });
});
