// Semantic zoom in Chromium (issue 16): the council demo opened with a view limit below its
// size (`?limit=30`) arrives as cluster boxes that partition it, each labelled with what it
// holds; a click opens a box into its sub-clusters or its nodes, the notice says where the
// view is, and Back returns. Counts are checked against the API's whole view, not hard-coded.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { artifact, nodeOnPage, runDemo, screenshot, start, until } from "./harness.mjs";

const GRAPH = "council";
const LIMIT = 30;

describe("semantic zoom on the council demo", { timeout: 150_000 }, () => {
  let h;
  let page;
  let whole;

  before(async () => {
    h = await start();
    page = h.page;
    await runDemo(h, GRAPH, null);
    whole = await h.api(`/api/graphs/${GRAPH}/view?limit=10000`);
    await h.open(`/?graph=${GRAPH}&limit=${LIMIT}`);
    await until(() => page.evaluate(() => window.provex.model.mode === "clusters"), { what: "the cluster view" });
    await until(() => page.evaluate(() => window.provex.canvas.stats().frames > 0), { what: "a frame drawn" });
    await page.waitForTimeout(800);
  });

  after(async () => {
    await h?.stop();
  });

  const drawn = () => page.evaluate(() => [...window.provex.model.nodes.values()].map((n) => ({ id: n.id, label: n.label, cluster: n.cluster ?? null })));

  it("opens as clusters that hold every node, each box labelled with what it holds", async () => {
    const boxes = await drawn();
    assert.ok(boxes.length > 1 && boxes.every((b) => b.label === "Cluster" && b.cluster), JSON.stringify(boxes.slice(0, 3)));
    assert.equal(boxes.reduce((s, b) => s + b.cluster.members, 0), whole.nodes.length, "the boxes hold every node once");
    assert.match(await page.getByTestId("notice-text").textContent(), new RegExp(`This graph has ${whole.nodes.length} nodes, shown as clusters`));
    assert.match(await page.getByTestId("status").textContent(), new RegExp(`^${boxes.length} clusters of ${whole.nodes.length} nodes · seq \\d+$`));
    // Each box is captioned with its title (its count below it, or first on one line).
    const labels = await page.evaluate(() => window.provex.canvas.drawnLabels());
    const titles = new Map(boxes.map((b) => [b.id, b.cluster.title]));
    assert.ok(labels.length > 0);
    for (const l of labels) {
      const t = titles.get(l.id);
      // A caption is the title (cut short with …), the title with its count on the line
      // below, or the count first on one line.
      const text = l.text.replace(/…$/, "");
      const withCount = /^(.*?)…? [\d,]+ nodes?$/.exec(l.text);
      const ok = t && (t.startsWith(text) || (withCount && t.startsWith(withCount[1])) || /^[\d,]+ · /.test(text));
      assert.ok(ok, `${l.id} captioned “${l.text}”`);
    }
    await screenshot(page, "clusters.png");
  });

  it("a click opens the largest box into its sub-clusters, then one into its nodes; Back returns", async () => {
    const boxes = await drawn();
    const big = boxes.reduce((a, b) => (b.cluster.members > a.cluster.members ? b : a));
    assert.equal(big.cluster.opens, "clusters", `${big.id} holds ${big.cluster.members} > ${LIMIT}`);
    // The hover card says what it holds and what a click does.
    let at = await nodeOnPage(page, big.id);
    await page.mouse.move(at.x, at.y);
    const card = page.getByTestId("hover-card");
    await until(async () => (await card.isVisible()) && /Click to open its clusters/.test(await card.textContent()), { what: "the box's card" });
    await page.mouse.click(at.x, at.y);
    await until(() => page.evaluate((id) => window.provex.model.root === id && window.provex.model.mode === "clusters", big.id), { what: `${big.id} opened` });
    const subs = await drawn();
    assert.equal(subs.reduce((s, b) => s + b.cluster.members, 0), big.cluster.members, "its sub-clusters hold its nodes");
    assert.match(await page.getByTestId("notice-text").textContent(), /as clusters\. Click a box to open it\./);
    await page.waitForTimeout(500);
    await artifact(page, "clusters-opened.png");
    // A sub-cluster opens into its nodes.
    const leaf = subs[0];
    at = await nodeOnPage(page, leaf.id);
    await page.mouse.click(at.x, at.y);
    await until(() => page.evaluate(() => window.provex.model.mode === "members"), { what: "a cluster's nodes" });
    const members = await drawn();
    assert.equal(members.length, Math.min(leaf.cluster.members, LIMIT));
    const ids = new Set(whole.nodes.map((n) => n.id));
    assert.ok(members.every((m) => ids.has(m.id) && m.label !== "Cluster"), "real nodes of the graph");
    const total = leaf.cluster.members;
    assert.equal(await page.getByTestId("notice-text").textContent(),
      total > LIMIT ? `Showing the first ${LIMIT} of ${total} nodes of ${big.cluster.title} › ${leaf.cluster.title}.`
        : `Showing the nodes of ${big.cluster.title} › ${leaf.cluster.title}.`);
    await page.waitForTimeout(500);
    await artifact(page, "clusters-members.png");
    // Back, twice: the sub-clusters, then the top.
    await page.getByTestId("notice-back").click();
    await until(() => page.evaluate((id) => window.provex.model.mode === "clusters" && window.provex.model.root === id, big.id), { what: "back to the sub-clusters" });
    await page.getByTestId("notice-back").click();
    await until(() => page.evaluate(() => window.provex.model.mode === "clusters" && window.provex.model.root === null), { what: "back to the top" });
    // Zooming in on a box until it fills most of the canvas opens it too.
    await page.waitForTimeout(300);
    await page.evaluate((id) => {
      const c = window.provex.canvas;
      c.focus(id, 0);
      for (let i = 0; i < 12 && window.provex.model.root !== id; i++) c.zoomBy(1.5);
    }, big.id);
    await until(() => page.evaluate((id) => window.provex.model.root === id, big.id), { what: `${big.id} opened by zooming in` });
    assert.deepEqual(h.errors, [], "no page errors");
  });

  it("grows live while events stream in: counts rise in place, new boxes appear, none moves", async () => {
    const live = "council-live";
    const job = await h.api(`/api/graphs/${live}/demo`, { method: "POST", json: { pace_ms: 25 } });
    await until(async () => (await h.api(`/api/graphs/${live}/view?limit=${LIMIT}`)).mode === "clusters", { ms: 30_000, what: "the live graph above the limit" });
    await h.open(`/?graph=${live}&limit=${LIMIT}`);
    await until(() => page.evaluate(() => window.provex.model.mode === "clusters"), { what: "the live cluster view" });
    await until(async () => (await page.getByTestId("stream-state").getAttribute("data-state")) === "open", { what: "the cluster stream open" });
    const boxes = () => page.evaluate(() => Object.fromEntries([...window.provex.model.nodes.values()].map((n) => [n.id, { x: n.x, y: n.y, members: n.cluster.members }])));
    const first = await boxes();
    const firstTotal = Object.values(first).reduce((s, b) => s + b.members, 0);
    await until(async () => {
      const jobs = await h.api("/api/jobs");
      return jobs.find((j) => j.id === job.id)?.state === "done";
    }, { ms: 60_000, every: 250, what: "the paced demo finished" });
    const final = await h.api(`/api/graphs/${live}/view?limit=10000`);
    await until(async () => Object.values(await boxes()).reduce((s, b) => s + b.members, 0) === final.nodes.length,
      { ms: 20_000, what: "the boxes to hold every node streamed" });
    const now = await boxes();
    assert.ok(final.nodes.length > firstTotal, `grew from ${firstTotal} to ${final.nodes.length} nodes while open`);
    for (const [id, b] of Object.entries(first)) {
      assert.deepEqual([now[id].x, now[id].y], [b.x, b.y], `${id} stayed where it was drawn`);
    }
    // Each box holds what a fresh count of the finished graph gives it.
    const fresh = {};
    for (const n of final.nodes) {
      const agent = n.agent && n.agent !== "" ? n.agent : null;
      const key = ["Chunk", "Document", "Source"].includes(n.label) ? "sources"
        : agent ? `agent:${agent}` : n.context ? "tasks" : `kind:${n.label}`;
      fresh[key] = (fresh[key] ?? 0) + 1;
    }
    assert.deepEqual(Object.fromEntries(Object.entries(now).map(([id, b]) => [id, b.members]).filter(([, m]) => m > 0)), fresh);
    assert.ok(Object.keys(now).length >= Object.keys(first).length);
    await artifact(page, "clusters-live.png");
    assert.deepEqual(h.errors, [], "no page errors");
  });
});
