// The reasoning view in Chromium (issue 12 §3–4), on the council demo: the Reasoning tab lists
// the sessions the API's `sessions` returns; the zoning question's answer opens its chain as
// the API's `reasoning` returns it (question → knowledge-query tool with its arguments →
// observation → answer, and the dialog beside it); a statement the answer drew on opens its
// trail (evidence quote at hh:mm:ss, signature, consensus): answer → reasoning → statement →
// quote. The walkthrough's research step opens the same chain. Live: a session pushed step by
// step into another graph grows in the open view, its latest step marked as it arrives.

import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, before, describe, it } from "node:test";
import { artifact, nodeOnPage, runDemo, start, statusCounts, until } from "./harness.mjs";

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const GRAPH = "council";
const SESSION = "urn:trustgraph:agent:council-zoning-question";

/** TrustGraph explain messages (as its gateway streams them) for the live check. */
const TG = "https://trustgraph.ai/ns/", PROV = "http://www.w3.org/ns/prov#";
const RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type", LABEL = "http://www.w3.org/2000/01/rdf-schema#label";
const iri = (i) => ({ t: "i", i });
const lit = (v) => ({ t: "l", v });
const triple = (s, p, o) => ({ s: iri(s), p: iri(p), o, g: "urn:graph:retrieval" });
const explain = (id, kinds, more) => ({
  message_type: "explain", end_of_message: false, end_of_dialog: false, explain_id: id, explain_graph: "urn:graph:retrieval",
  explain_triples: [triple(id, RDF_TYPE, iri(`${PROV}Entity`)), ...kinds.map((k) => triple(id, RDF_TYPE, iri(`${TG}${k}`))), ...more(id)],
});

describe("the reasoning view", { timeout: 180_000 }, () => {
  let h;
  let page;
  let sessions, zoning, chain;

  /** The steps shown: id, kind, title, latest. */
  const steps = () => page.$$eval('[data-testid="reasoning-step"]', (ss) => ss.map((s) => ({
    id: s.dataset.id, kind: s.dataset.kind, title: s.querySelector('[data-testid="reasoning-step-title"]').textContent,
    latest: s.classList.contains("latest"),
  })));

  async function violations(selector) {
    if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ path: AXE });
    return page.evaluate(async (sel) => {
      const r = await window.axe.run(sel, { resultTypes: ["violations"] });
      return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical")
        .map((v) => `${v.impact} ${v.id}: ${v.help} — ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(" | ")}`);
    }, selector);
  }

  before(async () => {
    h = await start();
    page = h.page;
    await runDemo(h, GRAPH, null);
    sessions = await h.api(`/api/graphs/${GRAPH}/sessions`);
    zoning = sessions.find((s) => s.id === SESSION);
    chain = await h.api(`/api/graphs/${GRAPH}/reasoning?id=${encodeURIComponent(zoning.answer)}`);
    await h.open(`/?graph=${GRAPH}`);
    const stats = await h.api(`/api/graphs/${GRAPH}/stats`);
    await until(async () => (await statusCounts(page)).nodes === stats.nodes, { what: "the graph drawn" });
  });

  after(async () => {
    await h?.stop();
  });

  it("lists the sessions the API returns in the Reasoning tab: question, status, steps, time", async () => {
    assert.ok(zoning, "the council demo has the zoning session");
    assert.equal(zoning.question, "What did they say about zoning?");
    assert.equal(zoning.status, "answered");
    const tab = page.getByTestId("tab-reasoning");
    await until(() => tab.isVisible(), { what: "the Reasoning tab offered" });
    await tab.click();
    const rows = await until(async () => {
      const r = await page.$$eval('[data-testid="session-row"]', (rs) => rs.map((x) => ({
        id: x.dataset.session, status: x.dataset.status, text: x.textContent, meta: x.querySelector('[data-testid="session-meta"]').textContent,
      })));
      return r.length === sessions.length ? r : null;
    }, { what: "a row per session" });
    assert.deepEqual(rows.map((r) => r.id), sessions.map((s) => s.id));
    for (const s of sessions) {
      const r = rows.find((x) => x.id === s.id);
      assert.equal(r.status, s.status);
      assert.ok(r.text.includes(`“${s.question}”`), `the question of ${s.id}`);
      assert.match(r.meta, new RegExp(`^${s.steps} steps? · `));
      assert.ok(r.meta.includes(s.started.slice(11, 19)), "its time");
    }
    assert.match(await page.locator(`[data-testid="session-row"][data-session="${SESSION}"] [data-testid="session-status"]`).textContent(), /answered/);
    assert.deepEqual(await violations('[role="tabpanel"]:not([hidden])'), [], "the Reasoning tab");
  });

  it("opens the answer's chain as the API returns it: four steps, the tool and its arguments, the dialog", async () => {
    await page.locator(`[data-testid="session-row"][data-session="${SESSION}"]`).click();
    const view = page.getByTestId("reasoning-view");
    await until(() => view.isVisible(), { what: "the reasoning view" });
    const shown = await until(async () => {
      const s = await steps();
      return s.length === chain.chain.length ? s : null;
    }, { what: "a card per step" });
    assert.equal(chain.chain.length, 4);
    assert.deepEqual(shown.map((s) => s.id), chain.chain.map((s) => s.id), "question first, answer last");
    assert.deepEqual(shown.map((s) => s.kind), ["question", "tool", "observation", "answer"]);
    assert.equal(shown[1].title, "Tool use: knowledge-query");
    assert.equal(await page.getByTestId("reasoning-question").textContent(), `“${chain.question}”`);
    assert.equal(await page.getByTestId("reasoning-status").getAttribute("data-status"), chain.status);
    // The header counts steps as the session list does: those after the question.
    assert.equal(zoning.steps, chain.chain.length - 1);
    assert.match(await page.getByTestId("reasoning-view").locator(".muted").first().textContent(), new RegExp(` ${zoning.steps} steps after the question`));
    const tool = chain.chain[1];
    assert.equal(await view.getByTestId("reasoning-tool-name").textContent(), tool.properties["tg:action"]);
    assert.equal(await view.getByTestId("reasoning-arguments").textContent(), JSON.stringify(JSON.parse(tool.properties["tg:arguments"]), null, 2));
    // Durations, tokens and model, as recorded.
    const facts = await page.$$eval('[data-testid="reasoning-facts"] .rstep-fact', (fs) => fs.map((f) => f.textContent));
    assert.ok(facts.includes(`LLM time${tool.properties["tg:llmDurationMs"]} ms`), facts.join(" | "));
    assert.ok(facts.includes(`Tool time${chain.chain[2].properties["tg:toolDurationMs"]} ms`));
    assert.ok(facts.includes(`Model${chain.chain[3].properties["tg:llmModel"]}`));
    // The dialog beside the chain, in order; each line also under its step.
    const dialog = await page.$$eval('[data-testid="dialog-line"]', (ls) => ls.map((l) => ({ kind: l.dataset.kind, text: l.querySelector(".dialog-text").textContent })));
    assert.deepEqual(dialog, chain.dialog.map((d) => ({ kind: d.kind, text: d.content })));
    const under = await page.$$eval('[data-testid="reasoning-step"]', (ss) => ss.map((s) => [...s.querySelectorAll('[data-testid="reasoning-step-dialog"]')].map((d) => d.dataset.kind)));
    assert.deepEqual(under, [[], ["thought"], ["observation"], ["answer"]]);
    // The statements each step drew on, under it, with their claims.
    const links = await page.$$eval('[data-testid="reasoning-step"]', (ss) => ss.map((s) => [...s.querySelectorAll('[data-testid="reasoning-link"]')].map((l) => l.dataset.id).sort()));
    const expected = chain.chain.map((s) => [...new Set(chain.links.filter((l) => l.from === s.id).map((l) => l.id))].sort());
    assert.deepEqual(links, expected);
    assert.equal(expected[3].length, 2, "the answer drew on the two zoning statements");
    for (const l of chain.links) {
      assert.ok((await page.locator(`[data-testid="reasoning-link"][data-id="${l.id}"]`).first().textContent()).includes(l.text));
    }
    assert.deepEqual(await violations('[data-testid="reasoning-view"]'), [], "the reasoning view");
    await artifact(page, "reasoning-chain.png");
    // Readable in the dark theme too.
    await page.getByTestId("theme-toggle").click();
    await page.waitForSelector('html[data-theme="dark"]');
    assert.deepEqual(await violations('[data-testid="reasoning-view"]'), [], "the reasoning view (dark)");
    assert.deepEqual(await violations('[role="tabpanel"]:not([hidden])'), [], "the Reasoning tab (dark)");
    await artifact(page, "reasoning-chain-dark.png");
    await page.getByTestId("theme-toggle").click();
    await page.waitForSelector('html[data-theme="light"]');
  });

  it("a statement the answer drew on opens its trail: the quote at hh:mm:ss, its signature, the consensus", async () => {
    const link = chain.links.find((l) => l.from === zoning.answer && /4–1/.test(l.text ?? ""));
    assert.ok(link, "the answer links the 4–1 rezoning vote");
    const trail = await h.api(`/api/graphs/${GRAPH}/trail?statement=${encodeURIComponent(link.id)}`);
    const button = page.locator(`[data-testid="reasoning-step"][data-id="${zoning.answer}"] [data-testid="reasoning-link"][data-id="${link.id}"]`);
    await button.click();
    await until(async () => (await page.getByTestId("tab-trail").getAttribute("aria-selected")) === "true", { what: "the Trail tab" });
    const panel = page.getByTestId("trail");
    await until(async () => (await panel.getByTestId("claim").textContent()) === trail.claim.text, { what: "the statement's trail" });
    assert.equal(trail.claim.text, link.text);
    assert.equal(await button.getAttribute("aria-pressed"), "true");
    assert.ok(await page.getByTestId("reasoning-view").isVisible(), "the chain stays open beside the trail");
    // The evidence: its quote and the time in the meeting it was said.
    const times = await panel.getByTestId("evidence-time").allTextContents();
    assert.equal(times.length, trail.evidence.length);
    assert.ok(times.length > 0 && times.every((t) => /^\d{2}:\d{2}:\d{2}$/.test(t)), times.join(", "));
    const quotes = await panel.locator('[data-testid="evidence"] .quote').allTextContents();
    assert.deepEqual(quotes, trail.evidence.map((e) => `“${e.quote}”`));
    assert.equal(await panel.getByTestId("statement-signature").getAttribute("data-signature"), trail.signature);
    assert.equal(await panel.getByTestId("consensus").getAttribute("data-verified"), String(trail.verified));
    assert.ok((await panel.getByTestId("consensus").textContent()).includes(trail.consensus.toFixed(2)));
    await artifact(page, "reasoning-trail.png");
  });

  it("an Explain node clicked on the graph opens its chain up to it; Esc closes", async () => {
    await page.keyboard.press("Escape");
    await until(async () => !(await page.getByTestId("reasoning-view").isVisible()), { what: "the view closed" });
    const observation = chain.chain[2].id;
    await page.evaluate((id) => window.provex.canvas.focus(id, 0), observation);
    const at = await until(() => nodeOnPage(page, observation), { what: "the observation drawn" });
    await page.waitForTimeout(300);
    const p = await nodeOnPage(page, observation);
    await page.mouse.click(p?.x ?? at.x, p?.y ?? at.y);
    await until(async () => (await steps()).length === 3, { what: "the chain up to the observation" });
    const s = await steps();
    assert.deepEqual(s.map((x) => x.id), chain.chain.slice(0, 3).map((x) => x.id));
    assert.equal(await page.locator('[data-testid="reasoning-step"].selected').getAttribute("data-id"), observation);
    await page.keyboard.press("Escape");
  });

  it("the walkthrough's research step opens the zoning answer's chain and points at the claims it drew on", async () => {
    await page.getByTestId("tab-walkthrough").click();
    const caption = page.getByTestId("walkthrough-caption");
    await until(async () => /research question/.test((await caption.textContent()) ?? ""), { ms: 20_000, what: "the walkthrough built with its research step" });
    const total = Number(/(\d+) steps/.exec(await caption.textContent())[1]);
    // Straight to the end: the research question is the last step.
    for (let i = 0; i < total; i++) {
      if (await page.getByTestId("walkthrough-next").isDisabled()) break;
      await page.getByTestId("walkthrough-next").click();
    }
    await until(async () => (await page.getByTestId("walkthrough-progress").textContent()) === `step ${total} of ${total}`, { what: "the last step" });
    await until(async () => ((await caption.textContent()) ?? "").includes(zoning.question), { what: "the research step's caption" });
    await until(async () => (await steps()).length === 4, { what: "the zoning chain open" });
    const pointed = await page.$$eval('[data-testid="reasoning-step"]:last-child .rlink.pointed', (ls) => ls.map((l) => l.dataset.id).sort());
    assert.deepEqual(pointed, [...new Set(chain.links.filter((l) => l.from === zoning.answer).map((l) => l.id))].sort());
    const first = chain.links.find((l) => l.label === "Statement");
    const walkTrail = page.locator(".walkthrough-trail");
    await until(async () => (await walkTrail.getByTestId("claim").count()) === 1, { what: "a claim's trail under the step" });
    assert.equal(await walkTrail.getByTestId("claim").textContent(), first.text, "the trail of the first claim it drew on");
    await artifact(page, "reasoning-walkthrough.png");
    // Back a step: the chain closes, the canvas is seen again.
    await page.getByTestId("walkthrough-prev").click();
    await until(async () => !(await page.getByTestId("reasoning-view").isVisible()), { what: "the chain closed on the previous step" });
  });

  it("live: a session streamed in step by step grows in the open view, its latest step marked", async () => {
    const live = "live-reasoning";
    const q = "urn:trustgraph:agent:live-check";
    /** One explain message, as a live push (POST /api/graphs/{graph}/events, one NDJSON line). */
    const push = async (msg) => {
      const r = await fetch(`${h.base}/api/graphs/${live}/events`, { method: "POST", headers: h.auth, body: `${JSON.stringify(msg)}\n` });
      if (!r.ok) throw new Error(`push: HTTP ${r.status} ${await r.text()}`);
    };
    await push(explain(q, ["Question", "AgentQuestion"], (id) => [
      triple(id, `${TG}query`, lit("Which motion failed?")), triple(id, `${PROV}startedAtTime`, lit("2025-10-15T10:00:00Z"))]));
    await h.open(`/?graph=${live}`);
    const tab = page.getByTestId("tab-reasoning");
    await until(() => tab.isVisible(), { what: "the Reasoning tab offered" });
    await tab.click();
    await page.locator(`[data-testid="session-row"][data-session="${q}"]`).click();
    await until(async () => (await steps()).length === 1, { what: "the question alone" });
    assert.equal(await page.getByTestId("reasoning-status").getAttribute("data-status"), "running");
    const latest = async () => (await steps()).find((s) => s.latest)?.id ?? null;
    const i1 = `${q}/i1`, obs = `${q}/i1/observation`, fin = `${q}/final`;
    await push(explain(i1, ["Analysis", "ToolUse"], (id) => [
      triple(id, LABEL, lit("Analysis: transcript-search")), triple(id, `${TG}action`, lit("transcript-search")),
      triple(id, `${TG}arguments`, lit('{"query":"motion failed"}')), triple(id, `${PROV}wasDerivedFrom`, iri(q))]));
    await until(async () => (await latest()) === i1, { what: "the tool step arrived, marked latest" });
    assert.deepEqual((await steps()).map((s) => s.id), [q, i1]);
    await artifact(page, "reasoning-live.png");
    await push(explain(obs, ["Observation"], (id) => [triple(id, `${PROV}wasDerivedFrom`, iri(i1)), triple(id, `${TG}toolDurationMs`, lit("90"))]));
    await until(async () => (await latest()) === obs, { what: "the observation arrived, marked latest" });
    await push(explain(fin, ["Conclusion", "Answer"], (id) => [triple(id, `${PROV}wasDerivedFrom`, iri(obs))]));
    await until(async () => (await page.getByTestId("reasoning-status").getAttribute("data-status")) === "answered", { what: "the session answered" });
    assert.deepEqual((await steps()).map((s) => s.id), [q, i1, obs, fin]);
    assert.equal(await page.locator(`[data-testid="session-row"][data-session="${q}"]`).getAttribute("data-status"), "answered", "the list follows");
    assert.deepEqual(h.errors, [], "no page errors");
  });
});
