// Seed 004 in the explorer (issue 14 §3–4), in Chromium: statements an agent adds over
// JSON-RPC (/a2a/{graph}) show on their resource with certainty, provenance and history, and
// a replace pushed while the view is open shows up live, the old statement kept as history.
// Then a question in plain words (a stand-in chat endpoint answering canned Cypher) shows
// the Cypher it ran and its rows, as the API's `ask` returns them.

import assert from "node:assert/strict";
import http from "node:http";
import { after, before, describe, it } from "node:test";
import { artifact, start, until } from "./harness.mjs";

const GRAPH = "knowledge";
const CYPHER = "MATCH (s:KGStatement) RETURN s.`kg:predicate` AS predicate, s.`kg:certainty` AS certainty ORDER BY predicate LIMIT 10";

function standIn() {
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => { body += c; });
    req.on("end", () => {
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ choices: [{ message: { role: "assistant", content: "```cypher\n" + CYPHER + "\n```" } }] }));
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const statement = (p, o, certainty) => ({
  subject: { id: "ex:Riverton", type: "ex:City" }, predicate: { id: p }, object: o, graph: "ex:council", certainty,
  provenance: { source: "minutes of 14 Oct 2025" },
});

describe("knowledge-graph statements and questions", { timeout: 120_000 }, () => {
  let h, llm;
  const rpc = async (method, params) => {
    const r = await fetch(`${h.base}/a2a/${GRAPH}`, {
      method: "POST", headers: { ...h.auth, "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return r.json();
  };

  before(async () => {
    llm = await standIn();
    h = await start({ env: { PROVEX_LLM_URL: `http://127.0.0.1:${llm.address().port}`, PROVEX_LLM_MODEL: "stand-in" } });
    const r = await rpc("knowledge/update", {
      mutations: [
        { op: "add", statement: statement("ex:hasMayor", { id: "ex:Whitfield" }, 0.9) },
        { op: "add", statement: statement("ex:population", { value: 48210 }, 0.8) },
      ],
      sourceAgentId: "urn:agent:gpt-5", justification: "read from the minutes", taskId: "task-7",
    });
    assert.equal(r.result.success, true, JSON.stringify(r));
  });

  after(async () => {
    await h?.stop();
    llm?.close();
  });

  it("shows a resource's statements with certainty and history, and a live replace", async () => {
    const { page } = h;
    await h.open(`/?graph=${GRAPH}`);
    await page.evaluate(() => window.provex.app.select("ex:Riverton", { focus: true, from: "panel" }));
    const rows = () => page.$$eval('[data-testid="kg-statement"]', (ss) => ss.map((s) => ({
      current: s.dataset.current, text: s.textContent,
      changes: [...s.querySelectorAll('[data-testid="kg-change"]')].map((c) => c.dataset.change),
    })));
    const first = await until(async () => { const r = await rows(); return r.length === 2 ? r : null; }, { what: "two statements" });
    const want = await h.api(`/api/graphs/${GRAPH}/knowledge?id=ex%3ARiverton`);
    assert.equal(want.statements.length, 2);
    for (const r of first) {
      assert.equal(r.current, "true");
      assert.deepEqual(r.changes, ["added"]);
      assert.match(r.text, /urn:agent:gpt-5/);
      assert.match(r.text, /read from the minutes/);
      assert.match(r.text, /certainty 0\.(80|90)/);
    }
    assert.ok(first.some((r) => r.text.includes("48210")));

    // A replace while the view is open: it grows, the old mayor kept as history. A
    // knowledge/subscribe opened first sees the same change the view marks.
    const sub = await fetch(`${h.base}/a2a/${GRAPH}`, {
      method: "POST", headers: { ...h.auth, "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "knowledge/subscribe", params: { subscriptionQuery: 'subscription { triples(subject: "ex:Riverton") { op } }' } }),
    });
    assert.equal(sub.status, 200);
    const reader = sub.body.getReader();
    const r = await rpc("knowledge/update", {
      mutations: [{ op: "replace", statement: statement("ex:hasMayor", { id: "ex:Ortega" }, 0.95) }],
      sourceAgentId: "urn:agent:claude", justification: "the November election",
    });
    assert.equal(r.result.statementsAffected, 2);
    const now = await until(async () => { const x = await rows(); return x.length === 3 ? x : null; }, { what: "the replace shown live" });
    const old = now.find((x) => x.current === "false");
    assert.ok(old && old.text.includes("ex:Whitfield"));
    assert.deepEqual(old.changes, ["added", "removed"]);
    assert.match(old.text, /urn:agent:claude.*the November election/s);
    assert.equal(now.filter((x) => x.current === "true").length, 2);
    let text = "";
    while (!text.includes("\n\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    const event = JSON.parse(text.split("\n").find((l) => l.startsWith("data:")).slice(5)).result;
    assert.equal(event.op, "replace");
    assert.equal(event.statement.object.id, "ex:Ortega");
    const live = await until(async () => {
      const marks = await page.$$eval('[data-testid="kg-statement"]', (ss) => ss.map((s) => [s.textContent.includes("ex:Ortega"), s.dataset.live ?? null,
        s.querySelector('[data-testid="kg-live"]')?.textContent ?? null]));
      return marks.some(([, l]) => l) ? marks : null;
    }, { what: "the changed statements marked" });
    // The new mayor marked as the replace, the old one as removed, the population untouched.
    assert.deepEqual(live.map(([, l, note]) => [l, note]).sort(), [[null, null], ["remove", "just removed"], ["replace", "just replaced"]]);
    assert.deepEqual(live.find(([ortega]) => ortega).slice(1), ["replace", "just replaced"], "the subscription's change marked on its statement");
    await page.getByTestId("knowledge").scrollIntoViewIfNeeded();
    await artifact(page, "knowledge-history.png");
  });

  it("answers a question with the Cypher it ran and its rows", async () => {
    const { page } = h;
    const want = await h.api(`/api/graphs/${GRAPH}/ask`, { method: "POST", json: { question: "What do we know, and how sure?" } });
    assert.equal(want.cypher, CYPHER);
    await page.getByTestId("tab-console").click();
    await page.getByTestId("ask-input").fill("What do we know, and how sure?");
    await page.getByTestId("ask-run").click();
    await until(async () => (await page.getByTestId("ask-cypher").count()) > 0, { what: "the answer" });
    assert.match(await page.getByTestId("ask-cypher").textContent(), /stand-in/);
    assert.equal(await page.getByTestId("console-input").inputValue(), CYPHER);
    const cells = await page.$$eval('[data-testid="console-result"] tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
    assert.deepEqual(cells.map((c) => c[0]), want.rows.map((r) => r[0]));
    await artifact(page, "ask-answer.png");
  });
});
