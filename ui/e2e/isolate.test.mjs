// "Show on graph" in a real Chromium against `provex serve`, on the council demo: the zoning
// chain and a claim's trail are each drawn alone as their own DAG, in layers (several nodes
// side by side where it branches: the claims the chain cites, a claim's quotes and
// verifications), fitted below the subject's bar with every label drawn; the status bar
// counts what is shown ("12 of 288 nodes shown"); the minimap maps only what is shown and
// sits where it covers none of it. Screenshots (light and dark) go to docs/screenshots/.
// Expected values come from the API, never hard-coded.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { canvasBox, openDrawn, overlaps, runDemo, screenshot as shot, start, statusCounts, until, viewNodes } from "./harness.mjs";

const GRAPH = "council";
const SESSION = "urn:trustgraph:agent:council-zoning-question";

describe("Show on graph draws what was asked for as its own DAG", { timeout: 240_000 }, () => {
  let h;
  let page;
  let nodes;
  let stats;

  before(async () => {
    h = await start();
    page = h.page;
    await runDemo(h, GRAPH, null);
    stats = await openDrawn(h, GRAPH);
    nodes = await viewNodes(h, GRAPH);
  });

  after(async () => {
    await h?.stop();
  });

  /** The members' centres on the page (CSS px), and the canvas's box. */
  async function boxes(ids) {
    const box = await canvasBox(page);
    const pos = await page.evaluate((list) => list.map((id) => [id, window.provex.canvas.screenPosition(id)]), ids);
    return { box, at: new Map(pos.filter(([, p]) => p).map(([id, p]) => [id, { x: box.x + p.x, y: box.y + p.y }])) };
  }

  /** The camera's scale: CSS px per layout px. */
  async function cameraScale() {
    return page.evaluate(() => window.provex.canvas.stats().scale);
  }

  /** Checks the isolated drawing of `members`, whose layers are `layersWanted` (each a list
   *  of ids that must share a layer, in reading order); returns the page boxes. */
  async function checkIsolated(what, members, layersWanted) {
    await until(() => page.getByTestId("subject-bar").isVisible(), { what: "the subject bar" });
    await page.waitForTimeout(1400); // the move and the camera settle, the minimap rests
    const bar = page.getByTestId("subject-bar");
    const direction = await bar.getAttribute("data-direction");
    assert.ok(direction === "down" || direction === "right", `direction ${direction}`);
    const { box, at } = await boxes(members);
    const scale = await cameraScale();
    assert.ok(scale > 0, "the camera's scale");
    const rect = (id) => {
      const n = nodes.get(id), p = at.get(id);
      return { id, x: p.x - (n.w * scale) / 2, y: p.y - (n.h * scale) / 2, width: n.w * scale, height: n.h * scale };
    };
    assert.deepEqual([...at.keys()].sort(), [...members].sort(), `${what}: every member drawn`);
    const rects = members.map(rect);
    const barBox = await bar.boundingBox();
    for (const r of rects) {
      assert.ok(r.x >= box.x - 1 && r.y >= box.y - 1 && r.x + r.width <= box.x + box.width + 1 && r.y + r.height <= box.y + box.height + 1, `${what}: ${r.id} whole on the canvas`);
      assert.ok(!overlaps(r, barBox), `${what}: ${r.id} under the subject bar`);
    }
    for (let i = 0; i < rects.length; i++) {
      for (let j = i + 1; j < rects.length; j++) assert.ok(!overlaps(rects[i], rects[j]), `${what}: ${rects[i].id} overlaps ${rects[j].id}`);
    }
    // Layers: the members of one share the coordinate along the layers and stand side by
    // side across; each layer comes after the one before.
    const along = (id) => (direction === "down" ? at.get(id).y : at.get(id).x);
    const across = (id) => (direction === "down" ? at.get(id).x : at.get(id).y);
    let last = -Infinity;
    for (const layer of layersWanted) {
      const u = layer.map(along);
      assert.ok(Math.max(...u) - Math.min(...u) < 1, `${what}: ${layer.join(", ")} in one layer (${u.join(", ")})`);
      assert.equal(new Set(layer.map((id) => Math.round(across(id)))).size, layer.length, `${what}: ${layer.join(", ")} side by side`);
      assert.ok(u[0] > last, `${what}: ${layer[0]} after the layer before it`);
      last = u[0];
    }
    // Fitted: the drawing fills the canvas below the bar one way or the other.
    const minX = Math.min(...rects.map((r) => r.x)), maxX = Math.max(...rects.map((r) => r.x + r.width));
    const minY = Math.min(...rects.map((r) => r.y)), maxY = Math.max(...rects.map((r) => r.y + r.height));
    const below = box.y + box.height - (barBox.y + barBox.height);
    assert.ok((maxX - minX) / box.width > 0.6 || (maxY - minY) / below > 0.6, `${what}: fitted (${maxX - minX} × ${maxY - minY} in ${box.width} × ${below})`);
    // Only the members are drawn, each labelled.
    const labels = await page.evaluate(() => window.provex.canvas.drawnLabels());
    assert.deepEqual(labels.map((l) => l.id).filter((id) => !members.includes(id)), [], `${what}: only the members drawn`);
    assert.deepEqual(members.filter((id) => !labels.some((l) => l.id === id)), [], `${what}: every member labelled`);
    // The status bar counts what is shown.
    const status = (await page.getByTestId("status").textContent()).trim();
    assert.match(status, new RegExp(`^${members.length} of ${stats.nodes.toLocaleString("en")} nodes shown · \\d+ of [\\d,]+ edges · seq \\d+$`), status);
    // The minimap maps only what is shown, and covers none of it.
    const mapped = await page.evaluate(() => window.provex.app.minimap.countIn({ minX: -1e12, minY: -1e12, maxX: 1e12, maxY: 1e12 }));
    assert.equal(mapped, members.length, `${what}: the minimap maps the ${members.length} nodes shown`);
    const state = await page.getByTestId("minimap-dock").getAttribute("data-state");
    if (state === "open") {
      const mini = await page.getByTestId("minimap").boundingBox();
      assert.deepEqual(rects.filter((r) => overlaps(r, mini)).map((r) => r.id), [], `${what}: the minimap covers shown nodes`);
    } else {
      assert.equal(state, "no-room", `${what}: the minimap folded only for want of room`);
    }
    return rects;
  }

  async function backToWhole() {
    await page.getByTestId("subject-back").click();
    await until(async () => (await statusCounts(page)).nodes === stats.nodes, { what: "the whole graph counted again" });
    await until(() => page.evaluate(() => window.provex.app.minimap.countIn({ minX: -1e12, minY: -1e12, maxX: 1e12, maxY: 1e12 })), { what: "the minimap back" });
    assert.equal(await page.evaluate(() => window.provex.app.minimap.countIn({ minX: -1e12, minY: -1e12, maxX: 1e12, maxY: 1e12 })), stats.nodes);
  }

  it("the zoning chain: question → steps → the claims it cites, side by side in one layer", async () => {
    const sessions = await h.api(`/api/graphs/${GRAPH}/sessions`);
    const zoning = sessions.find((s) => s.id === SESSION);
    assert.ok(zoning, "the council demo has the zoning session");
    const chain = await h.api(`/api/graphs/${GRAPH}/reasoning?id=${encodeURIComponent(zoning.answer)}`);
    const steps = chain.chain.map((s) => s.id).filter((id) => nodes.has(id));
    const cited = [...new Set(chain.links.map((l) => l.id))].filter((id) => nodes.has(id) && !steps.includes(id));
    assert.ok(steps.length >= 3 && cited.length >= 2, `a chain of ${steps.length} steps citing ${cited.length} claims`);
    await page.getByTestId("tab-reasoning").click();
    await page.locator(`[data-testid="session-row"][data-session="${SESSION}"]`).click();
    await until(async () => (await page.getByTestId("reasoning-step").count()) === chain.chain.length, { what: "the chain's steps" });
    await page.getByTestId("reasoning-show-node").click();
    // The zoning chain is a line of steps, each derived from the one before: a layer each,
    // then the claims the last steps cite, together.
    await checkIsolated("zoning chain", [...steps, ...cited], [...steps.map((s) => [s]), cited]);
    await shot(page, "show-on-graph-zoning.png");
    await page.evaluate(() => window.provex.app.setTheme("dark"));
    await page.waitForTimeout(600);
    await shot(page, "show-on-graph-zoning-dark.png");
    await page.evaluate(() => window.provex.app.setTheme("light"));
    await backToWhole();
  });

  it("a claim's trail: maker → claim → its quotes and verifications side by side → their verifiers", async () => {
    const claim = [...nodes.values()].find((n) => n.label === "Statement" && /parks budget amendment/.test(n.text ?? ""));
    assert.ok(claim, "the council demo has the parks budget claim");
    const trail = await h.api(`/api/graphs/${GRAPH}/trail?statement=${encodeURIComponent(claim.id)}`);
    const third = [...new Set([...trail.evidence.map((e) => e.chunk_id), ...trail.verifications.map((v) => v.verification_id)])].filter((id) => nodes.has(id));
    const verifiers = [...new Set(trail.verifications.map((v) => v.agent))].filter((id) => nodes.has(id) && id !== trail.agent);
    assert.ok(third.length >= 3, `quotes and verifications: ${third}`);
    await page.evaluate((id) => window.provex.select(id), claim.id);
    await page.getByTestId("tab-trail").click();
    await page.getByTestId("trail-show-on-graph").click();
    await checkIsolated("trail", [trail.agent, claim.id, ...third, ...verifiers], [[trail.agent], [claim.id], third, verifiers]);
    await shot(page, "show-on-graph-trail.png");
    await page.evaluate(() => window.provex.app.setTheme("dark"));
    await page.waitForTimeout(600);
    await shot(page, "show-on-graph-trail-dark.png");
    await page.evaluate(() => window.provex.app.setTheme("light"));
    await backToWhole();
  });
});
