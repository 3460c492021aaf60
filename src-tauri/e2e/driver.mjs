// Plain WebDriver over fetch, for driving the desktop app through tauri-driver: the
// real-window test (window.test.mjs) and the desktop benchmarks (bench/desktop) share it.

import net from "node:net";

/** A TCP port nobody is listening on right now. */
export function freePort() {
  return new Promise((res, rej) => {
    const s = net.createServer();
    s.on("error", rej);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => res(port));
    });
  });
}

/** One WebDriver call; throws with the driver's error on failure. */
export async function wd(base, method, path, body) {
  const r = await fetch(base + path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await r.json();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json.value ?? json)}`);
  return json.value;
}

/** Runs async `fn(...args)` in the page of session `sid`; its result, or its error thrown. */
export function runIn(base, sid, fn, ...args) {
  return wd(base, "POST", `/session/${sid}/execute/async`, {
    script: `const done = arguments[arguments.length - 1]; (${fn})(...Array.from(arguments).slice(0, -1)).then((v) => done({ ok: v }), (e) => done({ err: String(e && (e.code ? e.code + ": " : "") + (e.message ?? e)) }));`,
    args,
  }).then((r) => {
    if (r && r.err) throw new Error(r.err);
    return r.ok;
  });
}
