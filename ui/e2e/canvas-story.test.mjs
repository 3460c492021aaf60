// The canvas tells the council demo's story by itself, in a real Chromium against `provex
// serve`: every claim's whole text is readable in the first view, verifications are named by
// verdict and verifier, runtime events by what they did. Screenshots go to docs/screenshots/.
// Expected values come from the API, never hard-coded.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { canvasBox, runDemo, screenshot as shot, start, statusCounts, until } from "./harness.mjs";

const GRAPH = "council";
/** Smallest label font (CSS px) that counts as readable. */
const READABLE_FONT = 10;

const squash = (s) => (s ?? "").replace(/\s+/g, " ").trim();

describe("the canvas tells the story by itself", { timeout: 240_000 }, () => {
  let h;
  let page;
  /** The view as the API has it: node id → view node. */
  let nodes;
  /** Every statement's trail. */
  let trails;

  before(async () => {
    h = await start();
    page = h.page;
    await runDemo(h, GRAPH, null);
    const stats = await h.api(`/api/graphs/${GRAPH}/stats`);
    // The page first: the view it asks for is laid out for its canvas.
    await h.open(`/?graph=${GRAPH}`);
    await until(async () => (await statusCounts(page)).nodes === stats.nodes, { what: `${stats.nodes} nodes drawn` });
    const view = await h.api(`/api/graphs/${GRAPH}/view`);
    nodes = new Map(view.nodes.map((n) => [n.id, n]));
    const statements = view.nodes.filter((n) => n.label === "Statement").map((n) => n.id);
    trails = await Promise.all(statements.map((id) => h.api(`/api/graphs/${GRAPH}/trail?statement=${encodeURIComponent(id)}`)));
    await until(() => page.evaluate(() => window.provex.canvas.stats().frames > 0), { what: "a frame drawn" });
    await page.waitForTimeout(1200); // new-node glow settles
  });

  after(async () => {
    await h?.stop();
  });

  const labels = () => page.evaluate(() => window.provex.canvas.drawnLabels());

  it("the first view shows every claim's whole text, wrapped to three lines at most, at a readable size", async () => {
    const claims = [...nodes.values()].filter((n) => n.label === "Statement");
    // The claims whose node is on the canvas: each is labelled, whole.
    const box = await canvasBox(page);
    const inView = [];
    for (const c of claims) {
      const p = await page.evaluate((id) => window.provex.canvas.screenPosition(id), c.id);
      if (p && p.x >= 0 && p.y >= 0 && p.x <= box.width && p.y <= box.height) inView.push(c.id);
    }
    assert.ok(inView.length >= Math.ceil(claims.length / 2), `the first view shows ${inView.length} of ${claims.length} claims`);
    const drawn = (await labels()).filter((l) => inView.includes(l.id));
    assert.equal(drawn.length, inView.length, `every claim in view is labelled: ${drawn.map((l) => l.text).join(" | ")}`);
    for (const l of drawn) {
      assert.ok(l.font >= READABLE_FONT, `${l.id} at ${l.font} px`);
      assert.ok(l.whole && !l.text.includes("…"), `${l.id} is cut: “${l.text}”`);
      assert.equal(l.text, squash(nodes.get(l.id).text), `${l.id} shows its whole text`);
      assert.ok(l.lines <= 3, `${l.id} on ${l.lines} lines`);
    }
    await shot(page, "canvas-first-view-light.png");
  });

  it("a verification is named by its verdict and verifier, never just “Verification”", async () => {
    const verifications = new Map();
    for (const t of trails) for (const v of t.verifications) verifications.set(v.verification_id, v);
    const drawn = (await labels()).filter((l) => nodes.get(l.id)?.label === "Verification");
    assert.ok(drawn.length >= 3, `verifications labelled in the first view: ${drawn.length}`);
    for (const l of drawn) {
      const v = verifications.get(l.id);
      assert.ok(v, `${l.id} is a verification of a claim`);
      assert.notEqual(l.text, "Verification");
      const negative = /CHALLENGED|DISPUTED|REJECTED|REFUTED/i.test(v.verdict);
      const positive = /VALIDATED|VERIFIED|CONFIRMED/i.test(v.verdict);
      if (v.signature === "invalid") assert.match(l.text, /^✗ Forged: /, `${l.id}: ${l.text}`);
      else if (negative) assert.match(l.text, /^✗ Challenged · /, `${l.id} (${v.verdict}): ${l.text}`);
      else if (positive) assert.match(l.text, /^✓ Validated · /, `${l.id} (${v.verdict}): ${l.text}`);
      // The verifier by name, as its agent node has it.
      const agent = nodes.get(v.agent);
      const name = squash(agent?.text) || v.agent;
      assert.ok(l.text.endsWith(`· ${name}`), `${l.id} names ${name}: ${l.text}`);
    }
  });

  it("runtime events read as what they did: a message's words, a tool, a model, a task", async () => {
    const want = { Message: /^Message: \S+ \S+/, ToolCall: /^Tool · \S{4,}/, LlmCall: /^Model call · \S+/, A2ATask: /^Task · \S+/ };
    for (const [kind, pattern] of Object.entries(want)) {
      const n = [...nodes.values()].find((x) => x.label === kind);
      assert.ok(n, `the demo has a ${kind}`);
      await page.evaluate((id) => window.provex.select(id), n.id);
      const l = await until(async () => (await labels()).find((x) => x.id === n.id), { what: `${kind} ${n.id} labelled` });
      assert.match(l.text, pattern, `${kind} ${n.id}: “${l.text}”`);
      assert.ok(l.font >= READABLE_FONT);
    }
    await shot(page, "canvas-runtime-labels-light.png");
    await page.keyboard.press("Escape");
  });

  it("the wheel zooms in small, even steps; a hover card goes when the view moves", async () => {
    await page.keyboard.press("f");
    const box = await canvasBox(page);
    const cx = box.x + box.width / 2, cy = box.y + box.height / 2;
    const scale = () => page.evaluate(() => {
      const a = window.provex.canvas.screenPosition([...window.provex.model.nodes.keys()][0]);
      const b = window.provex.canvas.screenPosition([...window.provex.model.nodes.keys()][1]);
      return Math.hypot(a.x - b.x, a.y - b.y);
    });
    await page.mouse.move(cx, cy);
    const before = await scale();
    const steps = [];
    for (let k = 0; k < 5; k++) {
      const was = await scale();
      await page.mouse.wheel(0, 100);
      await page.waitForTimeout(120);
      steps.push((await scale()) / was);
    }
    // Five notches out keep more than half the size, each notch the same step.
    assert.ok((await scale()) / before > 0.5, `five notches: ${steps}`);
    for (const s of steps) assert.ok(Math.abs(s - steps[0]) < 0.01, `even steps: ${steps}`);
    // A hover card, then a wheel notch: the card is gone.
    const claim = [...nodes.values()].find((n) => n.label === "Statement");
    await page.evaluate((id) => window.provex.canvas.focus(id, 0), claim.id);
    await page.waitForTimeout(300);
    const at = await page.evaluate((id) => window.provex.canvas.screenPosition(id), claim.id);
    await page.mouse.move(box.x + at.x, box.y + at.y);
    const card = page.getByTestId("hover-card");
    await until(() => card.isVisible(), { what: "the hover card" });
    await page.mouse.wheel(0, -100);
    await until(async () => !(await card.isVisible()), { what: "the card gone when the view moved" });
  });

  it("Tidy up ends with the whole new layout fitted", async () => {
    await page.evaluate((id) => window.provex.canvas.focus(id, 0), [...nodes.keys()][0]);
    await page.getByRole("button", { name: "Tidy up" }).click();
    await until(() => page.getByTestId("own-layout-undo").isVisible(), { what: "the tidy-up applied" });
    await page.waitForTimeout(1200);
    const box = await canvasBox(page);
    const off = await page.evaluate(({ w, hgt }) => {
      const out = [];
      for (const id of window.provex.model.nodes.keys()) {
        const p = window.provex.canvas.screenPosition(id);
        if (!p || p.x < -1 || p.y < -1 || p.x > w + 1 || p.y > hgt + 1) out.push(id);
      }
      return out;
    }, { w: box.width, hgt: box.height });
    assert.deepEqual(off, [], "every node on the canvas after Tidy up");
    await page.getByTestId("own-layout-undo").click();
  });

  it("the canvas is reachable with Tab, Enter selects a node and the arrows walk from it", async () => {
    await page.keyboard.press("Escape");
    await page.evaluate(() => document.activeElement?.blur());
    let reached = false;
    for (let k = 0; k < 60 && !reached; k++) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate(() => document.activeElement?.classList.contains("provex-graph-canvas") ?? false);
    }
    assert.ok(reached, "Tab reaches the graph canvas");
    await page.keyboard.press("Enter");
    const first = await until(() => page.evaluate(() => window.provex.app.selection.at(-1)), { what: "Enter selects a node" });
    let moved = null;
    for (const key of ["ArrowDown", "ArrowUp", "ArrowRight", "ArrowLeft"]) {
      await page.keyboard.press(key);
      await page.waitForTimeout(300);
      const now = await page.evaluate(() => window.provex.app.selection.at(-1));
      if (now && now !== first) { moved = now; break; }
    }
    assert.ok(moved, `an arrow key walks from ${first} along an edge`);
    await page.keyboard.press("Escape");
  });

  it("screenshots: the whole graph fitted, and the first view in the dark theme", async () => {
    await page.keyboard.press("f");
    await page.waitForTimeout(800);
    await shot(page, "canvas-whole-graph-light.png");
    await h.open(`/?graph=${GRAPH}`);
    await page.emulateMedia({ colorScheme: "dark" });
    await page.evaluate(() => window.provex.app.setTheme("dark"));
    await page.waitForTimeout(1200);
    await shot(page, "canvas-first-view-dark.png");
    await page.evaluate(() => window.provex.app.setTheme("light"));
  });
});
