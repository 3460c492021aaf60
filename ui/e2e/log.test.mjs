// The tamper-evident log in Chromium over the council demo: a claim's details say where it is
// in the log (index, checkpoint time, as the API gives them), Verify checks the proof in the
// page (WebCrypto SHA-256 and Ed25519), the trail carries a verified-log badge; then a claim
// is rewritten in FalkorDB with Cypher behind Provex's back, and on the next look the banner
// over the graph names it and Verify on it fails. Screenshots, light and dark, go to
// docs/screenshots/.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import net from "node:net";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { openDrawn, runDemo, screenshot as saveScreenshot, start, until } from "./harness.mjs";

const GRAPH = "council";
const EDITED = "the council approved the opposite";

/** One RESP command as bytes. */
function resp(...args) {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`;
}

/** Runs a Cypher write on the server's FalkorDB as Provex's own user would, bypassing Provex:
 *  someone with the data folder's password editing the store by hand. */
async function cypherBehindProvexsBack(h, cypher) {
  const password = readFileSync(join(h.dataDir, "falkordb", "server.secret"), "utf8").trim();
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: "127.0.0.1", port: h.dbPort });
    let got = "";
    s.on("data", (d) => {
      got += String(d);
      // AUTH's +OK, then the query's reply.
      if (got.startsWith("+OK\r\n") && got.length > 5) {
        s.destroy();
        const reply = got.slice(5);
        if (reply.startsWith("-")) reject(new Error(reply));
        else resolve(reply);
      } else if (got.startsWith("-")) {
        s.destroy();
        reject(new Error(got));
      }
    });
    s.on("error", reject);
    s.write(resp("AUTH", "provex", password) + resp("GRAPH.QUERY", GRAPH, cypher));
  });
}

describe("the tamper-evident log in the explorer", { timeout: 180_000 }, () => {
  let h;
  let page;
  let statement;
  let inclusion;

  before(async () => {
    h = await start();
    page = h.page;
    await runDemo(h, GRAPH, null);
    const rows = await h.api(`/api/graphs/${GRAPH}/query`, { method: "POST", json: { cypher: "MATCH (s:Statement) WHERE s.log_leaves IS NOT NULL RETURN s.name ORDER BY s.name" } });
    statement = rows.rows[0][0];
    inclusion = await h.api(`/api/graphs/${GRAPH}/log/inclusion?id=${encodeURIComponent(statement)}`);
    await openDrawn(h, GRAPH);
  });

  after(async () => {
    await h?.stop();
  });

  const screenshot = (name) => saveScreenshot(page, name);

  /** Selects the claim (or node `id`) and shows its Details tab; returns the log line. */
  async function details(id = statement) {
    await page.evaluate((id) => window.provex.app.select(id, { focus: true, from: "panel" }), id);
    await page.getByTestId("tab-details").click();
    const line = page.getByTestId("details").getByTestId("log-line");
    await until(async () => (await line.getAttribute("data-node")) === id && await line.isVisible(), { what: `${id}'s log line` });
    return line;
  }

  async function verify(line) {
    await line.getByTestId("log-verify").click();
    const result = line.getByTestId("log-result");
    return until(async () => {
      const r = await result.getAttribute("data-result");
      return r && r !== "" ? r : null;
    }, { what: "Verify's result" });
  }

  it("the API: the demo's claims are in the log, and the store matches it", async () => {
    assert.equal(inclusion.leaves.length, 1, JSON.stringify(inclusion));
    assert.ok(inclusion.checkpoint_at > 0);
    assert.ok(inclusion.record, "a claim keeps its line");
    const status = await h.api(`/api/graphs/${GRAPH}/log/status`);
    assert.equal(status.differing, 0, JSON.stringify(status));
    assert.equal(status.checkpoint_matches, true);
    assert.equal(status.complete, true);
  });

  it("details say the index and checkpoint time; Verify checks it in the page, Ed25519 included", async () => {
    const line = await details();
    const where = line.getByTestId("log-where");
    const index = inclusion.leaves[0].index;
    assert.match(await where.textContent(), new RegExp(`^In the log at index ${index}, checkpoint of \\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2} \\(${inclusion.tree_size} leaves\\)$`));
    assert.equal(await where.getAttribute("data-checkpoint-at"), String(inclusion.checkpoint_at));
    // The time shown is the checkpoint's, in the page's local time.
    const shown = await page.evaluate((ms) => {
      const d = new Date(ms);
      const p = (n) => String(n).padStart(2, "0");
      return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
    }, inclusion.checkpoint_at);
    assert.ok((await where.textContent()).includes(shown), shown);
    assert.equal(await verify(line), "verified");
    const checks = await line.locator(".log-checks li").evaluateAll((lis) => lis.map((li) => [li.dataset.what, li.dataset.ok]));
    assert.deepEqual(checks, [["signature", "true"], ["checkpoint", "true"], ["leaf", "true"], ["inclusion", "true"], ["stored", "true"]]);
    assert.equal(await page.getByTestId("log-banner").isVisible(), false, "no banner over a graph that matches its log");
    await screenshot("log-verified-light.png");
  });

  it("the trail shows a verified-log badge", async () => {
    await page.getByTestId("tab-trail").click();
    const badge = page.getByTestId("trail").getByTestId("trail-log-badge");
    await until(async () => (await badge.getAttribute("data-log")) === "verified", { what: "the trail's log badge verified" });
    assert.match(await badge.textContent(), /Log verified/);
    await screenshot("log-trail-light.png");
  });

  it("a node that keeps no line is partly verified, and says exactly what was not checked", async () => {
    const rows = await h.api(`/api/graphs/${GRAPH}/query`, { method: "POST", json: { cypher: "MATCH (n) WHERE n.log_leaves IS NOT NULL AND n.log_source IS NULL RETURN n.name ORDER BY n.name LIMIT 1" } });
    const node = rows.rows[0][0];
    const line = await details(node);
    assert.equal(await verify(line), "partial");
    assert.match(await line.getByTestId("log-verdict").textContent(), /^Partly verified: what was not checked is said below$/);
    const checks = await line.locator(".log-checks li").evaluateAll((lis) => lis.map((li) => [li.dataset.what, li.dataset.ok]));
    assert.deepEqual(checks.filter(([what]) => what !== "inclusion"), [["signature", "true"], ["checkpoint", "true"], ["leaf", "null"], ["stored", "true"]]);
    assert.ok(checks.some(([what, ok]) => what === "inclusion" && ok === "true"));
    const leaf = await line.locator('.log-checks li[data-what="leaf"]').textContent();
    assert.match(leaf, /^Not checked: this node does not keep the record it came from/);
    assert.match(leaf, /is in the signed log, not that this node's properties came from/);
    await screenshot("log-partial-light.png");
  });

  it("a claim rewritten with Cypher: the banner names it and Verify on it fails", async () => {
    await cypherBehindProvexsBack(h, `MATCH (s:Statement {name: '${statement}'}) SET s.claim_text = '${EDITED}'`);
    const status = await h.api(`/api/graphs/${GRAPH}/log/status`);
    assert.deepEqual(status.mismatches.map((m) => m.name), [statement]);
    // The next look at the graph.
    await h.open(`/?graph=${GRAPH}`);
    const banner = page.getByTestId("log-banner");
    await until(() => banner.isVisible(), { what: "the log banner" });
    assert.match(await banner.getByTestId("log-banner-text").textContent(), /^1 node of this graph differs from what its logged records gave it/);
    await banner.getByTestId("log-banner-toggle").click();
    const items = await banner.getByTestId("log-banner-list").locator("li").evaluateAll((lis) => lis.map((li) => li.dataset.name));
    assert.deepEqual(items, [statement]);
    // The list selects it.
    await banner.locator(`li[data-name="${statement}"] button`).click();
    await until(async () => (await page.evaluate(() => window.provex.app.selection.at(-1))) === statement, { what: "the listed node selected" });
    const line = await details();
    assert.equal(await verify(line), "failed");
    const stored = line.locator('.log-checks li[data-what="stored"]');
    assert.equal(await stored.getAttribute("data-ok"), "false");
    // The log itself still proves what was received: only the store changed.
    assert.equal(await line.locator('.log-checks li[data-what="inclusion"]').getAttribute("data-ok"), "true");
    await screenshot("log-tampered-light.png");
  });

  it("the same, dark", async () => {
    await page.getByTestId("theme-toggle").click();
    await page.waitForSelector('html[data-theme="dark"]');
    await page.waitForTimeout(300);
    await screenshot("log-tampered-dark.png");
    assert.deepEqual(h.errors ?? [], []);
  });
});
