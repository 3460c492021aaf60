// The council demo in a real Chromium against `provex serve`: the graph drawn, a claim's
// trail read by clicking its node, search, PNG export and the dark theme. Expected values
// come from the API (and, for trails, from the `provex trail` CLI), never hard-coded.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import {
  artifact, canvasBox, errorToasts, nodeOnPage, runDemo, start, statusCounts, until,
} from "./harness.mjs";
import { decodePng, pixelStats, pngHeader } from "./png.mjs";

const GRAPH = "council";

describe("council demo in the browser", { timeout: 150_000 }, () => {
  let h;
  let page;
  /** API facts gathered once the demo has run. */
  let stats, trails;
  /** Set once (a) saw the graph drawn; the later steps need it. */
  let drawn = false;

  before(async () => {
    h = await start();
    page = h.page;
    // Written before anything views the graph, so the page gets the view the server
    // reads back from the store (as after `provex demo` then `provex serve`).
    await runDemo(h, GRAPH, null);
    stats = await h.api(`/api/graphs/${GRAPH}/stats`);
    const statements = await h.api(`/api/graphs/${GRAPH}/query`, { method: "POST", json: { cypher: "MATCH (s:Statement) RETURN s.name" } });
    trails = new Map(await Promise.all(statements.rows.map(async ([id]) =>
      [id, await h.api(`/api/graphs/${GRAPH}/trail?statement=${encodeURIComponent(id)}`)])));
  });

  after(async () => {
    await h?.stop();
  });

  it("the API trails agree with the CLI and show the demo's planted facts", async () => {
    assert.ok(trails.size > 0, "the demo has statements");
    for (const [id, t] of trails) {
      const cli = JSON.parse(await h.cli("trail", id, "-g", GRAPH, "--format", "json"));
      const sigs = (x) => x.verifications.map((v) => [v.verification_id, v.signature, v.verdict, v.counted]).sort();
      assert.deepEqual(sigs(t), sigs(cli), `verifications of ${id}`);
      assert.equal(t.signature, cli.signature, `statement signature of ${id}`);
      assert.equal(t.consensus.toFixed(2), cli.consensus.toFixed(2), `consensus of ${id}`);
      assert.equal(t.verified, cli.verified, `verified of ${id}`);
      assert.deepEqual(t.evidence.map((e) => e.status), cli.evidence.map((e) => e.status), `evidence of ${id}`);
    }
    const all = [...trails.values()];
    const vs = all.flatMap((t) => t.verifications);
    // Planted in src/demo/council.rs: validly signed verifications, one forged (invalid and
    // left out of consensus), a challenged claim below the threshold, a claim whose quote was
    // altered after signing (invalid signature, mismatching evidence).
    assert.ok(vs.some((v) => v.signature === "valid"), "some verification is validly signed");
    const forged = vs.filter((v) => v.signature === "invalid");
    assert.ok(forged.length > 0, "a forged verification");
    assert.ok(forged.every((v) => !v.counted), "invalid signatures are not counted");
    const challenged = all.filter((t) => t.verifications.some((v) => v.counted && /CHALLENGED/i.test(v.verdict)));
    assert.ok(challenged.length > 0, "a challenged claim");
    assert.ok(challenged.some((t) => !t.verified && t.consensus < t.threshold), "a challenged claim is not verified");
    assert.ok(all.some((t) => t.signature === "invalid" && t.evidence.some((e) => e.status === "mismatch")),
      "the altered claim: invalid signature, mismatching quote");
  });

  it("(a) draws the whole graph: status and canvas match the API's counts", async () => {
    await h.open(`/?graph=${GRAPH}`);
    assert.equal(await page.getByTestId("graph-picker").inputValue(), GRAPH);
    const counts = await until(async () => {
      const toasts = await errorToasts(page);
      if (toasts.length) throw Object.assign(new Error(`the page reports: ${toasts.join("\n")}`), { fatal: true });
      const c = await statusCounts(page);
      return c.nodes === stats.nodes && c.edges === stats.edges ? c : null;
    }, { ms: 15_000, what: `status "${stats.nodes} nodes · ${stats.edges} edges"` }).catch(async (e) => {
      throw new Error(`${e.message}\nstatus: ${(await statusCounts(page)).text}\npage errors: ${h.errors.join("\n")}`);
    });
    const view = await h.api(`/api/graphs/${GRAPH}/view`);
    assert.equal(counts.seq, view.seq, "the page is current to the server's view");
    assert.equal(view.nodes.length, stats.nodes);
    const cs = await until(() => page.evaluate(() => {
      const s = window.provex.canvas.stats();
      return s.frames > 0 ? s : null;
    }), { what: "a frame drawn" });
    assert.equal(cs.nodes, stats.nodes, "canvas draws every node");
    assert.equal(cs.edges, stats.edges, "canvas draws every edge");
    assert.equal(await page.getByTestId("stream-state").getAttribute("data-state"), "open");
    // Not blank: the canvas area has many colours and a fair share of non-background pixels.
    await page.waitForTimeout(300); // new-node glow settles
    const shot = await page.getByTestId("canvas").screenshot();
    const px = pixelStats(decodePng(shot));
    assert.ok(px.colours > 20, `canvas has ${px.colours} colours`);
    assert.ok(px.differing > 0.01, `${(px.differing * 100).toFixed(2)} % of the canvas is drawn`);
    await artifact(page, "council-graph.png");
    assert.deepEqual(await errorToasts(page), []);
    drawn = true;
  });

  /** The trail panel against the API's trail of `id`. */
  async function checkTrail(id) {
    const t = trails.get(id);
    const trail = page.getByTestId("trail");
    await until(async () => (await trail.getByTestId("claim").textContent()) === t.claim.text,
      { what: `the trail of ${id}` });
    assert.equal(await trail.getByTestId("statement-signature").getAttribute("data-signature"), t.signature);
    // Evidence: one row per quote, with its status.
    const evidence = await trail.getByTestId("evidence").evaluateAll((rows) => rows.map((r) => r.dataset.status));
    assert.deepEqual(evidence, t.evidence.map((e) => e.status));
    // Verifications (the panel orders them by time): the same signatures, verdicts, counted.
    const rows = await trail.getByTestId("verification").evaluateAll((rs) => rs.map((r) =>
      [r.dataset.id, r.dataset.signature, r.dataset.verdict, r.dataset.counted]));
    const expected = t.verifications.map((v) => [v.verification_id, v.signature, v.verdict, String(v.counted)]);
    assert.deepEqual(rows.sort(), expected.sort());
    // Consensus to two decimals, verified or not.
    const consensus = trail.getByTestId("consensus");
    assert.equal(await consensus.getAttribute("data-verified"), String(t.verified));
    assert.equal((await consensus.locator(".consensus-value").textContent())?.trim(), t.consensus.toFixed(2));
    // "✓ verified" only when the claim stands verified; a claim whose signature or quote
    // fails says its consensus reached the threshold but that it is not verified.
    const want = !t.verified ? /✗ not verified/ : t.standing === "verified" ? /✓ verified/ : /threshold reached, but not verified/;
    assert.match((await consensus.locator(".consensus-verdict").textContent()) ?? "", want);
    return t;
  }

  it("(b) clicking a Statement node on the canvas shows its trail", async (t) => {
    if (!drawn) return t.skip("the graph was not drawn: see (a)");
    // A claim that is not verified and has an uncounted (forged) verification, and one that is verified.
    const ids = [...trails.keys()];
    const unverified = ids.find((id) => !trails.get(id).verified && trails.get(id).verifications.some((v) => !v.counted));
    const verified = ids.find((id) => trails.get(id).verified);
    assert.ok(unverified && verified, "the demo has a verified and an unverified claim");
    for (const [i, id] of [unverified, verified].entries()) {
      await page.evaluate(() => window.provex.canvas.fit());
      let at = await nodeOnPage(page, id);
      assert.ok(at, `${id} is drawn`);
      // Zoom in about the node with the wheel (it stays under the pointer), then click it.
      // The pointer sits on whole pixels, up to 0.7 px from the node's centre; three notches
      // (about ×7) take that to about 5 px. Zooming about anything else moves it far more.
      const pointer = { x: Math.round(at.x), y: Math.round(at.y) };
      await page.mouse.move(pointer.x, pointer.y);
      for (let k = 0; k < 3; k++) await page.mouse.wheel(0, -300);
      await page.waitForTimeout(50);
      at = await nodeOnPage(page, id);
      const drift = Math.hypot(at.x - pointer.x, at.y - pointer.y);
      assert.ok(drift < 6, `the wheel zooms about the pointer (the node is ${drift.toFixed(1)} px from it)`);
      assert.ok(at.x > at.box.x && at.x < at.box.x + at.box.width && at.y > at.box.y && at.y < at.box.y + at.box.height,
        "the node is on screen");
      await page.mouse.click(at.x, at.y);
      await until(() => page.evaluate((nid) => window.provex.app.selection.join() === nid, id), { what: `selection of ${id}` });
      assert.equal(await page.getByTestId("tab-trail").getAttribute("aria-selected"), "true", "a claim opens the Trail tab");
      await checkTrail(id);
      // Evidence rows tell where in the transcript the quote is.
      const times = await page.getByTestId("trail").getByTestId("evidence-time").count();
      assert.ok(times > 0, "evidence rows show their transcript time");
      if (i === 0) await artifact(page, "council-trail.png");
    }
    assert.deepEqual(await errorToasts(page), []);
  });

  it("(d) search: results appear, Enter selects and centres the first hit", async (t) => {
    if (!drawn) return t.skip("the graph was not drawn: see (a)");
    const altered = [...trails.values()].find((t) => t.signature === "invalid");
    const word = altered.claim.text.split(/[^A-Za-z]+/).sort((a, b) => b.length - a.length)[0];
    const hits = await h.api(`/api/graphs/${GRAPH}/search?q=${encodeURIComponent(word)}&limit=20`);
    assert.ok(hits.some((x) => x.id === altered.statement_id), `searching "${word}" finds the claim`);
    await page.evaluate(() => window.provex.canvas.fit());
    const input = page.getByTestId("search-input");
    await input.click();
    await input.pressSequentially(word, { delay: 20 });
    const results = page.getByTestId("search-result");
    await until(async () => (await results.count()) === hits.length, { what: `${hits.length} search results` });
    const shown = await results.evaluateAll((rs) => rs.map((r) => r.dataset.id));
    assert.deepEqual(shown, hits.map((x) => x.id));
    await input.press("Enter");
    const first = hits[0].id;
    await until(() => page.evaluate((nid) => window.provex.app.selection.join() === nid, first), { what: `selection of ${first}` });
    // Centred on it (the camera animates for about half a second).
    const box = await canvasBox(page);
    await until(async () => {
      const p = await page.evaluate((nid) => window.provex.canvas.screenPosition(nid), first);
      return p && Math.abs(p.x - box.width / 2) < 2 && Math.abs(p.y - box.height / 2) < 2;
    }, { ms: 5000, what: `${first} centred on the canvas` });
    await page.getByTestId("tab-details").click();
    const details = page.getByTestId("details");
    await until(async () => (await details.locator(".node-id").textContent()) === first && (await details.locator("table.props").count()) === 1,
      { what: `details of ${first}` });
    // A result clicked: the altered claim, its invalid signature and the mismatching quote.
    const phrase = altered.claim.text.split(" ").slice(0, 4).join(" ");
    const phraseHits = await h.api(`/api/graphs/${GRAPH}/search?q=${encodeURIComponent(phrase)}&limit=20`);
    await input.click();
    await input.fill(phrase);
    await until(async () => (await results.evaluateAll((rs) => rs.map((r) => r.dataset.id))).join() === phraseHits.map((x) => x.id).join(),
      { what: `results for "${phrase}"` });
    await page.locator(`[data-testid="search-result"][data-id="${altered.statement_id}"]`).click();
    await until(() => page.evaluate((nid) => window.provex.app.selection.join() === nid, altered.statement_id), { what: "the claim selected" });
    await page.getByTestId("tab-trail").click();
    await checkTrail(altered.statement_id);
    assert.ok(await page.locator('[data-testid="evidence"][data-status="mismatch"] .reasons li').count() > 0,
      "a mismatching quote says why");
    assert.deepEqual(await errorToasts(page), []);
  });

  it("(d) search: the same query typed again after clearing the box shows its results again", async (t) => {
    if (!drawn) return t.skip("the graph was not drawn: see (a)");
    const input = page.getByTestId("search-input");
    const results = page.getByTestId("search-result");
    const word = "council";
    const hits = await h.api(`/api/graphs/${GRAPH}/search?q=${word}&limit=20`);
    assert.ok(hits.length > 0);
    await input.fill(word);
    await until(async () => (await results.count()) === hits.length, { what: `results for "${word}"` });
    await input.fill("");
    await until(async () => (await results.count()) === 0, { what: "no results for an empty box" });
    await input.fill(word);
    await until(async () => (await results.count()) === hits.length && (await page.locator(".search-results").isVisible()),
      { ms: 3000, what: `results for "${word}" shown again` });
    await input.press("Escape");
  });

  it("(e) exports the view as a valid PNG", async (t) => {
    if (!drawn) return t.skip("the graph was not drawn: see (a)");
    await page.evaluate(() => window.provex.canvas.fit());
    await page.getByTestId("export-menu").click();
    const [download] = await Promise.all([
      page.waitForEvent("download", { timeout: 15_000 }),
      page.getByTestId("export-png").click(),
    ]);
    assert.equal(download.suggestedFilename(), `provex-${GRAPH}.png`);
    const buf = await readFile(await download.path());
    const hd = pngHeader(buf);
    const size = await page.evaluate(() => {
      const c = document.querySelector("canvas.provex-graph-canvas");
      return { width: c.width, height: c.height };
    });
    assert.ok(hd.width > 0 && hd.height > 0);
    assert.deepEqual({ width: hd.width, height: hd.height }, size, "the PNG is the canvas at its pixel size");
    assert.ok(buf.length > 5_000, `PNG of ${buf.length} bytes`);
    const px = pixelStats(decodePng(buf));
    assert.ok(px.colours > 20 && px.differing > 0.01, `the PNG shows the graph (${px.colours} colours, ${(px.differing * 100).toFixed(2)} % drawn)`);
    assert.deepEqual(await errorToasts(page), []);
  });

  it("switches to the dark theme", async (t) => {
    if (!drawn) return t.skip("the graph was not drawn: see (a)");
    const light = pixelStats(decodePng(await page.getByTestId("canvas").screenshot())).background;
    await page.getByTestId("theme-toggle").click();
    await page.waitForSelector('html[data-theme="dark"]');
    await page.waitForTimeout(100);
    const dark = pixelStats(decodePng(await page.getByTestId("canvas").screenshot())).background;
    const lum = ([r, g, b]) => 0.2126 * r + 0.7152 * g + 0.0722 * b;
    assert.ok(lum(dark) < 80 && lum(light) > 180, `background ${light} → ${dark}`);
    // Show a claim and its trail in the dark screenshot (select() centres and zooms in).
    const id = [...trails.keys()].find((k) => trails.get(k).verified);
    await page.evaluate((nid) => window.provex.select(nid), id);
    await page.getByTestId("tab-trail").click();
    await page.waitForTimeout(700);
    await artifact(page, "council-dark.png");
    assert.deepEqual(h.errors, [], "no page errors");
  });
});
