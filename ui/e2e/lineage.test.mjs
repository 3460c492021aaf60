// The prompt-lineage view in Chromium (issue 13 §4): the example week
// (examples/lineage/summarise-prompt.jsonl: ten versions with a fork, a merge and a revert,
// and a second lineage of one prompt) ingested, the Lineages tab opened, and the version
// tree, the comparison of two versions and the replay checked against what the API's
// `lineage` and `lineage_compare` return, not hard-coded. A prompt uploaded while the view
// is open appears in it without a reload; a Prompt node clicked on the graph opens its own.

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import { ROOT, artifact, nodeOnPage, start, statusCounts, until } from "./harness.mjs";
import { join } from "node:path";

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const EXAMPLE = join(ROOT, "examples/lineage/summarise-prompt.jsonl");
const GRAPH = "lineage";
const SESSION = "9311309e-6cef-5d4b-9d03-789d1c4d255d";

describe("the prompt-lineage view", { timeout: 180_000 }, () => {
  let h;
  let page;
  let summaries;
  let main;
  let lineage;

  const byVersion = (v) => lineage.prompts.find((p) => p.version === v);
  /** The boxes drawn: version, head, branch, shown. */
  const boxes = () => page.$$eval('[data-testid="lineage-box"]', (bs) => bs.map((b) => ({
    id: b.dataset.id, version: b.dataset.version, head: b.dataset.head === "true", branch: b.dataset.branch, hidden: b.hidden,
    text: b.querySelector(".lineage-version").textContent, current: b.classList.contains("current"),
  })));

  before(async () => {
    h = await start();
    page = h.page;
    await h.cli("ingest", EXAMPLE, "--graph", GRAPH);
    summaries = await h.api(`/api/graphs/${GRAPH}/lineages`);
    main = summaries.find((l) => l.prompts > 1);
    lineage = await h.api(`/api/graphs/${GRAPH}/lineage?id=${main.root}`);
    await h.open(`/?graph=${GRAPH}`);
    const stats = await h.api(`/api/graphs/${GRAPH}/stats`);
    await until(async () => (await statusCounts(page)).nodes === stats.nodes, { what: "the graph drawn" });
  });

  after(async () => {
    await h?.stop();
  });

  it("lists the graph's lineages in their tab, as the API counts them", async () => {
    assert.equal(summaries.length, 2);
    assert.deepEqual(summaries.map((l) => l.heads).reduce((a, b) => a + b), 2, "two heads overall");
    assert.equal(main.prompts, 10);
    const tab = page.getByTestId("tab-lineages");
    await until(() => tab.isVisible(), { what: "the Lineages tab offered" });
    await tab.click();
    const rows = page.getByTestId("lineage-row");
    await until(async () => (await rows.count()) === summaries.length, { what: "a row per lineage" });
    for (const l of summaries) {
      const text = await page.locator(`[data-testid="lineage-row"][data-lineage="${l.lineage_id}"]`).textContent();
      assert.match(text, new RegExp(`${l.prompts} versions? · ${l.heads} heads? · `));
    }
  });

  it("draws the version tree the API returns: every version, one head, the fork's branch, a merge of two parents", async () => {
    await page.locator(`[data-testid="lineage-row"][data-lineage="${main.lineage_id}"]`).click();
    await until(async () => (await boxes()).length === lineage.prompts.length, { what: "a box per version" });
    const drawn = await boxes();
    assert.deepEqual(drawn.map((b) => b.version).sort(), lineage.prompts.map((p) => p.version).sort());
    assert.deepEqual(drawn.map((b) => b.text), drawn.map((b) => `v${b.version}`));
    for (const p of lineage.prompts) {
      const b = drawn.find((x) => x.id === p.id);
      assert.equal(b.head, p.is_head, `v${p.version} head`);
      assert.equal(b.branch, p.branch ?? "", `v${p.version} branch`);
    }
    assert.deepEqual(drawn.filter((b) => b.head).map((b) => b.version), ["2.1.0"], "one head in this lineage");
    assert.ok(drawn.some((b) => b.branch === "experiment/bullets"));
    // Every evolution labelled with its type and confidence.
    const labels = await page.$$eval('[data-testid="lineage-edge-label"]', (ls) => ls.map((l) => ({
      child: l.dataset.child, parent: l.dataset.parent, text: l.textContent, visible: l.getBoundingClientRect().width > 0,
    })));
    assert.equal(labels.length, lineage.evolutions.length);
    for (const e of lineage.evolutions) {
      const l = labels.find((x) => x.child === e.child && x.parent === e.parent);
      assert.ok(l?.visible, `an edge ${e.parent} → ${e.child}`);
      assert.equal(l.text, `${e.evolution_type} ${e.confidence.toFixed(2)}`);
    }
    const merge = lineage.evolutions.filter((e) => e.evolution_type === "merges");
    assert.equal(new Set(merge.map((e) => e.child)).size, 1);
    assert.equal(merge.length, 2, "the merge has two parents");
    assert.equal(labels.filter((l) => l.child === merge[0].child).length, 2, "two lines into the merge");
    // No two boxes overlap, and every label is clear of every box.
    const rects = await page.$$eval('[data-testid="lineage-box"], [data-testid="lineage-edge-label"]', (els) => els.map((el) => {
      const r = el.getBoundingClientRect();
      return { box: el.dataset.testid === "lineage-box", name: el.dataset.version ?? el.textContent, x0: r.left, y0: r.top, x1: r.right, y1: r.bottom };
    }));
    for (const [i, a] of rects.entries()) {
      for (const b of rects.slice(i + 1)) {
        if (!a.box && !b.box) continue;
        const overlap = a.x0 < b.x1 - 1 && b.x0 < a.x1 - 1 && a.y0 < b.y1 - 1 && b.y0 < a.y1 - 1;
        assert.ok(!overlap, `${a.name} overlaps ${b.name}`);
      }
    }
    await artifact(page, "lineage-tree.png");
  });

  it("compares two versions with the API's numbers and word diff", async () => {
    const a = byVersion("1.0.2"), b = byVersion("2.0.0");
    await page.locator(`[data-testid="lineage-box"][data-version="2.0.0"]`).click();
    await page.locator(`[data-testid="lineage-box"][data-version="1.0.2"]`).click({ modifiers: ["Shift"] });
    const card = page.getByTestId("lineage-compare");
    await until(() => card.isVisible(), { what: "the comparison" });
    await until(() => page.getByTestId("lineage-confidence").isVisible(), { what: "the comparison's numbers" });
    const api = await h.api(`/api/graphs/${GRAPH}/lineage/compare?a=${a.id}&b=${b.id}`);
    const cell = async (id) => ({ text: await page.getByTestId(id).textContent(), value: await page.getByTestId(id).getAttribute("data-value") });
    assert.deepEqual(await cell("lineage-jaccard"), { text: api.jaccard.toFixed(3), value: String(api.jaccard) });
    assert.deepEqual(await cell("lineage-edit-ratio"), { text: api.edit_ratio.toFixed(3), value: String(api.edit_ratio) });
    assert.deepEqual(await cell("lineage-confidence"), { text: api.confidence.toFixed(3), value: String(api.confidence) });
    if (api.semantic === null) {
      assert.equal((await cell("lineage-semantic")).text, "unavailable");
      assert.equal(await page.getByTestId("lineage-note").textContent(), api.note);
    } else {
      assert.equal((await cell("lineage-semantic")).text, api.semantic.toFixed(3));
    }
    assert.equal(await page.getByTestId("lineage-suggested").textContent(), api.suggested_type);
    // A on the left with the deletions, B on the right with the insertions; each reads as its text.
    const side = (id) => page.getByTestId(id).evaluate((el) => ({
      text: el.querySelector(".lineage-diff-text").textContent,
      del: [...el.querySelectorAll("del")].map((d) => d.textContent), ins: [...el.querySelectorAll("ins")].map((d) => d.textContent),
    }));
    const left = await side("lineage-diff-left"), right = await side("lineage-diff-right");
    assert.equal(left.text, a.content);
    assert.equal(right.text, b.content);
    assert.deepEqual(left.del.join(""), api.diff.filter((o) => o.op === "delete").map((o) => o.text).join(""));
    assert.deepEqual(right.ins.join(""), api.diff.filter((o) => o.op === "insert").map((o) => o.text).join(""));
    assert.deepEqual([left.ins, right.del], [[], []]);
    assert.ok(left.del.length > 0 && right.ins.length > 0);
    const struck = await page.getByTestId("lineage-diff-left").locator("del").first().evaluate((d) => getComputedStyle(d).textDecorationLine);
    assert.equal(struck, "line-through");
    await artifact(page, "lineage-compare.png");
    // The keyboard picks too: Enter on a version, then the "Compare with" choice.
    await page.locator(`[data-testid="lineage-box"][data-version="1.0.0"]`).focus();
    await page.keyboard.press("Enter");
    await until(() => page.getByTestId("lineage-version").isVisible(), { what: "the version card" });
    await page.getByTestId("lineage-compare-with").selectOption(byVersion("1.0.1").id);
    await page.getByTestId("lineage-compare-button").focus();
    await page.keyboard.press("Enter");
    await until(async () => (await page.locator(".lineage-card-title").first().textContent()) === "A v1.0.0 → B v1.0.1", { what: "v1.0.0 compared with v1.0.1" });
  });

  it("replays the lineage's creation one version at a time, and stops", async () => {
    const order = [...lineage.prompts].sort((x, y) => Date.parse(x.timestamp) - Date.parse(y.timestamp)).map((p) => p.version);
    await page.getByTestId("lineage-replay").click();
    const step = page.getByTestId("lineage-step");
    const seen = [];
    // The step counter and the boxes read at once, so a step is never checked half-drawn.
    const now = () => page.evaluate(() => ({
      text: document.querySelector('[data-testid="lineage-step"]').textContent,
      shown: [...document.querySelectorAll('[data-testid="lineage-box"]')].filter((b) => !b.hidden)
        .map((b) => ({ version: b.dataset.version, current: b.classList.contains("current") })),
    }));
    await until(async () => {
      const { text, shown } = await now();
      const m = /^Step (\d+) of (\d+)$/.exec(text);
      if (!m) return false;
      const n = Number(m[1]);
      if (seen[seen.length - 1] !== n) {
        assert.equal(Number(m[2]), order.length);
        assert.deepEqual(shown.map((b) => b.version).sort(), order.slice(0, n).sort(), `step ${n} shows the first ${n} versions`);
        assert.deepEqual(shown.filter((b) => b.current).map((b) => b.version), [order[n - 1]]);
        seen.push(n);
        if (n === 4) await artifact(page, "lineage-replay.png");
      }
      return n >= 5;
    }, { ms: 20_000, every: 60, what: "the replay to step 5" });
    assert.ok(seen.length >= 3 && seen.every((n, i) => i === 0 || n > seen[i - 1]), `steps advance: ${seen}`);
    assert.match(await page.getByTestId("lineage-caption").textContent(), /^v\d+\.\d+\.\d+/);
    await page.getByTestId("lineage-replay").click();
    assert.equal(await step.textContent(), "Replay stopped");
    assert.equal((await boxes()).filter((b) => !b.hidden).length, lineage.prompts.length);
  });

  it("grows live: a prompt uploaded while the view is open appears as the new head", async () => {
    const parent = byVersion("2.1.0");
    const record = {
      prompt_content: `${parent.content} End with a one-line summary of the whole meeting.`,
      session_id: SESSION, parent_prompt_id: parent.id, evolution_type: "refines", timestamp: "2026-11-09T10:00:00Z",
    };
    const res = await fetch(`${h.base}/api/graphs/${GRAPH}/upload?name=one-more.jsonl`, { method: "POST", headers: h.auth, body: `${JSON.stringify(record)}\n` });
    assert.equal(res.status, 200, await res.text());
    await until(async () => (await boxes()).length === lineage.prompts.length + 1, { ms: 20_000, what: "the new version drawn" });
    const now = await h.api(`/api/graphs/${GRAPH}/lineage?id=${main.root}`);
    const added = now.prompts.find((p) => !lineage.prompts.some((q) => q.id === p.id));
    const drawn = await boxes();
    const box = drawn.find((b) => b.id === added.id);
    assert.equal(box.version, added.version);
    assert.deepEqual(drawn.filter((b) => b.head).map((b) => b.version), now.prompts.filter((p) => p.is_head).map((p) => p.version));
    const label = await page.locator(`[data-testid="lineage-edge-label"][data-child="${added.id}"]`).textContent();
    const e = now.evolutions.find((x) => x.child === added.id);
    assert.equal(label, `refines ${e.confidence.toFixed(2)}`);
    assert.match(await page.getByTestId("lineage-summary").textContent(), new RegExp(`^${now.prompts.length} versions`));
    await page.waitForTimeout(300);
    await artifact(page, "lineage-live.png");
    lineage = now;
  });

  it("a step unlikely related to its parent leads its label with that doubt, drawn dotted", async () => {
    const parent = byVersion("2.0.2");
    const record = {
      prompt_content: "Translate this poem into French verse.", session_id: SESSION, parent_prompt_id: parent.id,
      evolution_type: "derives", timestamp: "2026-11-09T11:00:00Z",
    };
    const res = await fetch(`${h.base}/api/graphs/${GRAPH}/upload?name=stray.jsonl`, { method: "POST", headers: h.auth, body: `${JSON.stringify(record)}\n` });
    assert.equal(res.status, 200, await res.text());
    await until(async () => (await boxes()).length === lineage.prompts.length + 1, { ms: 20_000, what: "the stray version drawn" });
    const now = await h.api(`/api/graphs/${GRAPH}/lineage?id=${main.root}`);
    const stray = now.prompts.find((p) => !lineage.prompts.some((q) => q.id === p.id));
    const e = now.evolutions.find((x) => x.child === stray.id);
    assert.ok(e.confidence < 0.3, `confidence ${e.confidence}`);
    const label = page.locator(`[data-testid="lineage-edge-label"][data-child="${stray.id}"]`);
    assert.equal(await label.textContent(), `⚠ unlikely related · derives ${e.confidence.toFixed(2)}`);
    assert.equal(await label.getAttribute("data-band"), "minimal");
    assert.match(await label.getAttribute("class"), /\bdoubtful\b/);
    assert.match(await page.locator(`path.lineage-line[data-child="${stray.id}"]`).getAttribute("class"), /\bdoubtful\b/);
    // Every other step is at 0.5 or above and says nothing first.
    for (const other of now.evolutions.filter((x) => x.child !== stray.id)) {
      const t = await page.locator(`[data-testid="lineage-edge-label"][data-child="${other.child}"][data-parent="${other.parent}"]`).textContent();
      assert.equal(t, `${other.evolution_type} ${other.confidence.toFixed(2)}`);
    }
    await label.scrollIntoViewIfNeeded();
    await page.waitForTimeout(300);
    await artifact(page, "lineage-doubtful.png");
    lineage = now;
  });

  it("is readable by a screen reader, in both themes (axe: no serious or critical violation)", async () => {
    await page.addScriptTag({ path: AXE });
    const check = () => page.evaluate(async () => {
      const r = await window.axe.run('[data-testid="lineage-view"]', { resultTypes: ["violations"] });
      return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
    });
    // With two versions compared (the diff's colours) and the list tab beside it.
    await page.locator('[data-testid="lineage-box"][data-version="2.0.1"]').click();
    await page.locator('[data-testid="lineage-box"][data-version="2.0.2"]').click({ modifiers: ["Shift"] });
    await until(() => page.getByTestId("lineage-confidence").isVisible(), { what: "the comparison" });
    assert.deepEqual(await check(), [], "light theme");
    await page.getByTestId("theme-toggle").click();
    await page.waitForSelector('html[data-theme="dark"]');
    await page.waitForTimeout(300);
    assert.deepEqual(await check(), [], "dark theme");
    await artifact(page, "lineage-dark.png");
    await page.getByTestId("theme-toggle").click();
    await page.waitForSelector('html[data-theme="light"]');
  });

  it("Esc closes it; a Prompt node clicked on the graph opens its own lineage", async () => {
    await page.locator("body").press("Escape");
    await until(async () => !(await page.getByTestId("lineage-view").isVisible()), { what: "the view closed" });
    const single = summaries.find((l) => l.prompts === 1);
    await page.evaluate(() => window.provex.app.fitView());
    await page.waitForTimeout(600);
    const at = await nodeOnPage(page, `prompt:${single.root}`);
    assert.ok(at, "the single prompt is drawn");
    await page.mouse.click(at.x, at.y);
    await until(async () => (await boxes()).length === 1, { what: "its lineage of one" });
    const [b] = await boxes();
    assert.deepEqual([b.id, b.head], [single.root, true]);
    const own = await h.api(`/api/graphs/${GRAPH}/lineage?id=${single.root}`);
    assert.equal(await page.getByTestId("lineage-text").textContent(), own.prompts[0].content);
    await artifact(page, "lineage-single.png");
    assert.deepEqual(h.errors, [], "no page errors");
  });
});
