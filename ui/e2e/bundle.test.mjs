// An audit bundle opened in the explorer (Ingest → Upload a file) in Chromium, against a real
// `provex serve`: the notice above the graph shows the verdict `provex verify FILE` prints and
// the signer's key fingerprint, word for word, for a genuine bundle (not pinned: the explorer
// has no trust file), a forged one (one VALIDATED verification left out, re-signed by a new
// key under the exporter's name and key id: not pinned, with its own fingerprint, and failing
// `provex verify --trust`), and a tampered one (failed, with the reason). The bundles are made
// with the CLI from the council demo; nothing expected is hard-coded. From the moment a bundle
// is uploaded until its verdict shows, the notice never shows another graph's verdict than the
// one the graph picker names (a graph opened before, a late answer).

import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { copyFile, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { PROVEX, ROOT, screenshot as saveScreenshot, start, until } from "./harness.mjs";

const run = promisify(execFile);
const EXPORTER = "urn:agent:auditor";
const KEY_ID = "exporter-1";

describe("an audit bundle opened in the explorer", { timeout: 240_000 }, () => {
  let h;
  let page;
  let dir;
  const paths = {};

  /** `provex verify ARGS… --format json`, whatever its exit code: { code, json }. */
  async function verify(...args) {
    try {
      const { stdout } = await run(PROVEX, ["verify", ...args, "--format", "json"], { cwd: ROOT });
      return { code: 0, json: JSON.parse(stdout) };
    } catch (e) {
      if (typeof e.code !== "number") throw e;
      return { code: e.code, json: JSON.parse(e.stdout), stderr: e.stderr };
    }
  }

  /** A bundle of every statement of an A2AP file, ingested with the demo's keys and signed. */
  async function makeBundle(name, a2ap, keyFile) {
    const graph = `src_${name}`;
    await h.cli("ingest", "--graph", graph, a2ap, "--keys", join(dir, "council-keys.json"));
    const out = join(dir, `${name}.jsonld`);
    await h.cli("bundle", "--graph", graph, "--all", "--out", out, "--sign", keyFile);
    return out;
  }

  before(async () => {
    h = await start();
    page = h.page;
    dir = await mkdtemp(join(tmpdir(), "provex-bundle-e2e-"));
    await h.cli("demo", "council", "--out", dir);
    const a2ap = join(dir, "council-a2ap.jsonl");
    const genuineKey = join(dir, "exporter.key");
    const forgerKey = join(dir, "forger.key");
    await h.cli("keys", "generate", "--id", KEY_ID, "--agent", EXPORTER, "--out", genuineKey);
    await h.cli("keys", "generate", "--id", KEY_ID, "--agent", EXPORTER, "--out", forgerKey);
    paths.genuine = await makeBundle("genuine", a2ap, genuineKey);
    // The forgery: the same documents but one VALIDATED verification, signed by a new key
    // under the same agent name and key id.
    const lines = (await readFile(a2ap, "utf8")).split("\n").filter(Boolean);
    const left = lines.findIndex((l) => {
      const d = JSON.parse(l);
      return d["@type"] === "a2ap:VerificationResponse" && d.verdict === "VALIDATED";
    });
    assert.ok(left >= 0, "the demo validates some statement");
    const forgedA2ap = join(dir, "forged-a2ap.jsonl");
    await writeFile(forgedA2ap, lines.filter((_, i) => i !== left).join("\n") + "\n");
    paths.forged = await makeBundle("forged", forgedA2ap, forgerKey);
    // Tampered: a claim's words changed after signing.
    const b = JSON.parse(await readFile(paths.genuine, "utf8"));
    const st = b["provex:documents"].find((d) => d.claim);
    st.claim.text = st.claim.text.replace(/\bcouncil\b/, "mayor") + " (edited)";
    paths.tampered = join(dir, "tampered.jsonld");
    await writeFile(paths.tampered, JSON.stringify(b, null, 2) + "\n");
    // The auditor's trust file: the demo agents' registry and the genuine exporter's key.
    paths.trust = join(dir, "trust.json");
    await copyFile(join(dir, "council-keys.json"), paths.trust);
    await h.cli("keys", "add", genuineKey, "--registry", paths.trust);
  });

  after(async () => {
    await h?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The graphs opened from a bundle so far: graph → the bundle node's headline. */
  const headlines = new Map();

  /** Records, every frame and on every change of the page, which graph the picker names and
   *  what bundle verdict the notice shows, until `stopNoticeLog` (in the page). */
  async function startNoticeLog() {
    await page.evaluate(() => {
      const log = [];
      const read = () => {
        const picker = document.querySelector('[data-testid="graph-picker"]');
        const notice = document.querySelector('[data-testid="notice"]');
        const headline = document.querySelector('[data-testid="bundle-headline"]');
        const shown = !!notice && !notice.hidden && !!headline && headline.isConnected;
        const entry = { graph: picker?.value ?? null, headline: shown ? headline.textContent.trim() : null };
        const last = log[log.length - 1];
        if (!last || last.graph !== entry.graph || last.headline !== entry.headline) log.push(entry);
      };
      const observer = new MutationObserver(read);
      observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
      let on = true;
      const frame = () => { read(); if (on) requestAnimationFrame(frame); };
      frame();
      window.__noticeLog = { log, stop: () => { on = false; observer.disconnect(); return log; } };
    });
  }

  /** Uploads a bundle into a new graph through the Ingest menu; returns the notice's facts.
   *  From the moment the upload starts, the notice never shows a verdict about another graph
   *  than the one the graph picker names. */
  async function openBundle(file, graph) {
    await h.open("/");
    await startNoticeLog();
    await page.getByTestId("ingest-menu").click();
    await page.getByTestId("ingest-graph").fill(graph);
    await page.getByTestId("upload-input").setInputFiles(file);
    await until(async () => (await page.getByTestId("graph-picker").inputValue()) === graph, { ms: 30_000, what: `graph ${graph} opened` });
    const verdict = page.getByTestId("bundle-verdict");
    await until(() => verdict.isVisible(), { ms: 20_000, what: "the bundle's verdict shown" });
    const node = await h.api(`/api/graphs/${graph}/node?id=${encodeURIComponent(`audit bundle of src_${file.includes("forged") ? "forged" : "genuine"}`)}`);
    headlines.set(graph, node.properties.headline);
    await until(async () => (await page.getByTestId("bundle-headline").textContent())?.trim() === node.properties.headline,
      { ms: 20_000, what: `the notice shows ${graph}'s bundle` });
    const log = await page.evaluate(() => window.__noticeLog.stop());
    assert.ok(log.some((e) => e.graph === graph && e.headline === node.properties.headline), JSON.stringify(log));
    for (const e of log) {
      if (e.headline === null) continue;
      assert.equal(e.headline, headlines.get(e.graph), `with ${e.graph} open the notice showed “${e.headline}” (${JSON.stringify(log)})`);
    }
    assert.equal(await page.getByTestId("notice").getAttribute("data-graph"), graph);
    return {
      verdict: await verdict.getAttribute("data-verdict"),
      word: (await verdict.textContent())?.trim(),
      headline: (await page.getByTestId("bundle-headline").textContent())?.trim(),
      fingerprint: (await page.getByTestId("bundle-fingerprint").count()) > 0
        ? (await page.getByTestId("bundle-fingerprint").textContent())?.trim()
        : null,
      text: (await page.getByTestId("notice-text").textContent()) ?? "",
    };
  }

  /** The opened bundle's node as the API gives it. */
  async function bundleNode(graph, source) {
    return h.api(`/api/graphs/${graph}/node?id=${encodeURIComponent(`audit bundle of ${source}`)}`);
  }

  it("a genuine bundle: not pinned, with the signer's fingerprint, as the CLI says", async () => {
    const cli = await verify(paths.genuine);
    assert.equal(cli.code, 0);
    assert.equal(cli.json.trust, "not_pinned");
    const shown = await openBundle(paths.genuine, "genuine_bundle");
    assert.equal(shown.verdict, "not_pinned");
    assert.equal(shown.word, "Not pinned");
    assert.equal(shown.headline, cli.json.headline);
    assert.match(shown.headline, /^signature valid, signer not pinned: urn:agent:auditor \(key exporter-1\) SHA256:/);
    assert.equal(shown.fingerprint, cli.json.signer.fingerprint);
    assert.doesNotMatch(shown.text, /\btrusted\b/i, "never called trusted");
    const node = await bundleNode("genuine_bundle", "src_genuine");
    assert.equal(node.properties.verdict, "not_pinned");
    assert.equal(node.properties.fingerprint, cli.json.signer.fingerprint);
    // The auditor's trust file pins it.
    const pinned = await verify(paths.genuine, "--trust", paths.trust);
    assert.equal(pinned.code, 0);
    assert.equal(pinned.json.trust, "pinned");
    await saveScreenshot(page, "bundle-not-pinned.png");
  });

  it("a forged bundle: its own fingerprint, not pinned; the trust file makes it fail", async () => {
    const genuine = await verify(paths.genuine);
    const cli = await verify(paths.forged);
    assert.equal(cli.code, 0);
    assert.notEqual(cli.json.signer.fingerprint, genuine.json.signer.fingerprint);
    const shown = await openBundle(paths.forged, "forged_bundle");
    assert.equal(shown.verdict, "not_pinned");
    assert.equal(shown.headline, cli.json.headline);
    assert.equal(shown.fingerprint, cli.json.signer.fingerprint);
    assert.notEqual(shown.fingerprint, genuine.json.signer.fingerprint, "the forger's key shows as another fingerprint");
    const trusted = await verify(paths.forged, "--trust", paths.trust);
    assert.equal(trusted.code, 1, trusted.stderr);
    assert.equal(trusted.json.trust, "failed");
    assert.equal(trusted.json.reason, `not in the trust file: ${EXPORTER} (key ${KEY_ID}) ${shown.fingerprint}`);
    await saveScreenshot(page, "bundle-forged.png");
  });

  it("a tampered bundle: failed, with the reason", async () => {
    const cli = await verify(paths.tampered);
    assert.equal(cli.code, 1);
    assert.equal(cli.json.trust, "failed");
    const shown = await openBundle(paths.tampered, "tampered_bundle");
    assert.equal(shown.verdict, "failed");
    assert.equal(shown.word, "Failed");
    assert.equal(shown.headline, cli.json.headline);
    assert.match(shown.headline, /^verification failed: /);
    await saveScreenshot(page, "bundle-failed.png");
  });
});
