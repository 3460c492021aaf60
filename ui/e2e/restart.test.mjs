// The database dies under an open page: `provex serve`'s private FalkorDB is killed with
// SIGKILL while a graph is open and live. The status bar says "Database restarting…" while
// Provex starts it again, then "Live"; records sent after it arrive over the same stream,
// none lost and none twice.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { artifact, errorToasts, start, statusCounts, until } from "./harness.mjs";

const GRAPH = "restart";

function booted(from, to) {
  let body = "";
  for (let i = from; i < to; i++) {
    body += JSON.stringify({ Global: { id: `e${i}`, context_id: "c", timestamp_ms: i, data: { AgentBooted: { agent_id: `agent-${i}`, agent_type: "clerk", agent_version: "1", archive_path: "p" } } } }) + "\n";
  }
  return body;
}

describe("the database restarting under an open page", { timeout: 120_000 }, () => {
  let h;
  let page;

  before(async () => {
    h = await start();
    page = h.page;
  });

  after(async () => {
    await h?.stop();
  });

  async function push(from, to) {
    const res = await fetch(`${h.base}/api/graphs/${GRAPH}/events`, {
      method: "POST",
      headers: { ...h.auth, "Content-Type": "application/x-ndjson" },
      body: booted(from, to),
    });
    const text = await res.text();
    assert.equal(res.status, 200, text);
    return JSON.parse(text);
  }

  const serverPid = () => Number(readFileSync(join(h.dataDir, "falkordb", "server.pid"), "utf8"));
  const streamText = () => page.getByTestId("stream-state").textContent();

  it("says the database is restarting, then goes on without losing or doubling records", async () => {
    await push(0, 20);
    await h.open(`/?graph=${GRAPH}`);
    await until(async () => (await page.getByTestId("stream-state").getAttribute("data-state")) === "open", { what: "the stream open" });
    await until(async () => (await statusCounts(page)).nodes >= 20, { what: "20 nodes" });
    const countsBefore = await statusCounts(page);

    // Every text the stream's status shows from now on, with the page's time.
    await page.evaluate(() => {
      const el = document.querySelector('[data-testid="stream-state"]');
      window.__states = [];
      new MutationObserver(() => window.__states.push({ text: el.textContent, state: el.dataset.state, title: el.title, at: performance.now() }))
        .observe(el, { childList: true, characterData: true, subtree: true, attributes: true });
    });

    // Kill the database; catch the status while it lasts. Provex starts the server again
    // after a fifth of a second, so once the page shows the status, `provex serve` is
    // paused (SIGSTOP) for the screenshot, then let go (SIGCONT). If the restart was over
    // before the pause, kill it again.
    let shot = null;
    const killed = [];
    for (let round = 0; round < 4 && !shot; round++) {
      const pid = serverPid();
      process.kill(pid, "SIGKILL");
      killed.push(pid);
      await page.waitForFunction(() => document.querySelector('[data-testid="stream-state"]')?.textContent === "Database restarting…", null, { timeout: 30_000, polling: "raf" });
      process.kill(h.child.pid, "SIGSTOP");
      try {
        const still = await page.evaluate(() => document.querySelector('[data-testid="stream-state"]').textContent);
        if (still === "Database restarting…") {
          shot = await artifact(page, "database-restarting.png", page.locator(".statusbar"));
          await artifact(page, "database-restarting-page.png");
        }
      } finally {
        process.kill(h.child.pid, "SIGCONT");
      }
      await until(async () => (await streamText()) === "Live", { ms: 30_000, what: "the stream live again" });
      await until(() => serverPid() !== pid, { what: "a new server" });
    }
    assert.ok(shot, "the status was caught on screen");

    const states = await page.evaluate(() => window.__states);
    const restarting = states.find((s) => s.text === "Database restarting…");
    assert.ok(restarting, JSON.stringify(states));
    assert.equal(restarting.state, "reconnecting");
    assert.match(restarting.title, /the private FalkorDB server \(pid \d+\) stopped: killed by signal 9 \(SIGKILL\)/);
    const back = states.findIndex((s, i) => i > states.indexOf(restarting) && s.text === "Live");
    assert.ok(back > 0, JSON.stringify(states));

    // Nothing reloaded, nothing lost: the same stream goes on with the next records.
    // 30 agents booted: an agent and its boot each.
    await push(20, 50);
    await until(async () => (await statusCounts(page)).nodes >= countsBefore.nodes + 60, { what: "the new nodes" });
    await page.waitForTimeout(300);
    const after = await statusCounts(page);
    const ids = await page.evaluate(() => [...window.provex.model.nodes.keys()]);
    assert.equal(new Set(ids).size, ids.length, "no node twice");
    assert.equal(after.nodes, countsBefore.nodes + 60);
    assert.deepEqual(await errorToasts(page), []);
    assert.ok(killed.length >= 1);
  });

  it("the database kept what it acknowledged: the page and the database agree", async () => {
    const shown = await statusCounts(page);
    const stats = await h.api(`/api/graphs/${GRAPH}/stats`);
    assert.equal(shown.nodes, stats.nodes, `${shown.text} vs ${JSON.stringify(stats)}`);
  });
});
