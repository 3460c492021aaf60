// The first view of the council demo (issue 16) at 1400×900 in Chromium: the drawing uses the
// canvas both ways, the claims' labels are drawn at a readable size, the whole graph fitted is
// packed to the canvas's shape rather than a thin strip, and the screenshots of the first view
// in light and dark go to docs/screenshots/. The claims are read from the API, never hard-coded.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { artifact, canvasBox, nodeOnPage, runDemo, screenshot, start, statusCounts, until } from "./harness.mjs";
import { decodePng, drawnExtent } from "./png.mjs";

const GRAPH = "council";
/** The bar: the first view's drawing spans at least this share of the canvas both ways. */
const MIN_EXTENT = 0.35;
/** Smallest label font (CSS px) that counts as readable without zooming. */
const READABLE_FONT = 10;

describe("the first view of the council demo", { timeout: 120_000 }, () => {
  let h;
  let page;
  let claims;
  /** The query of the first view request the page made (before its frame was built). */
  let firstAsk = null;

  before(async () => {
    h = await start();
    page = h.page;
    await runDemo(h, GRAPH, null);
    const rows = await h.api(`/api/graphs/${GRAPH}/query`, { method: "POST", json: { cypher: "MATCH (s:Statement) RETURN s.name" } });
    claims = new Set(rows.rows.map(([id]) => id));
    const stats = await h.api(`/api/graphs/${GRAPH}/stats`);
    page.on("request", (r) => {
      const u = new URL(r.url());
      if (u.pathname === `/api/graphs/${GRAPH}/view` && !firstAsk) firstAsk = u.searchParams;
    });
    await h.open(`/?graph=${GRAPH}`);
    await until(async () => (await statusCounts(page)).nodes === stats.nodes, { what: `${stats.nodes} nodes drawn` });
    await until(() => page.evaluate(() => window.provex.canvas.stats().frames > 0), { what: "a frame drawn" });
    await page.waitForTimeout(1200); // new-node glow settles
  });

  after(async () => {
    await h?.stop();
  });

  /** The canvas's drawing extent now, as shares of its width and height. */
  async function extent() {
    return drawnExtent(decodePng(await page.getByTestId("canvas").screenshot()));
  }

  it("opens on the claims, readable, with the drawing spanning the canvas both ways", async () => {
    assert.ok(claims.size > 0, "the demo has claims");
    const e = await extent();
    assert.ok(e.x >= MIN_EXTENT && e.y >= MIN_EXTENT,
      `the first view spans ${(e.x * 100).toFixed(0)} % × ${(e.y * 100).toFixed(0)} % of the canvas`);
    const labels = await page.evaluate(() => window.provex.canvas.drawnLabels());
    const claimLabels = labels.filter((l) => claims.has(l.id));
    assert.ok(claimLabels.length >= Math.min(3, claims.size),
      `claims' labels drawn: ${JSON.stringify(claimLabels)}`);
    for (const l of claimLabels) {
      assert.ok(l.font >= READABLE_FONT, `${l.id} is labelled at ${l.font} px`);
      assert.ok(l.text.replace("…", "").length >= 20, `${l.id} shows its text, not just its type: “${l.text}”`);
    }
    // The label is the claim's own text (its start), as the API has it.
    const view = await h.api(`/api/graphs/${GRAPH}/view`);
    const text = new Map(view.nodes.map((n) => [n.id, (n.text ?? "").replace(/\s+/g, " ").trim()]));
    for (const l of claimLabels) {
      assert.ok(text.get(l.id).startsWith(l.text.replace(/…$/, "")), `${l.id}: “${l.text}” is the start of its text`);
    }
    await screenshot(page, "first-view-light.png");
  });

  it("the view asked for as the page starts names the canvas's real size", async () => {
    // The page asks before it has built its frame, from the window's size (graph-loading.ts
    // `estimatedViewport`); a graph laid out for the first time is packed to this shape.
    assert.ok(firstAsk, "the page asked for the view");
    const real = await page.getByTestId("canvas").evaluate((c) => ({ w: c.clientWidth, h: c.clientHeight }));
    const asked = { w: Number(firstAsk.get("viewport_width")), h: Number(firstAsk.get("viewport_height")) };
    assert.ok(Math.abs(asked.w - real.w) <= 4 && Math.abs(asked.h - real.h) <= 4,
      `asked for ${asked.w}×${asked.h}, the canvas is ${real.w}×${real.h}`);
  });

  it("a hover card gives a claim's essentials: its text, author and signature status", async () => {
    const labels = await page.evaluate(() => window.provex.canvas.drawnLabels());
    const id = labels.find((l) => claims.has(l.id))?.id;
    assert.ok(id, "a claim is on screen");
    const at = await nodeOnPage(page, id);
    await page.mouse.move(at.x, at.y);
    const card = page.getByTestId("hover-card");
    await until(async () => (await card.isVisible()) && (await card.getAttribute("data-id")) === id, { what: `the hover card of ${id}` });
    const node = await h.api(`/api/graphs/${GRAPH}/node?id=${encodeURIComponent(id)}`);
    const text = await card.textContent();
    const status = node.properties.signature_status;
    assert.ok(status && text.includes(`signature ${status}`), `the card says the signature is ${status}: ${text}`);
    assert.ok(text.includes("Statement"), text);
    await page.mouse.move(2, 2);
    await until(async () => !(await card.isVisible()), { what: "the card gone when the pointer leaves" });
  });

  it("with nothing selected, Details lists every claim with its verdict and problems; a row opens its trail", async () => {
    const list = page.getByTestId("claims-overview");
    await until(async () => (await list.getByTestId("claim-row").count()) === claims.size, { what: `${claims.size} claim rows` });
    // What each row must say, from the API's trails: challenges, altered quotes, forged verifications.
    const rows = new Map();
    for (const row of await list.getByTestId("claim-row").all()) rows.set(await row.getAttribute("data-id"), await row.textContent());
    let challenged = 0, altered = 0, forged = 0;
    for (const id of claims) {
      const t = await h.api(`/api/graphs/${GRAPH}/trail?statement=${encodeURIComponent(id)}`);
      const text = rows.get(id);
      assert.ok(text, `a row for ${id}`);
      if (t.verifications.some((v) => v.counted && /CHALLENGED|DISPUTED|REJECTED|REFUTED/i.test(v.verdict))) {
        challenged += 1;
        assert.match(text, /✗ Challenged by /, `${id} is shown challenged: ${text}`);
      }
      if (t.evidence.some((e) => e.status === "mismatch")) {
        altered += 1;
        assert.match(text, /does not match the transcript/, `${id}'s altered quote is flagged: ${text}`);
      }
      if (t.verifications.some((v) => v.signature === "invalid")) {
        forged += 1;
        assert.match(text, /Forged verification: /, `${id}'s forged verification is flagged: ${text}`);
      }
      // Only a claim that stands verified is headlined so (never one whose signature or quote fails).
      assert.equal(/✓ Verified by /.test(text), t.standing === "verified", `${id} stands ${t.standing}: ${text}`);
    }
    assert.ok(challenged > 0 && altered > 0 && forged > 0, `the demo has each problem: ${challenged} / ${altered} / ${forged}`);
    // Problems first: the first row is flagged.
    const first = list.getByTestId("claim-row").first();
    assert.match(await first.textContent(), /⚠/);
    await artifact(page, "claims-overview.png");
    const id = await first.getAttribute("data-id");
    await first.click();
    await until(async () => (await page.getByTestId("trail").isVisible()) && (await page.getByTestId("trail").textContent()).length > 0,
      { what: "the Trail tab open on the claim" });
    await until(() => page.evaluate((want) => window.provex.app.selection.includes(want), id), { what: "the claim selected" });
    // Back to nothing selected: the list is there again.
    await page.keyboard.press("Escape");
    await page.getByRole("tab", { name: "Details" }).click();
    await until(() => list.isVisible(), { what: "the claims list again" });
  });

  it("the legend opens from its button and with L, and explains shapes, badges and edges", async () => {
    const toggle = page.getByTestId("legend-toggle");
    const legend = page.getByTestId("legend");
    assert.equal(await legend.isVisible(), false);
    await toggle.click();
    await until(() => legend.isVisible(), { what: "the legend shown" });
    assert.equal(await toggle.getAttribute("aria-expanded"), "true");
    const kinds = await legend.locator(".legend-row").evaluateAll((rs) => rs.map((r) => r.dataset.kind));
    for (const kind of ["shape", "badge", "edge"]) assert.ok(kinds.filter((k) => k === kind).length >= 4, `${kind} rows: ${kinds}`);
    // The badges of the claims on the canvas are all explained, each with its mark.
    const view = await h.api(`/api/graphs/${GRAPH}/view`);
    const marks = (await legend.locator('.legend-row[data-kind="badge"]').allTextContents()).map((t) => t.trim()[0]);
    assert.equal(new Set(marks).size, marks.length, `distinct marks: ${marks}`);
    const shapes = await legend.locator('.legend-row[data-kind="badge"] .badge').evaluateAll((bs) => bs.map((b) => b.dataset.shape));
    assert.equal(new Set(shapes).size, shapes.length, `distinct badge shapes: ${shapes}`);
    assert.ok(view.nodes.some((n) => n.status === "invalid") && marks.includes("✗"), "an invalid signature has its mark");
    await artifact(page, "legend.png");
    await page.keyboard.press("l");
    await until(async () => !(await legend.isVisible()), { what: "L closes the legend" });
    await page.keyboard.press("l");
    await until(() => legend.isVisible(), { what: "L opens the legend" });
    await toggle.click();
    assert.equal(await legend.isVisible(), false);
  });

  it("the minimap shows the whole drawing; a click there brings that place to the centre", async () => {
    const mini = page.getByTestId("minimap");
    assert.ok(await mini.isVisible(), "the minimap is shown");
    const view = await h.api(`/api/graphs/${GRAPH}/view`);
    // A node far from the first view's centre: the one furthest from the claims.
    const box = await canvasBox(page);
    const far = await page.evaluate((ids) => {
      const c = window.provex.canvas;
      let best = null, dist = -1;
      for (const id of ids) {
        const p = c.screenPosition(id);
        if (!p) continue;
        const d = Math.hypot(p.x, p.y);
        if (d > dist) { dist = d; best = id; }
      }
      return best;
    }, view.nodes.map((n) => n.id));
    const node = view.nodes.find((n) => n.id === far);
    const at = await page.evaluate(([x, y]) => window.provex.app.minimap.toMini(x, y), [node.x, node.y]);
    const mb = await mini.boundingBox();
    await page.mouse.click(mb.x + at.x, mb.y + at.y);
    // The click lands on whole pixels: within a minimap pixel of the node, in world units.
    const p = await page.evaluate((id) => window.provex.canvas.screenPosition(id), far);
    const perPixel = await page.evaluate(() => {
      const m = window.provex.app.minimap, a = m.toWorld(0, 0), b = m.toWorld(1, 0);
      return (b.x - a.x) * window.provex.canvas.camera.scale;
    });
    const off = Math.hypot(p.x - box.width / 2, p.y - box.height / 2);
    assert.ok(off <= perPixel + 2, `${far} is ${off.toFixed(1)} px from the centre (a minimap pixel is ${perPixel.toFixed(1)} px)`);
  });

  it("fitted whole, the graph is packed to the canvas's shape, not a strip", async () => {
    await page.evaluate(() => window.provex.canvas.fit());
    await page.waitForTimeout(200);
    const e = await extent();
    assert.ok(e.x >= MIN_EXTENT && e.y >= MIN_EXTENT,
      `the whole graph spans ${(e.x * 100).toFixed(0)} % × ${(e.y * 100).toFixed(0)} % of the canvas`);
    await artifact(page, "first-view-whole.png");
  });

  it("the first view in the dark theme", async () => {
    await page.getByTestId("theme-toggle").click();
    await page.waitForSelector('html[data-theme="dark"]');
    await page.reload();
    await page.waitForSelector('html[data-ready="true"]');
    await until(() => page.evaluate(() => window.provex.canvas.stats().frames > 0), { what: "a frame drawn" });
    await page.waitForTimeout(1200);
    const e = await extent();
    assert.ok(e.x >= MIN_EXTENT && e.y >= MIN_EXTENT, `dark first view spans ${(e.x * 100).toFixed(0)} % × ${(e.y * 100).toFixed(0)} %`);
    const labels = await page.evaluate(() => window.provex.canvas.drawnLabels());
    assert.ok(labels.some((l) => claims.has(l.id)), "claims are labelled in the dark theme too");
    await screenshot(page, "first-view-dark.png");
    assert.deepEqual(h.errors, [], "no page errors");
  });
});
