// File ▸ Export of the whole graph as W3C PROV (issue 15 §2): the Export menu offers the four
// formats the server writes; PROV-JSON downloads a document with one record per node and one
// relation per edge of the graph (counted against the API's whole view, not hard-coded).

import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { artifact, runDemo, start, until } from "./harness.mjs";

const GRAPH = "council";
const RECORDS = ["entity", "activity", "agent"];
const RELATIONS = ["used", "wasGeneratedBy", "wasAssociatedWith", "wasAttributedTo", "wasDerivedFrom", "wasInformedBy", "wasInfluencedBy"];

describe("export the graph as W3C PROV", { timeout: 120_000 }, () => {
  let h;
  let page;

  before(async () => {
    h = await start();
    page = h.page;
    await runDemo(h, GRAPH, null);
    await h.open(`/?graph=${GRAPH}`);
    await until(() => page.evaluate(() => window.provex.model.nodes.size > 0), { what: "the graph drawn" });
  });

  after(async () => {
    await h?.stop();
  });

  it("downloads PROV-JSON with a record per node and a relation per edge", async () => {
    const whole = await h.api(`/api/graphs/${GRAPH}/view?limit=10000`);
    await page.getByTestId("export-menu").click();
    for (const f of ["prov-json", "prov-n", "prov-o-turtle", "prov-o-jsonld"]) {
      assert.ok(await page.getByTestId(`export-${f}`).isVisible(), `${f} offered`);
    }
    await artifact(page, "export-menu.png");
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export-prov-json").click()]);
    assert.equal(download.suggestedFilename(), `provex-${GRAPH}.json`);
    const doc = JSON.parse(await readFile(await download.path(), "utf8"));
    const count = (sections) => sections.reduce((n, s) => n + Object.keys(doc[s] ?? {}).length, 0);
    assert.equal(count(RECORDS), whole.nodes.length, "a record per node");
    assert.equal(count(RELATIONS), whole.edges.length, "a relation per edge");
    assert.equal(doc.prefix.provex, "https://provex.dev/ns#");
    assert.deepEqual(h.errors, [], "no page errors");
  });

  it("an audit bundle opens as a graph whose trails are the original's", async () => {
    const dir = await mkdtemp(join(tmpdir(), "provex-bundle-"));
    const file = join(dir, "council-audit.jsonld");
    const key = join(dir, "exporter.key");
    await h.cli("keys", "generate", "--id", "exporter-1", "--agent", "urn:agent:auditor", "--out", key);
    await h.cli("bundle", "-g", GRAPH, "--all", "--out", file, "--sign", key);
    assert.match(await h.cli("verify", file), /INTACT/);
    await page.getByTestId("ingest-menu").click();
    await page.getByTestId("ingest-graph").fill("council-audit");
    await page.getByTestId("upload-input").setInputFiles(file);
    await until(async () => (await page.getByTestId("graph-picker").inputValue()) === "council-audit", { ms: 30_000, what: "the bundle opened" });
    const q = { method: "POST", json: { cypher: "MATCH (s:Statement) RETURN s.name ORDER BY s.name" } };
    const ids = (await h.api(`/api/graphs/council-audit/query`, q)).rows.map((r) => r[0]);
    assert.equal(ids.length, (await h.api(`/api/graphs/${GRAPH}/query`, q)).rows.length, "every statement");
    for (const id of ids) {
      const [a, b] = await Promise.all([GRAPH, "council-audit"].map((g) => h.api(`/api/graphs/${g}/trail?statement=${encodeURIComponent(id)}`)));
      assert.deepEqual(b, a, `the trail of ${id}`);
    }
    assert.match(await page.getByTestId("notice-text").textContent(), /An audit bundle, opened read-only/);
    // Its claims read in the Details panel as the original's do.
    await until(async () => /claims need attention/.test((await page.getByTestId("details").textContent()) ?? ""), { what: "the claims at a glance" });
    await artifact(page, "bundle-opened.png");
    await rm(dir, { recursive: true, force: true });
    assert.deepEqual(h.errors, [], "no page errors");
  });
});
