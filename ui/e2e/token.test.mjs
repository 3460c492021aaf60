// Token mode: `provex serve --token T`. Every API request needs the token (header, or
// `?token=` where a browser cannot set headers, as for EventSource). The UI opened at
// `/?token=T` must start (its scripts and styles load although their URLs carry no token),
// keep the token for the tab, and work: API calls, the live stream, a reload.

import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { artifact, errorToasts, newPage, ready, start, statusCounts, until } from "./harness.mjs";

const GRAPH = "council";

describe("token mode", { timeout: 90_000 }, () => {
  const token = randomBytes(16).toString("hex");
  let h;

  before(async () => {
    h = await start({ token });
  });

  after(async () => {
    await h?.stop();
  });

  it("without the token the API and the stream answer 401", async () => {
    const none = await fetch(`${h.base}/api/health`);
    assert.equal(none.status, 401);
    assert.equal((await none.json()).code, "unauthorized");
    const wrong = await fetch(`${h.base}/api/graphs`, { headers: { Authorization: `Bearer ${token.replace(/.$/, (c) => (c === "0" ? "1" : "0"))}` } });
    assert.equal(wrong.status, 401);
    assert.equal((await fetch(`${h.base}/api/graphs/${GRAPH}/stream?since=0&token=nope`)).status, 401);
    const ok = await fetch(`${h.base}/api/health`, { headers: { Authorization: `Bearer ${token}` } });
    assert.equal(ok.status, 200);
    assert.equal((await ok.json()).auth, true);
    assert.equal((await fetch(`${h.base}/api/graphs?token=${token}`)).status, 200);
  });

  it("a browser without the token gets no data", async () => {
    const { context, page, errors } = await newPage(h.browser);
    try {
      const res = await page.goto(`${h.base}/`);
      if (res.status() === 401) return; // the UI itself is behind the token: nothing to see
      // Or the UI's files (no data) load, and its API calls are refused.
      assert.equal(res.status(), 200);
      await ready(page, errors);
      await until(async () => (await errorToasts(page)).some((t) => t.startsWith("unauthorized:")), { what: "an 'unauthorized' error toast" });
      assert.ok(errors.some((e) => /^HTTP 401 GET .*\/api\//.test(e)), "the API said 401");
      assert.ok(errors.filter((e) => e.startsWith("HTTP ")).every((e) => /\/api\//.test(e)), `only API calls fail: ${errors.join("; ")}`);
      assert.equal(await page.getByTestId("graph-picker").locator("option:not([disabled])").count(), 0, "no graph listed");
    } finally {
      await context.close();
    }
  });

  it("the UI opened with ?token= works: demo, live stream, reload", async () => {
    const page = h.page;
    await h.open(`/?token=${token}`);
    assert.ok(!page.url().includes(token), "the token is taken out of the address bar");
    assert.equal(await page.evaluate(() => window.provex.app.health?.auth ?? null), true);
    await page.getByTestId("ingest-menu").click();
    await page.getByTestId("ingest-graph").fill(GRAPH);
    await page.getByLabel("Pace in milliseconds").fill("25");
    await page.getByTestId("demo-button").click();
    await until(async () => {
      const jobs = await h.api("/api/jobs");
      return jobs.length > 0 && jobs.every((j) => j.state !== "running");
    }, { ms: 40_000, every: 250, what: "the demo job to finish" });
    const stats = await h.api(`/api/graphs/${GRAPH}/stats`);
    const expect = async (what) => until(async () => {
      const c = await statusCounts(page);
      return c.nodes === stats.nodes && c.edges === stats.edges ? c : null;
    }, { ms: 15_000, what: `${what}: "${stats.nodes} nodes · ${stats.edges} edges"` });
    await expect("over the stream");
    assert.equal(await page.getByTestId("stream-state").getAttribute("data-state"), "open");
    // A reload keeps the token (session storage) and loads the graph again.
    await page.reload();
    await ready(page, h.errors);
    await expect("after a reload");
    assert.ok(!page.url().includes("token="));
    await until(async () => (await page.getByTestId("stream-state").getAttribute("data-state")) === "open", { what: "the stream open" });
    await artifact(page, "token-mode.png");
    assert.deepEqual(await errorToasts(page), []);
    assert.deepEqual(h.errors, [], "no page errors");
  });
});
