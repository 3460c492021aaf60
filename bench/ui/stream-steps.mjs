// The server's side of a live pass, step by step: `provex serve` logs each batch it writes
// ("batch written", target provex::write_path, at debug level: the log append when it takes a
// round trip of its own, the graph write, the publish to the live stream with the view's
// layout, and the whole batch), and this reads those lines back from the server's output so
// the event → pixels pass can say which server step a slower run spends its time in.

/** The `PROVEX_LOG` directive that turns the lines on. */
export const STEPS_LOG = "provex::write_path=debug";

const ANSI = /\x1b\[[0-9;]*m/g;
const FIELDS = ["events", "nodes", "log_ms", "write_ms", "publish_ms", "total_ms"];

/** The batches of `graph` in server output `text`: one object of FIELDS per batch. */
export function parseSteps(text, graph) {
  const out = [];
  for (const raw of text.split("\n")) {
    const line = raw.replace(ANSI, "");
    if (!line.includes("batch written")) continue;
    const g = /graph="?([^"\s]+)"?/.exec(line)?.[1];
    if (graph && g !== graph) continue;
    const b = {};
    for (const f of FIELDS) {
      const m = new RegExp(`\\b${f}=([0-9.]+)`).exec(line);
      b[f] = m ? Number(m[1]) : NaN;
    }
    out.push(b);
  }
  return out;
}

/** The server output from `logs` (the harness's array of chunks) from chunk `from` on. */
export function logsSince(logs, from) {
  return logs.slice(from).join("");
}

/** p50 / p95 / max of each step over `batches` (`summary` is run.mjs's). */
export function summariseSteps(batches, summary) {
  const r = { batches: batches.length, events: batches.reduce((a, b) => a + (b.events || 0), 0) };
  for (const f of ["log_ms", "write_ms", "publish_ms", "total_ms", "events"]) {
    r[f.replace(/_ms$/, "")] = summary(batches.map((b) => b[f]).filter(Number.isFinite));
  }
  return r;
}
