// The council demo's own views (bench/ui/run.mjs `--only views`): the whole graph fitted
// (where long edges wait for an end to be pointed at, ui/src/canvas/long-edges.ts) and
// "Show on graph" on the zoning chain and on a claim's trail (the subject drawn alone as a
// layered DAG, ui/src/canvas-area/subject.ts): how long from asking to the first frame that
// shows the subject alone, and the same scripted pan + zoom as the 50k pass, with its frame
// cost, in each.

/** `h` gives run.mjs's helpers: newPage, until, runDemo, scriptedPass, log, f1, viewport, seconds. */
export async function councilViews(browser, server, h) {
  const graph = "council";
  await h.runDemo(server, graph);
  const stats = await server.api(`/api/graphs/${graph}/stats`);
  const { context, page } = await h.newPage(browser, { viewport: h.viewport });
  try {
    await page.goto(server.url(`/?graph=${graph}`));
    await page.waitForSelector('html[data-ready="true"]');
    await h.until(() => page.evaluate((n) => window.provex.canvas.stats().nodes === n, stats.nodes), { what: "the council graph drawn" });
    const ms = h.seconds * 1000;
    const out = { nodes: stats.nodes, edges: stats.edges };
    out.whole = await h.scriptedPass(page, ms, 1);
    out.whole.leftOut = await page.evaluate(() => window.provex.canvas.stats().longEdgesLeftOut ?? null);
    h.log(`views: council whole graph fitted ${h.f1(out.whole.fps)} fps (${out.whole.leftOut} long edges left out)`);
    const sessions = await server.api(`/api/graphs/${graph}/sessions`);
    const zoning = sessions.find((s) => /zoning/.test(s.id)) ?? sessions[0];
    const chain = await server.api(`/api/graphs/${graph}/reasoning?id=${encodeURIComponent(zoning.answer)}`);
    const claim = (await server.api(`/api/graphs/${graph}/view`)).nodes.find((n) => n.label === "Statement");
    const trail = await server.api(`/api/graphs/${graph}/trail?statement=${encodeURIComponent(claim.id)}`);
    for (const [name, call, arg] of [["chain", "showChain", chain], ["trail", "showTrail", trail]]) {
      const shown = await page.evaluate(async ({ call, arg }) => {
        const c = window.provex.canvas, app = window.provex.app;
        const before = c.stats().nodes;
        const t0 = performance.now();
        app[call](arg);
        const asked = performance.now() - t0;
        // The first frame after it that draws the subject alone.
        await new Promise((resolve) => {
          const tick = () => (c.stats().nodes < before ? resolve() : requestAnimationFrame(tick));
          requestAnimationFrame(tick);
        });
        const drawn = performance.now() - t0;
        await new Promise((r) => setTimeout(r, 700)); // the move and the camera settle
        return { asked, drawn, nodes: c.stats().nodes, edges: c.stats().edges, direction: document.querySelector('[data-testid="subject-bar"]')?.dataset.direction };
      }, { call, arg });
      const pass = await h.scriptedPass(page, ms, 1);
      out[name] = { ...shown, ...pass };
      h.log(`  Show on graph, ${name}: ${shown.nodes} nodes, first frame ${h.f1(shown.drawn)} ms after asking (${h.f1(shown.asked)} ms in the call); ${h.f1(pass.fps)} fps`);
      await page.evaluate(() => window.provex.app.subject.clear());
      await page.waitForTimeout(700);
    }
    return out;
  } finally {
    await context.close();
  }
}
