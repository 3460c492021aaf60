// File ▸ Export of the whole graph as W3C PROV (issue 15 §2): the Export menu offers the four
// formats the server writes; PROV-JSON downloads a document with one record per node and one
// relation per edge of the graph (counted against the API's whole view, not hard-coded).

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import { artifact, runDemo, start, until } from "./harness.mjs";

const GRAPH = "council";
const RECORDS = ["entity", "activity", "agent"];
const RELATIONS = ["used", "wasGeneratedBy", "wasAssociatedWith", "wasAttributedTo", "wasDerivedFrom", "wasInfluencedBy"];

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
});
