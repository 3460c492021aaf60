// A web page on another origin attacks a local `provex serve` from a real Chromium. The page
// is served by a second HTTP server on another port, opened once as http://localhost:PORT
// (another site) and once as http://127.0.0.1:PORT (the same site, another port). It sends
// what a browser sends without asking the server first: `fetch` POSTs in `no-cors` mode with
// `Content-Type: text/plain` to every route that writes (events, upload of an audit bundle,
// demo, tidy, a knowledge/update over /a2a, a GraphQL post) and a form posted into a frame,
// and it tries to read (`fetch` of the API, /graphql, an EventSource on the stream). Then,
// through the API with the token, nothing was created or changed and the page read nothing.
// (The regression: a page elsewhere created graphs, planted statements, started demos and
// froze a graph by uploading a bundle into it.)

import assert from "node:assert/strict";
import http from "node:http";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { artifact, launchBrowser, newPage, runDemo, startServer, until } from "./harness.mjs";

const GRAPH = "council";

/** The attacker's page: runs every attack on `target` and leaves what it saw in `window.__results`. */
const ATTACK_PAGE = String.raw`<!doctype html><meta charset="utf-8"><title>Nothing to see</title>
<iframe name="sink" style="display:none"></iframe>
<form id="form" method="POST" enctype="text/plain" target="sink"><input name='{"x":"' value='"}'></form>
<script type="module">
const { target, graph, bundle } = JSON.parse(decodeURIComponent(location.hash.slice(1)));
const event = await (await fetch("/event.jsonl")).text();
const update = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "knowledge/update", params: {
  mutations: [{ op: "add", statement: { subject: { id: "ex:Riverton" }, predicate: { id: "ex:hasMayor" }, object: { id: "ex:Mallory" }, certainty: 1 } }],
  sourceAgentId: "urn:agent:attacker", justification: "planted" } });
const bundleText = await (await fetch("/" + bundle)).text();
const writes = [
  ["/api/graphs/planted/events?format=a2a", event],
  ["/api/graphs/" + graph + "/events?format=a2a", event],
  ["/api/graphs/" + graph + "/upload?name=frozen.json", bundleText],
  ["/api/graphs/uploaded/upload?name=x.jsonl", event],
  ["/api/graphs/demo-by-attacker/demo", ""],
  ["/api/graphs/" + graph + "/tidy", ""],
  ["/a2a/" + graph, update],
  ["/graphql?graph=" + graph, JSON.stringify({ query: "{ triples { subject } }" })],
];
const results = { writes: [], reads: [], stream: null, form: null };
for (const [path, body] of writes) {
  try {
    const r = await fetch(target + path, { method: "POST", mode: "no-cors", body, headers: { "Content-Type": "text/plain" } });
    results.writes.push({ path, sent: true, type: r.type });
  } catch (e) {
    results.writes.push({ path, sent: false, error: String(e) });
  }
}
const reads = ["/api/graphs", "/api/health", "/api/graphs/" + graph + "/stats", "/api/jobs",
  "/graphql?graph=" + graph + "&query=" + encodeURIComponent("{ triples { subject } }")];
for (const path of reads) {
  for (const mode of ["cors", "no-cors"]) {
    try {
      const r = await fetch(target + path, { mode });
      const text = await r.text();
      results.reads.push({ path, mode, type: r.type, status: r.status, text });
    } catch (e) {
      results.reads.push({ path, mode, error: String(e) });
    }
  }
}
results.stream = await new Promise((resolve) => {
  const es = new EventSource(target + "/api/graphs/" + graph + "/stream?since=0");
  const timer = setTimeout(() => { es.close(); resolve({ messages: 0, error: false, timeout: true }); }, 3000);
  let messages = 0;
  es.onmessage = () => { messages += 1; };
  es.onerror = () => { clearTimeout(timer); es.close(); resolve({ messages, error: true }); };
});
const form = document.getElementById("form");
form.action = target + "/api/graphs/formed/events?format=a2a";
results.form = await new Promise((resolve) => {
  document.querySelector("iframe").onload = () => resolve("loaded");
  form.submit();
  setTimeout(() => resolve("timeout"), 5000);
});
window.__results = results;
</script>`;

/** A second HTTP server: the attacker's page, an event line and the bundle. */
function attackerServer(files) {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    if (path === "/") {
      res.setHeader("content-type", "text/html; charset=utf-8");
      res.end(ATTACK_PAGE);
    } else if (files[path]) {
      res.setHeader("content-type", "text/plain");
      res.end(files[path]);
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

describe("a page on another origin", { timeout: 180_000 }, () => {
  let h, browser, attacker, dir;

  before(async () => {
    h = await startServer();
    browser = await launchBrowser();
    await runDemo(h, GRAPH);
    dir = await mkdtemp(join(tmpdir(), "provex-attack-"));
    const bundle = join(dir, "bundle.json");
    await h.cli("bundle", "-g", GRAPH, "--all", "--out", bundle);
    const event = (await readFile(new URL("../../examples/a2a-run.jsonl", import.meta.url), "utf8")).split("\n")[0] + "\n";
    attacker = await attackerServer({ "/event.jsonl": event, "/bundle.json": await readFile(bundle, "utf8") });
  });

  after(async () => {
    await browser?.close().catch(() => {});
    attacker?.close();
    await h?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** What the API (with the token) says about everything the page could have changed. */
  async function state() {
    const count = async (cypher) => (await h.api(`/api/graphs/${GRAPH}/query`, { method: "POST", json: { cypher } })).rows[0][0];
    return {
      graphs: (await h.api("/api/graphs")).sort(),
      jobs: (await h.api("/api/jobs")).map((j) => j.id),
      stats: await h.api(`/api/graphs/${GRAPH}/stats`),
      kg: await count("MATCH (s:KGStatement) RETURN count(s)"),
      bundles: await count("MATCH (b:AuditBundle) RETURN count(b)"),
      uploads: await count("MATCH (n) WHERE n.name CONTAINS 'msg-' RETURN count(n)"),
    };
  }

  for (const [label, host] of [["another site (localhost)", "localhost"], ["the same site on another port (127.0.0.1)", "127.0.0.1"]]) {
    it(`on ${label} can neither write nor read`, async () => {
      const before = await state();
      assert.equal(before.bundles, 0);
      const { context, page } = await newPage(browser);
      try {
        const config = { target: h.base, graph: GRAPH, bundle: "bundle.json" };
        const origin = `http://${host}:${attacker.address().port}`;
        assert.notEqual(new URL(origin).origin, new URL(h.base).origin);
        await page.goto(`${origin}/#${encodeURIComponent(JSON.stringify(config))}`);
        const results = await until(() => page.evaluate(() => window.__results ?? null), { ms: 60_000, what: "the attack page's results" });
        // Every write reached the server (an opaque answer came back) ...
        for (const w of results.writes) {
          assert.equal(w.sent, true, `${w.path}: ${w.error}`);
          assert.equal(w.type, "opaque", w.path);
        }
        // ... and no read gave the page anything.
        for (const r of results.reads) {
          if (r.error) continue; // a CORS refusal: nothing read
          assert.equal(r.type, "opaque", `${r.mode} ${r.path}`);
          assert.equal(r.text, "", `${r.mode} ${r.path} read nothing`);
        }
        assert.ok(results.reads.filter((r) => r.mode === "cors").every((r) => r.error), "every CORS read failed");
        assert.equal(results.stream.messages, 0, "the stream gave nothing");
        assert.notEqual(results.form, "timeout", "the form was posted");
        await artifact(page, `cross-origin-${host}.png`);
      } finally {
        await context.close();
      }
      // A moment for anything started in the background (a demo job) to show.
      await new Promise((r) => setTimeout(r, 500));
      const after = await state();
      assert.deepEqual(after, before, "nothing was created or changed");
      for (const g of ["planted", "uploaded", "demo-by-attacker", "formed"]) assert.ok(!after.graphs.includes(g), `no graph ${g}`);
      // The graph still takes writes: no bundle froze it.
      await h.api(`/api/graphs/${GRAPH}/tidy`, { method: "POST", json: {} });
    });
  }

  it("the server answers those requests with refusals and no CORS grant", async () => {
    const origin = `http://localhost:${attacker.address().port}`;
    const r = await fetch(`${h.base}/api/graphs/planted/events?format=a2a`, {
      method: "POST", headers: { Origin: origin, "Sec-Fetch-Site": "cross-site", "Content-Type": "text/plain" }, body: "{}\n",
    });
    assert.equal(r.status, 403);
    assert.equal((await r.json()).code, "forbidden_origin");
    assert.equal(r.headers.get("access-control-allow-origin"), null);
  });
});
