// What a stranger hit in the council demo, in a real Chromium against `provex serve`: an
// address naming a graph that does not exist, the Ingest menu's default target and formats,
// a tidy-up that stays the viewer's own until saved, search by verdicts and problems (and the
// arrow keys in it), Selection as JSON with nothing selected, a write in the Console, the
// Timeline's order, the status bar's "seq", and the walkthrough's count of reasoning steps.
// Expected values come from the API, never hard-coded.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ROOT, artifact, errorToasts, runDemo, start, until } from "./harness.mjs";

const GRAPH = "council";

describe("what a stranger hit", { timeout: 240_000 }, () => {
  let h;
  let page;
  /** Every statement's trail, from the API. */
  let trails;

  before(async () => {
    h = await start();
    page = h.page;
    await runDemo(h, GRAPH, null);
    const statements = await h.api(`/api/graphs/${GRAPH}/query`, { method: "POST", json: { cypher: "MATCH (s:Statement) RETURN s.name" } });
    trails = await Promise.all(statements.rows.map(([id]) => h.api(`/api/graphs/${GRAPH}/trail?statement=${encodeURIComponent(id)}`)));
  });

  after(async () => {
    await h?.stop();
  });

  const infoToasts = () => page.$$eval('[data-testid="toast"].toast-info', (ts) => ts.map((t) => t.textContent));

  it("an address naming a graph that does not exist says so, offers the graphs, and opens none", async () => {
    const graphs = await h.api("/api/graphs");
    assert.ok(graphs.includes(GRAPH) && !graphs.includes("doesnotexist"));
    await h.open("/?graph=doesnotexist");
    const missing = page.getByTestId("missing-graph");
    await until(() => missing.isVisible(), { what: "the missing-graph notice" });
    assert.equal(await page.getByTestId("missing-graph-title").textContent(), "No graph named doesnotexist");
    const offered = await page.getByTestId("missing-graph-open").evaluateAll((bs) => bs.map((b) => b.dataset.graph));
    assert.deepEqual(offered.sort(), [...graphs].sort());
    // Nothing else was opened, and the address still says what was asked for.
    assert.equal(new URL(page.url()).searchParams.get("graph"), "doesnotexist");
    assert.equal(await page.evaluate(() => window.provex.app.graph), null);
    assert.equal(await page.evaluate(() => window.provex.model.nodes.size), 0);
    assert.notEqual(await page.getByTestId("graph-picker").inputValue(), GRAPH);
    await artifact(page, "missing-graph.png");
    // One click opens a graph from the list.
    await page.locator(`[data-testid="missing-graph-open"][data-graph="${GRAPH}"]`).click();
    await until(async () => (await page.evaluate(() => window.provex.model.nodes.size)) > 0, { what: "council opened" });
    assert.ok(!(await missing.isVisible()));
    assert.equal(new URL(page.url()).searchParams.get("graph"), GRAPH);
  });

  it("search finds verifications, quotes and claims by verdict and problem, and the arrow keys walk the results", async () => {
    await h.open(`/?graph=${GRAPH}`);
    const forged = trails.flatMap((t) => t.verifications).filter((v) => v.signature === "invalid").map((v) => v.verification_id);
    const altered = trails.filter((t) => t.signature === "invalid" && t.evidence.some((e) => e.status === "mismatch")).map((t) => t.statement_id);
    const challenged = trails.filter((t) => t.verifications.some((v) => v.counted && v.verdict === "CHALLENGED")).map((t) => t.statement_id);
    assert.ok(forged.length > 0 && altered.length > 0 && challenged.length > 0);
    const input = page.getByTestId("search-input");
    const results = page.getByTestId("search-result");
    async function search(q) {
      await input.fill("");
      await input.fill(q);
      const hits = await h.api(`/api/graphs/${GRAPH}/search?q=${encodeURIComponent(q)}&limit=20`);
      await until(async () => {
        const ids = await results.evaluateAll((bs) => bs.map((b) => b.dataset.id));
        return ids.length === hits.length && ids.every((id, i) => id === hits[i].id) && (await page.locator(".search-results").isVisible());
      }, { what: `the results for “${q}”` });
      return hits;
    }
    const forgedHits = await search("forged");
    assert.deepEqual(forgedHits.slice(0, forged.length).map((x) => x.id).sort(), [...forged].sort(), "“forged” finds the forged verifications first");
    const alteredHits = await search("altered");
    assert.ok(altered.every((id) => alteredHits.some((x) => x.id === id)), "“altered” finds the altered claim");
    assert.ok(alteredHits.some((x) => x.label === "Chunk"), "and its quote");
    const mismatchHits = await search("mismatch");
    assert.ok(altered.every((id) => mismatchHits.some((x) => x.id === id)) && mismatchHits.some((x) => x.label === "Chunk"));
    const invalidHits = await search("invalid");
    assert.ok([...forged, ...altered].every((id) => invalidHits.some((x) => x.id === id)));
    const challengedHits = await search("challenged");
    const first = challengedHits.slice(0, challenged.length + 3);
    assert.ok(challenged.every((id) => first.some((x) => x.id === id)), "the challenged claims come first");
    assert.ok(first.some((x) => x.label === "Verification"), "with the challenges");
    assert.ok(challengedHits.slice(0, challenged.length).every((x) => x.label !== "Message"), "not raw messages");
    await artifact(page, "search-challenged.png");

    // ArrowDown moves through the results; the box keeps the focus and the list stays open.
    await input.focus();
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("ArrowDown");
    await page.waitForTimeout(400);
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), "search-input");
    assert.ok(await page.locator(".search-results").isVisible(), "the results stay open");
    const selected = await page.$$eval('[data-testid="search-option"]', (os) => os.map((o) => o.getAttribute("aria-selected")));
    assert.deepEqual(selected.slice(0, 3), ["false", "true", "false"]);
    assert.equal(await input.getAttribute("aria-activedescendant"), "provex-search-hit-1");
    await page.keyboard.press("ArrowUp");
    assert.equal(await input.getAttribute("aria-activedescendant"), "provex-search-hit-0");
    await page.keyboard.press("ArrowDown");
    await page.keyboard.press("Enter");
    await until(async () => (await page.evaluate(() => window.provex.app.selection.at(-1))) === challengedHits[1].id,
      { what: "Enter selects the result the arrows are on" });
  });

  it("Selection as JSON with nothing selected says so", async () => {
    await h.open(`/?graph=${GRAPH}`);
    await page.evaluate(() => window.provex.app.clearSelection());
    await page.getByTestId("export-menu").click();
    await page.getByTestId("export-selection").click();
    await until(async () => (await infoToasts()).some((t) => /nothing is selected/i.test(t)), { what: "a toast that nothing is selected" });
  });

  it("Export ▸ Audit bundle writes every claim, or the selected ones, signed with the key named", async () => {
    const keyFile = join(h.dataDir, "auditor-key.json");
    await h.cli("keys", "generate", "--id", "urn:key:auditor", "--agent", "urn:agent:auditor", "--out", keyFile);
    const bundleOf = async () => {
      await page.getByTestId("export-menu").click();
      const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-bundle").click()]);
      return JSON.parse(await readFile(await download.path(), "utf8"));
    };
    await page.evaluate(() => window.provex.app.clearSelection());
    const all = await bundleOf();
    assert.deepEqual([...all["provex:statements"]].sort(), trails.map((t) => t.statement_id).sort(), "every claim");
    assert.ok(!JSON.stringify(all).includes("urn:key:auditor"), "unsigned without a key");
    const one = trails[0].statement_id;
    await page.evaluate((id) => window.provex.select(id), one);
    await page.getByTestId("export-menu").click();
    await page.getByTestId("bundle-key").fill(keyFile);
    await page.getByTestId("export-menu").click();
    const signed = await bundleOf();
    assert.deepEqual(signed["provex:statements"], [one], "the selected claim");
    assert.ok(JSON.stringify(signed).includes("urn:key:auditor"), "signed with the key named");
    assert.deepEqual(await errorToasts(page), []);
  });

  it("a write in the Console is answered in words", async () => {
    await page.getByTestId("tab-console").click();
    await page.getByTestId("console-input").fill("CREATE (n:Planted {name: 'x'}) RETURN n");
    await page.getByTestId("console-run").click();
    const error = page.locator('[data-testid="console-result"] .console-error');
    await until(() => error.isVisible(), { what: "the console's error" });
    assert.equal(await error.getAttribute("data-code"), "write_refused");
    const text = (await error.textContent()) ?? "";
    assert.match(text, /would change the graph/);
    assert.doesNotMatch(text, /RO_QUERY/);
    const planted = await h.api(`/api/graphs/${GRAPH}/query`, { method: "POST", json: { cypher: "MATCH (n:Planted) RETURN count(n)" } });
    assert.equal(planted.rows[0][0], 0);
    // The page's own error report (a toast) is expected here; clear it for the next steps.
    await page.evaluate(() => document.querySelectorAll('[data-testid="toast"]').forEach((t) => t.remove()));
    h.errors.length = 0;
  });

  it("the Timeline lists records in the order they happened", async () => {
    const times = await h.api(`/api/graphs/${GRAPH}/query`, { method: "POST", json: {
      cypher: "MATCH (n) WHERE n.name IN ['message_processing:m-30', 'message_processing:m-31'] RETURN n.name, n.`prov:startTime`",
    } });
    const at = Object.fromEntries(times.rows);
    assert.ok(at["message_processing:m-30"] < at["message_processing:m-31"], "m-30 happened first");
    const loaded = await page.evaluate(() => window.provex.model.byArrival().map((n) => [n.id, n.arrival]));
    const arrival = Object.fromEntries(loaded);
    assert.ok(arrival["message:m-31"] < arrival["message:m-30"], "m-31 was loaded first");
    await page.getByTestId("tab-timeline").click();
    // To where m-31 arrived: the records around it are listed.
    await page.evaluate((a) => window.provex.app.setTimeline(a), arrival["message:m-31"]);
    await page.getByTestId("tab-details").click();
    await page.getByTestId("tab-timeline").click();
    const rows = page.locator('[data-testid="timeline-events"] .event-button');
    const order = await until(async () => {
      const ids = await rows.evaluateAll((bs) => bs.map((b) => b.dataset.id));
      return ids.includes("message:m-30") && ids.includes("message:m-31") && (await rows.first().getAttribute("data-time")) ? ids : null;
    }, { what: "both messages listed with times" });
    assert.ok(order.indexOf("message:m-30") < order.indexOf("message:m-31"), "m-30 before m-31");
    const stamps = (await rows.evaluateAll((bs) => bs.map((b) => b.dataset.time))).filter(Boolean).map(Number);
    assert.deepEqual(stamps, [...stamps].sort((a, b) => a - b), "rows in time order");
    await page.getByTestId("timeline-live").click();
  });

  it("the status bar says what “seq” is", async () => {
    const seq = page.getByTestId("status-seq");
    const title = (await seq.getAttribute("title")) ?? "";
    const n = await page.evaluate(() => window.provex.model.seq);
    assert.equal(await seq.textContent(), `seq ${n}`);
    assert.match(title, new RegExp(`^Update ${n}: this view holds every change the server has streamed`));
  });

  it("the walkthrough counts the reasoning's steps as the chain's header does", async () => {
    await page.getByTestId("tab-walkthrough").click();
    const caption = page.getByTestId("walkthrough-caption");
    await until(async () => /research question/.test((await caption.textContent()) ?? ""), { ms: 20_000, what: "the walkthrough built" });
    const total = Number(/(\d+) steps/.exec(await caption.textContent())[1]);
    for (let i = 0; i < total; i++) {
      if (await page.getByTestId("walkthrough-next").isDisabled()) break;
      await page.getByTestId("walkthrough-next").click();
    }
    await until(async () => /A researcher asks/.test((await caption.textContent()) ?? ""), { what: "the research step" });
    const header = page.getByTestId("reasoning-step-count");
    await until(() => header.isVisible(), { what: "the chain's header" });
    const n = Number(await header.getAttribute("data-steps"));
    assert.ok(n > 0);
    assert.match((await header.textContent()) ?? "", new RegExp(`${n} steps? after the question`));
    assert.match((await caption.textContent()) ?? "", new RegExp(`takes ${n} steps? after the question`));
    await page.keyboard.press("Escape");
  });

  it("the Ingest menu makes a new graph named after the file unless merging is chosen, and offers every format", async () => {
    await h.open(`/?graph=${GRAPH}`);
    // The formats the server reads, as its refusal of an unknown one lists them.
    const res = await h.api(`/api/graphs/${GRAPH}/upload?name=x.jsonl&format=no-such-format`, { method: "POST", raw: true, headers: { "Content-Type": "application/octet-stream" } });
    const refusal = (await res.json()).message;
    const served = /use (.+) or auto/.exec(refusal)[1].split(/, /);
    assert.ok(served.length >= 5, refusal);
    await page.getByTestId("ingest-menu").click();
    const offered = await page.getByTestId("ingest-format").evaluate((s) => [...s.options].map((o) => o.value).filter(Boolean));
    assert.deepEqual(offered.sort(), [...served].sort());
    assert.equal(await page.getByTestId("ingest-graph").inputValue(), "", "no graph is filled in: a new one by default");
    assert.equal(await page.getByTestId("ingest-merge").isChecked(), false);
    const councilBefore = await h.api(`/api/graphs/${GRAPH}/stats`);

    // A TrustGraph stream goes into a new graph named after it.
    await page.getByTestId("upload-input").setInputFiles(join(ROOT, "examples/council/council-explain.jsonl"));
    await until(async () => (await page.evaluate(() => window.provex.app.graph)) === "council-explain", { what: "the new graph opened" });
    assert.ok((await h.api("/api/graphs")).includes("council-explain"));
    assert.deepEqual(await h.api(`/api/graphs/${GRAPH}/stats`), councilBefore, "the open graph was not written to");

    // Merging into the open graph, when chosen.
    await page.getByTestId("ingest-menu").click();
    await page.getByTestId("ingest-merge").check();
    assert.equal(await page.getByTestId("ingest-graph").inputValue(), "council-explain");
    assert.ok(await page.getByTestId("ingest-graph").isDisabled());
    const before = await h.api("/api/graphs/council-explain/stats");
    await page.getByTestId("upload-input").setInputFiles(join(ROOT, "examples/a2a-run.jsonl"));
    await until(async () => (await h.api("/api/graphs/council-explain/stats")).nodes > before.nodes, { what: "the file merged into the open graph" });
    assert.ok(!(await h.api("/api/graphs")).includes("a2a-run"), "no new graph");
    assert.deepEqual(await errorToasts(page), []);
  });

  it("Tidy up is the viewer's own until saved for everyone, and can be undone", async () => {
    await h.open(`/?graph=${GRAPH}`);
    const served = async () => {
      const v = await h.api(`/api/graphs/${GRAPH}/view`);
      return { seq: v.seq, at: Object.fromEntries(v.nodes.map((n) => [n.id, [n.x, n.y]])) };
    };
    const drawn = () => page.evaluate(() => Object.fromEntries([...window.provex.model.nodes.values()].map((n) => [n.id, [n.x, n.y]])));
    const before = await served();
    assert.deepEqual(await drawn(), before.at);
    await page.getByTestId("tidy-button").click();
    const bar = page.getByTestId("own-layout");
    await until(() => bar.isVisible(), { what: "the own-layout bar" });
    const mine = await drawn();
    assert.notDeepEqual(mine, before.at, "the tidy-up moved nodes on this page");
    assert.deepEqual(await served(), before, "the layout the server serves is unchanged");
    await artifact(page, "own-layout.png");
    // Another viewer still gets the shared layout; a reload here shows this viewer's own.
    const otherContext = await h.browser.newContext({ viewport: { width: 1400, height: 900 } });
    const other = await otherContext.newPage();
    await other.goto(h.url(`/?graph=${GRAPH}`));
    await other.waitForSelector('html[data-ready="true"]');
    assert.deepEqual(await other.evaluate(() => Object.fromEntries([...window.provex.model.nodes.values()].map((n) => [n.id, [n.x, n.y]]))), before.at);
    await otherContext.close();
    await h.open(`/?graph=${GRAPH}`);
    await until(() => bar.isVisible(), { what: "the own layout kept over a reload" });
    assert.deepEqual(await drawn(), mine);
    // Undo: back to the shared layout, and nothing kept.
    await page.getByTestId("own-layout-undo").click();
    assert.deepEqual(await drawn(), before.at);
    assert.ok(!(await bar.isVisible()));
    assert.equal(await page.evaluate((g) => localStorage.getItem(`provex.layout.${g}`), GRAPH), null);
    // Tidy up again and save it for everyone: the server serves this layout now.
    await page.getByTestId("tidy-button").click();
    await until(() => bar.isVisible(), { what: "the own-layout bar again" });
    assert.deepEqual(await drawn(), mine, "the same tidy-up");
    await page.getByTestId("own-layout-save").click();
    await until(async () => JSON.stringify((await served()).at) === JSON.stringify(mine), { what: "the served layout saved" });
    assert.ok(!(await bar.isVisible()));
    assert.deepEqual(await drawn(), mine);
    assert.deepEqual(await errorToasts(page), []);
  });
});
