// The first-run screen (issue 16) in Chromium against a fresh `provex serve` with no graphs:
// it says what Provex is and offers the council demo with its walkthrough, opening a file,
// and connecting to a server; each of the three is followed through. Expected counts come
// from the API.

import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { ROOT, artifact, ready, start, statusCounts, until } from "./harness.mjs";

describe("the first-run screen", { timeout: 150_000 }, () => {
  let h;
  let page;

  before(async () => {
    h = await start();
    page = h.page;
  });

  after(async () => {
    await h?.stop();
  });

  /** Forgets that this browser saw the welcome, and opens `path` afresh. */
  async function firstVisit(path = "/") {
    await page.evaluate(() => localStorage.clear());
    await h.open(path);
  }

  it("with no graph, says what Provex is and offers three ways to start", async () => {
    await h.open("/");
    const welcome = page.getByRole("region", { name: "Welcome to Provex" });
    await until(() => welcome.isVisible(), { what: "the welcome shown" });
    const what = (await page.getByTestId("welcome-what").textContent()) ?? "";
    assert.match(what, /where an AI system's output came from/);
    for (const id of ["welcome-demo", "welcome-open", "welcome-connect"]) {
      assert.ok(await page.getByTestId(id).isVisible(), `${id} is offered`);
    }
    // Reachable by keyboard: Tab from the page reaches the demo button.
    await page.getByTestId("welcome-demo").focus();
    assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), "welcome-demo");
    await artifact(page, "welcome.png");
  });

  it("Open a file: the file becomes a graph named after it, drawn whole", async () => {
    await page.getByTestId("welcome-file-input").setInputFiles(join(ROOT, "examples/a2a-run.jsonl"));
    await until(async () => (await page.getByTestId("graph-picker").inputValue()) === "a2a-run", { ms: 30_000, what: "graph a2a-run opened" });
    const stats = await h.api("/api/graphs/a2a-run/stats");
    assert.ok(stats.nodes > 0);
    await until(async () => (await statusCounts(page)).nodes === stats.nodes, { what: `${stats.nodes} nodes drawn` });
    assert.equal(await page.getByTestId("welcome").isVisible(), false, "the welcome is gone");
    // Chosen once: a later visit goes straight to the graph.
    await h.open("/");
    assert.equal(await page.getByTestId("welcome").isVisible(), false, "not shown again");
  });

  it("Council demo, with a walkthrough: the demo runs and its walkthrough opens", async () => {
    await firstVisit("/");
    await until(() => page.getByTestId("welcome").isVisible(), { what: "the welcome on a first visit" });
    await page.getByTestId("welcome-demo").click();
    await until(async () => (await page.getByTestId("graph-picker").inputValue()) === "council", { ms: 30_000, what: "the council graph opened" });
    await until(async () => (await page.getByTestId("tab-walkthrough").getAttribute("aria-selected")) === "true", { what: "the walkthrough tab open" });
    await until(async () => {
      const jobs = await h.api("/api/jobs");
      return jobs.length > 0 && jobs.every((j) => j.state !== "running");
    }, { ms: 60_000, what: "the demo job to finish" });
    const rows = await h.api("/api/graphs/council/query", { method: "POST", json: { cypher: "MATCH (s:Statement) RETURN count(s)" } });
    const claims = rows.rows[0][0];
    await until(async () => new RegExp(`^${claims} claims, \\d+ steps`).test((await page.getByTestId("walkthrough-caption").textContent()) ?? ""),
      { ms: 20_000, what: `the walkthrough of ${claims} claims` });
    assert.equal(await page.getByTestId("welcome").isVisible(), false);
  });

  it("Connect to a server: goes to that server's explorer", async () => {
    await firstVisit("/");
    await until(() => page.getByTestId("welcome").isVisible(), { what: "the welcome" });
    await page.getByTestId("welcome-connect").click();
    assert.equal(await page.getByTestId("welcome-connect").getAttribute("aria-expanded"), "true");
    const target = `${h.base}/?graph=a2a-run`;
    await page.getByTestId("welcome-url").fill(target);
    await Promise.all([page.waitForURL(/graph=a2a-run/), page.getByTestId("welcome-connect-go").click()]);
    await ready(page, h.errors);
    await until(async () => (await page.getByTestId("graph-picker").inputValue()) === "a2a-run", { what: "the server's graph opened" });
    // Not an explorer address: says what to type, stays.
    await firstVisit("/");
    await page.getByTestId("welcome-connect").click();
    await page.getByTestId("welcome-url").fill("ftp://nowhere");
    await page.getByTestId("welcome-connect-go").click();
    await until(async () => /explorer's address/.test((await page.getByTestId("toast").allTextContents()).join(" ")), { what: "a hint on the address" });
    assert.deepEqual(h.errors, [], "no page errors");
  });
});
