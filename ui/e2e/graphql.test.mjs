// The GraphQL query page (GraphiQL, where GET /graphql sends a browser; issue 14) in a real Chromium against
// `provex serve` with a token: it takes the token and the graph from its URL, runs seed 001's
// `statementsAbout(topic: "zoning")` over the council demo, and shows what the endpoint
// answers. The expected statements come from the endpoint itself, asked directly.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { artifact, runDemo, start, until } from "./harness.mjs";

const GRAPH = "council";
const TOKEN = "graphql-e2e-token-0123456789";

describe("GraphQL query page", { timeout: 150_000 }, () => {
  let h;

  before(async () => {
    h = await start({ token: TOKEN });
    await runDemo(h, GRAPH, null);
  });

  after(async () => {
    await h?.stop();
  });

  it("runs statementsAbout(topic: \"zoning\") and shows the statements", async () => {
    const expected = await h.api(`/graphql?graph=${GRAPH}`, {
      method: "POST",
      json: { query: '{ statementsAbout(topic: "zoning") { id claimText consensusScore } }' },
    });
    const want = expected.data.statementsAbout;
    assert.ok(want.length > 0, "zoning statements in the demo");

    const { page, errors } = h;
    // The page itself is public; the queries it sends carry the token it took from the URL.
    const schemaRead = page.waitForResponse((r) => r.url().includes("/graphql?graph=")
      && (r.request().postData() ?? "").includes("IntrospectionQuery"));
    await page.goto(`${h.base}/graphql?graph=${GRAPH}&token=${TOKEN}`);
    await page.waitForSelector(".graphiql-container", { timeout: 30_000 });
    // GraphiQL reads the schema first (the standard introspection query, within the limits).
    const schema = await schemaRead;
    assert.equal(schema.status(), 200);
    assert.ok((await schema.json()).data.__schema, "the schema");
    await page.waitForSelector(".graphiql-query-editor .monaco-editor", { timeout: 30_000 });
    assert.ok(!page.url().includes("token="), "the token is taken out of the address bar");
    const posted = page.waitForResponse((r) => r.url().includes(`/graphql?graph=${GRAPH}`)
      && r.request().method() === "POST" && (r.request().postData() ?? "").includes("statementsAbout"));
    await page.locator(".graphiql-execute-button").click();
    const res = await posted;
    assert.equal(res.status(), 200);
    assert.match(res.request().headers().authorization ?? "", new RegExp(`Bearer ${TOKEN}`));
    const got = await res.json();
    assert.equal(got.errors, undefined, JSON.stringify(got.errors));
    assert.deepEqual(got.data.statementsAbout.map((s) => s.id), want.map((s) => s.id));
    // The result pane shows them.
    const pane = page.locator(".graphiql-response");
    await until(async () => ((await pane.textContent()) ?? "").includes(want[0].id), { what: "the first statement in the result pane" });
    const text = (await pane.textContent()) ?? "";
    assert.ok(text.includes("statementsAbout"), text.slice(0, 200));
    assert.ok(text.includes("consensusScore"), text.slice(0, 200));
    await artifact(page, "graphql-page.png");
    assert.deepEqual(errors, []);
  });

  it("streams a subscription in its second tab as knowledge updates commit", async () => {
    const { page } = h;
    // The second tab holds the Watch subscription; run it.
    await page.locator(".graphiql-tab").nth(1).locator(".graphiql-tab-button").click();
    // (Monaco draws spaces as no-break spaces, which \s matches.)
    await until(async () => /subscription\s+Watch/.test((await page.locator(".graphiql-query-editor").textContent()) ?? ""),
      { what: "the Watch tab" });
    const opened = page.waitForResponse((r) => r.url().includes(`/graphql?graph=${GRAPH}`)
      && (r.request().postData() ?? "").includes("subscription Watch"));
    await page.locator(".graphiql-execute-button").click();
    const res = await opened;
    assert.equal(res.status(), 200);
    assert.match(res.headers()["content-type"] ?? "", /text\/event-stream/);
    assert.equal(res.request().headers().accept, "text/event-stream");
    // An agent adds a statement over JSON-RPC: it shows in the result pane as it commits.
    const update = await h.api(`/a2a/${GRAPH}`, {
      method: "POST",
      json: { jsonrpc: "2.0", id: 1, method: "knowledge/update", params: {
        mutations: [{ op: "add", statement: { subject: { id: "ex:Riverton" }, predicate: { id: "ex:hasMayor" }, object: { id: "ex:Whitfield" }, certainty: 0.9 } }],
        sourceAgentId: "urn:agent:gpt-5" } },
    });
    assert.equal(update.result.success, true, JSON.stringify(update));
    const pane = page.locator(".graphiql-response");
    await until(async () => ((await pane.textContent()) ?? "").includes("ex:Whitfield"), { what: "the change in the result pane" });
    const text = (await pane.textContent()) ?? "";
    assert.match(text, /"op":\s*"add"/, text.slice(0, 300));
    await artifact(page, "graphql-subscription.png");
  });
});
