//! The view API of the synthetic 50,000-node run (warm: laid out once beforehand), asked for
//! again and again for `--seconds`, as the explorer asks (columns, its canvas's size): the time
//! to the response's headers and to its whole body, and the server's own time for the
//! operation (its `Server-Timing: op;dur=…` header). One request at a time, from Node.
//!
//!   PROVEX_BIN=target/release/provex node bench/ui/view-api.mjs [--seconds 15] [--nodes 50000]

import { parseArgs } from "node:util";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const { values: opt } = parseArgs({ options: { seconds: { type: "string", default: "15" }, nodes: { type: "string", default: "50000" } } });
const { startServer } = await import("../../ui/e2e/harness.mjs");
const { tasksFor, writeRun } = await import("./synthetic.mjs");

const scratch = await mkdtemp(join(tmpdir(), "provex-view-api-"));
const server = await startServer();
try {
  const file = join(scratch, "run.jsonl");
  writeRun(file, tasksFor(Number(opt.nodes)));
  await server.cli("ingest", "-g", "viewapi", "--format", "a2a", file);
  const path = "/api/graphs/viewapi/view?columns=true&viewport_width=924&viewport_height=823";
  await server.api(path); // laid out: not timed
  const rows = [];
  const end = Date.now() + Number(opt.seconds) * 1000;
  while (Date.now() < end) {
    const t0 = performance.now();
    const res = await server.api(path, { raw: true });
    const headers = performance.now() - t0;
    const body = await res.text();
    const whole = performance.now() - t0;
    const op = Number(/dur=([\d.]+)/.exec(res.headers.get("server-timing") ?? "")?.[1]);
    rows.push({ headers, whole, op, bytes: body.length });
  }
  const median = (k) => {
    const s = rows.map((r) => r[k]).filter(Number.isFinite).sort((a, b) => a - b);
    return s.length ? s[Math.floor((s.length - 1) / 2)].toFixed(1) : "–";
  };
  console.log(`${rows.length} requests of ${rows[0]?.bytes.toLocaleString("en")} bytes: median to headers ${median("headers")} ms, ` +
    `whole ${median("whole")} ms, server's operation ${median("op")} ms`);
} finally {
  await server.stop();
  await rm(scratch, { recursive: true, force: true });
}
