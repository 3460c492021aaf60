// Comparing two runs in the explorer (issue 15 §4): the council demo's files ingested as
// run 1, and as run 2 by an agent version that drops a verification and alters a quote.
// Compare… marks on the drawing what differs, with the counts the API's diff gives, steps
// through the list, and shows the dropped verification marked "−" on the base run. What the
// runs mean for claims comes first (the dropped verification, the consensus it leaves, the
// altered claim's signature, evidence and quote), and the list goes claims first.

import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import { ROOT, artifact, start, statusCounts, until } from "./harness.mjs";

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const EVENTS = join(ROOT, "examples/council/council-events.jsonl");
const A2AP = join(ROOT, "examples/council/council-a2ap.jsonl");
/** The verification run 2 drops, and the statement whose quote it alters (tests/it/diff.rs). */
const DROPPED = "urn:uuid:69f2faa4-5c65-5a6b-9321-954263edec84";
const ALTERED = "urn:uuid:0c8bfa34-581b-5add-8255-6ebee869c70e";

describe("compare two runs", { timeout: 180_000 }, () => {
  let h;
  let page;
  let dir;
  let diff;

  before(async () => {
    h = await start();
    page = h.page;
    dir = await mkdtemp(join(tmpdir(), "provex-compare-"));
    const lines = (await readFile(A2AP, "utf8")).split("\n").filter((l) => l.trim());
    const run2 = lines.filter((l) => JSON.parse(l)["@id"] !== DROPPED)
      .map((l) => (JSON.parse(l)["@id"] === ALTERED ? l.replace("one point two million", "one point five million") : l));
    assert.equal(run2.length, lines.length - 1, "one verification dropped");
    assert.ok(run2.some((l) => l.includes("one point five million")), "one quote altered");
    const altered = join(dir, "council-a2ap.jsonl");
    await writeFile(altered, `${run2.join("\n")}\n`);
    await h.cli("ingest", EVENTS, A2AP, "--graph", "run1");
    await h.cli("ingest", EVENTS, altered, "--graph", "run2");
    diff = await h.api(`/api/diff?a=run1&b=run2`);
    await h.open("/?graph=run2");
    const stats = await h.api("/api/graphs/run2/stats");
    await until(async () => (await statusCounts(page)).nodes === stats.nodes, { what: "run 2 drawn" });
  });

  after(async () => {
    await h?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("marks what run 2 changes, with the API's counts, and steps through the list", async () => {
    assert.deepEqual(diff.nodes.removed.map((n) => n.name), [DROPPED]);
    assert.ok(diff.nodes.changed.some((n) => n.name === ALTERED), "the altered statement changed");
    await page.getByTestId("compare-button").click();
    const panel = page.getByTestId("compare");
    await until(() => panel.isVisible(), { what: "the compare panel" });
    await page.getByTestId("compare-other").selectOption("run1");
    await page.getByTestId("compare-run").click();
    const summary = page.getByTestId("compare-summary");
    await until(async () => /against/.test((await summary.textContent()) ?? ""), { what: "the summary" });
    const c = (k, ch) => diff[k][ch].length;
    assert.equal(await summary.textContent(),
      `run2 against run1: nodes +${c("nodes", "added")} added · −${c("nodes", "removed")} removed · ~${c("nodes", "changed")} changed; `
      + `edges +${c("edges", "added")} added · −${c("edges", "removed")} removed · ~${c("edges", "changed")} changed.`);
    const total = ["nodes", "edges"].reduce((s, k) => s + c(k, "added") + c(k, "removed") + c(k, "changed"), 0);
    assert.equal(await page.getByTestId("compare-list").locator("li").count(), total);
    // The claims summary comes first, before the counts and the list.
    const claims = page.getByTestId("compare-claims");
    assert.ok(await claims.isVisible(), "the claims summary is shown");
    const first = await page.locator('[data-testid="compare"] .compare-body > *').first().getAttribute("data-testid");
    assert.equal(first, "compare-claims", "the claims summary is the first thing in the panel");
    const lines = await claims.locator("li").evaluateAll((ls) => ls.map((l) => ({ what: l.dataset.what, text: l.textContent })));
    const line = (what, re) => lines.find((l) => l.what === what && re.test(l.text));
    assert.ok(line("verification-removed", /Verification removed: VALIDATED by urn:agent:gpt-5/), JSON.stringify(lines));
    assert.ok(line("consensus", /0\.915 → 0\.93/), JSON.stringify(lines));
    assert.ok(line("standing", /Standing Verified → Invalid signature/), JSON.stringify(lines));
    assert.ok(line("signature", /valid → invalid/), JSON.stringify(lines));
    assert.ok(line("quote", /two million.*→.*five million/), JSON.stringify(lines));
    assert.equal(lines.length, diff.summary.verifications_removed.length + diff.summary.changes.length);
    // The altered claim's lines are under its text, which shows it on the drawing.
    const altered = claims.locator(`[data-claim="${ALTERED}"]`);
    assert.match(await altered.locator(".claim-of").textContent(), /Finance Director projected a \$1\.2 million parks shortfall/);
    assert.deepEqual(await altered.locator("li").evaluateAll((ls) => ls.map((l) => l.dataset.what)), ["standing", "signature", "evidence", "quote", "evidence"]);
    await altered.locator(".claim-of").click();
    await until(() => page.evaluate((id) => window.provex.app.selection.includes(id), ALTERED), { what: "the altered claim shown" });
    // The list goes by importance: the claims' changes first, not alphabetical.
    const listed = await page.getByTestId("compare-list").locator("li").evaluateAll((ls) => ls.map((l) => l.textContent));
    assert.match(listed[0], /^~Changed node Statement/, listed.slice(0, 5).join(" | "));
    const claimsAt = listed.flatMap((t, i) => (/ node (Statement|Verification)/.test(t) ? [i] : []));
    const othersAt = listed.flatMap((t, i) => (/ node (?!Statement|Verification)/.test(t) ? [i] : []));
    assert.ok(othersAt.length > 0 && Math.max(...claimsAt) < Math.min(...othersAt), `claims and verifications before other nodes: ${listed.join(" | ")}`);
    await artifact(page, "compare-claims-light.png");
    await page.getByTestId("theme-toggle").click();
    await page.waitForSelector('html[data-theme="dark"]');
    await artifact(page, "compare-claims-dark.png");
    await page.getByTestId("theme-toggle").click();
    await page.waitForSelector('html[data-theme="light"]');
    // The altered statement is marked changed on the drawing, and the drawing is dimmed around it.
    const marks = page.getByTestId("diff-marks");
    await page.evaluate((id) => window.provex.canvas.focus(id, 0), ALTERED);
    await until(async () => (await marks.locator(`[data-id="${ALTERED}"]`).count()) === 1, { what: "the altered claim marked" });
    assert.equal(await marks.locator(`[data-id="${ALTERED}"]`).getAttribute("data-change"), "changed");
    assert.equal(await marks.locator(`[data-id="${ALTERED}"]`).textContent(), "~");
    assert.equal(await marks.locator(`[data-id="${DROPPED}"]`).count(), 0, "the dropped verification is not in run 2");
    // Step to the altered statement: selected, with its quote before and after.
    const items = await page.getByTestId("compare-list").locator("li").evaluateAll((ls) => ls.map((l) => l.textContent));
    const at = items.findIndex((t) => t.includes(ALTERED) && t.startsWith("~Changed node"));
    assert.ok(at >= 0, `the altered statement is listed: ${items.join(" | ")}`);
    for (let i = 0; i <= at; i++) await page.getByTestId("compare-next").click();
    await until(async () => (await page.getByTestId("compare-position").textContent()) === `${at + 1} of ${total}`, { what: "stepped" });
    await until(() => page.evaluate((id) => window.provex.app.selection.includes(id), ALTERED), { what: "the altered claim selected" });
    const detail = await page.getByTestId("compare-detail").textContent();
    assert.match(detail, /evidence_status/);
    assert.match(detail, /mismatch/);
    await artifact(page, "compare-run2.png");
    // Accessible in both themes: no serious or critical axe violation in the panel.
    await page.addScriptTag({ path: AXE });
    for (const theme of ["light", "dark"]) {
      if ((await page.evaluate(() => document.documentElement.dataset.theme)) !== theme) {
        await page.getByTestId("theme-toggle").click();
        await page.waitForSelector(`html[data-theme="${theme}"]`);
      }
      const found = await page.evaluate(async () => (await window.axe.run('[data-testid="compare"]', { resultTypes: ["violations"] }))
        .violations.filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.impact} ${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`));
      assert.deepEqual(found, [], `compare panel, ${theme}`);
    }
    await artifact(page, "compare-run2-dark.png");
  });

  it("opening run 1 marks the dropped verification as removed", async () => {
    await page.getByTestId("compare-swap").click();
    await until(async () => (await page.evaluate(() => window.provex.app.graph)) === "run1", { what: "run 1 open" });
    const stats = await h.api("/api/graphs/run1/stats");
    await until(async () => (await statusCounts(page)).nodes === stats.nodes, { what: "run 1 drawn" });
    await page.evaluate((id) => window.provex.canvas.focus(id, 0), DROPPED);
    const mark = page.getByTestId("diff-marks").locator(`[data-id="${DROPPED}"]`);
    await until(async () => (await mark.count()) === 1, { what: "the dropped verification marked" });
    assert.equal(await mark.getAttribute("data-change"), "removed");
    assert.equal(await mark.textContent(), "−");
    // Run 1 open: the graph offered to compare with is run 2.
    await until(async () => (await page.getByTestId("compare-other").inputValue()) === "run2", { what: "run 2 offered" });
    await artifact(page, "compare-run1.png");
    await page.getByTestId("compare-close").click();
    assert.equal(await page.getByTestId("diff-marks").locator(".diff-mark").count(), 0, "marks off when closed");
    assert.deepEqual(h.errors, [], "no page errors");
  });
});
