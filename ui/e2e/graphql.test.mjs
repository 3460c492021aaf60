// The GraphQL query page in Chromium (issue 14 §1): a browser opening /graphql is sent to the
// query page, which runs seed 001's statementsAbout over the council demo with the tab's
// token and shows what POST /graphql answers; a broken query shows its error.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { artifact, runDemo, start, until } from "./harness.mjs";

const TOKEN = "graphql-page-token-0123456789";

describe("the GraphQL page", { timeout: 120_000 }, () => {
  let h;
  before(async () => {
    h = await start({ token: TOKEN });
    await runDemo(h, "council", null);
  });
  after(async () => {
    await h?.stop();
  });

  it("runs statementsAbout(zoning) and shows the server's answer", async () => {
    const { page } = h;
    await page.goto(`${h.base}/graphql?graph=council&token=${TOKEN}`);
    await page.waitForSelector("#run");
    assert.match(page.url(), /\/graphql\.html\?graph=council/);
    const want = await (await fetch(`${h.base}/graphql?graph=council`, {
      method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
      body: JSON.stringify({ query: "query($t: String!) { statementsAbout(topic: $t) { id claimText } }", variables: { t: "zoning" } }),
    })).json();
    assert.ok(want.data.statementsAbout.length >= 1, JSON.stringify(want));
    await page.click("#run");
    const shown = await until(async () => {
      const t = await page.textContent("#result");
      return t.includes("claimText") ? JSON.parse(t) : null;
    }, { what: "the result" });
    assert.deepEqual(shown.data.statementsAbout.map((s) => s.id), want.data.statementsAbout.map((s) => s.id));
    assert.ok(!(await page.getAttribute("#result", "class") ?? "").includes("error"));
    await artifact(page, "graphql-page.png");
    await page.fill("#query", "{ nosuchfield }");
    await page.click("#run");
    await until(async () => (await page.getAttribute("#result", "class")) === "error", { what: "the error shown" });
    assert.match(await page.textContent("#result"), /nosuchfield/);
  });
});
