// Following a live stream: the paced council demo started from the UI's Ingest menu into a
// new graph while the page is open. New nodes arrive over server-sent events without a
// reload, and nodes already drawn never move.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { artifact, errorToasts, start, statusCounts, until } from "./harness.mjs";

const GRAPH = "live";
const PACE_MS = 150;

describe("live stream in the browser", { timeout: 120_000 }, () => {
  let h;
  let page;

  before(async () => {
    h = await start();
    page = h.page;
  });

  after(async () => {
    await h?.stop();
  });

  /** Model and on-canvas positions of every node drawn now. */
  function positions() {
    return page.evaluate(() => {
      const { model, canvas } = window.provex;
      const out = {};
      for (const n of model.nodes.values()) out[n.id] = { x: n.x, y: n.y, screen: canvas.screenPosition(n.id) };
      return out;
    });
  }

  it("(c) the paced demo streams in without a reload, and drawn nodes stay put", async () => {
    await h.open("/");
    const nav = await page.evaluate(() => {
      window.__e2eMarker = "still-here";
      return { origin: performance.timeOrigin, entries: performance.getEntriesByType("navigation").length };
    });

    // Ingest → council demo into a new graph, one record every PACE_MS.
    await page.getByTestId("ingest-menu").click();
    await page.getByTestId("ingest-graph").fill(GRAPH);
    await page.getByLabel("Pace in milliseconds").fill(String(PACE_MS));
    await page.getByTestId("demo-button").click();
    await until(async () => (await page.getByTestId("graph-picker").inputValue()) === GRAPH, { what: "the new graph opened" });
    await until(async () => (await page.getByTestId("stream-state").getAttribute("data-state")) === "open", { what: "the stream open" });

    // Some nodes have arrived: remember where they are.
    await until(async () => (await statusCounts(page)).nodes >= 15, { ms: 30_000, what: "the first nodes" });
    await page.waitForTimeout(200);
    const before = await positions();
    const seqBefore = (await statusCounts(page)).seq;
    const nBefore = Object.keys(before).length;
    assert.ok(Object.values(before).every((p) => p.screen), "every node is drawn");

    // More arrive, in several messages.
    await until(async () => (await statusCounts(page)).nodes >= nBefore + 40, { ms: 40_000, what: `${nBefore + 40} nodes` });
    await artifact(page, "live-stream.png");
    const later = await positions();
    const seqLater = (await statusCounts(page)).seq;
    assert.ok(seqLater >= seqBefore + 5, `many stream messages (seq ${seqBefore} → ${seqLater})`);
    const moved = Object.entries(before).filter(([id, p]) => {
      const q = later[id];
      return !q || q.x !== p.x || q.y !== p.y || Math.abs(q.screen.x - p.screen.x) > 1e-6 || Math.abs(q.screen.y - p.screen.y) > 1e-6;
    });
    assert.deepEqual(moved.map(([id]) => id), [], "nodes drawn earlier kept their place");

    // No reload happened.
    const still = await page.evaluate(() => ({
      marker: window.__e2eMarker,
      origin: performance.timeOrigin,
      entries: performance.getEntriesByType("navigation").length,
    }));
    assert.deepEqual(still, { marker: "still-here", origin: nav.origin, entries: nav.entries });

    // The demo ends; the page holds everything the API says the graph holds, where the
    // server's view has it.
    await until(async () => {
      const jobs = await h.api("/api/jobs");
      return jobs.length > 0 && jobs.every((j) => j.state !== "running");
    }, { ms: 60_000, every: 500, what: "the demo job to finish" });
    const jobs = await h.api("/api/jobs");
    assert.deepEqual(jobs.map((j) => [j.kind, j.graph, j.state]), [["demo", GRAPH, "done"]]);
    const stats = await h.api(`/api/graphs/${GRAPH}/stats`);
    const counts = await until(async () => {
      const c = await statusCounts(page);
      return c.nodes === stats.nodes && c.edges === stats.edges ? c : null;
    }, { ms: 10_000, what: `status "${stats.nodes} nodes · ${stats.edges} edges"` });
    const view = await h.api(`/api/graphs/${GRAPH}/view`);
    assert.equal(counts.seq, view.seq, "the page is current to the server's last message");
    const served = new Map(view.nodes.map((n) => [n.id, n]));
    const drifted = Object.entries(before).filter(([id, p]) => served.get(id)?.x !== p.x || served.get(id)?.y !== p.y);
    assert.deepEqual(drifted.map(([id]) => id), [], "the server's view has the nodes where the stream first put them");
    const drawn = await page.evaluate(() => window.provex.canvas.stats());
    assert.equal(drawn.nodes, stats.nodes);
    assert.equal(drawn.edges, stats.edges);
    assert.equal(await page.evaluate(() => window.__e2eMarker), "still-here");
    assert.deepEqual(await errorToasts(page), []);
    assert.deepEqual(h.errors, [], "no page errors");
  });
});
