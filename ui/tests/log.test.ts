// The tamper-evident log in the browser: the RFC 9162 inclusion check against the RFC 6962
// test vectors Certificate Transparency uses (the same ones tests/it/tlog_proofs.rs checks the
// server's tree with), forged proofs failing, the leaf and digest as docs/FORMATS.md defines
// them, a checkpoint's Ed25519 signed note checked with WebCrypto, and the banner and log line.

import fc from "fast-check";
import { beforeAll, describe, expect, it, vi } from "vitest";
import type { LogInclusion, LogStatus, Trail } from "../src/api/contract";
import { trailLogBadge } from "../src/log/trail-badge";
import { LogBanner, SETTLE_MS } from "../src/log/log-banner";
import { LogLine } from "../src/log/log-line";
import {
  fromBase64, leafHash, parseCheckpoint, parseNote, parseVerifierKey, propsDigest, rootFromInclusion, toHex, verifyInclusion, verifyNode,
} from "../src/log/verify";

// An independent RFC 9162 §2.1 tree (MTH and PATH written here from the RFC).
async function H(...parts: Uint8Array[]): Promise<Uint8Array> {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  parts.reduce((at, p) => (all.set(p, at), at + p.length), 0);
  return new Uint8Array(await crypto.subtle.digest("SHA-256", all));
}
const leafOf = (d: Uint8Array) => H(Uint8Array.of(0), d);
const split = (n: number) => 2 ** Math.floor(Math.log2(n - 1));
async function mth(leaves: Uint8Array[]): Promise<Uint8Array> {
  if (leaves.length === 0) return H();
  if (leaves.length === 1) return leaves[0];
  const k = split(leaves.length);
  return H(Uint8Array.of(1), await mth(leaves.slice(0, k)), await mth(leaves.slice(k)));
}
/** RFC 9162 §2.1.3.1 PATH(m, D[n]). */
async function auditPath(m: number, leaves: Uint8Array[]): Promise<Uint8Array[]> {
  if (leaves.length <= 1) return [];
  const k = split(leaves.length);
  return m < k ? [...await auditPath(m, leaves.slice(0, k)), await mth(leaves.slice(k))] : [...await auditPath(m - k, leaves.slice(k)), await mth(leaves.slice(0, k))];
}
const hex = (s: string) => Uint8Array.from(s.match(/../g) ?? [], (b) => parseInt(b, 16));
const b64 = (b: Uint8Array) => btoa(String.fromCharCode(...b));

const VECTOR_DATA = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"]
  .map(hex);
const VECTOR_ROOTS = [
  "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
  "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
  "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
  "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
  "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
  "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
  "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
  "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
];

describe("RFC 9162 inclusion proofs in the browser", () => {
  let leaves: Uint8Array[] = [];
  beforeAll(async () => {
    leaves = await Promise.all(VECTOR_DATA.map(leafOf));
  });

  it("every leaf of every RFC 6962 vector tree is proved up to the vector's root", async () => {
    for (let size = 1; size <= 8; size++) {
      const root = hex(VECTOR_ROOTS[size - 1]);
      expect(toHex(await mth(leaves.slice(0, size)))).toBe(VECTOR_ROOTS[size - 1]);
      for (let i = 0; i < size; i++) {
        const path = await auditPath(i, leaves.slice(0, size));
        expect(await verifyInclusion(i, size, leaves[i], path, root), `${i} in ${size}`).toBe(true);
      }
    }
  });

  it("a forged path, index, size or leaf does not hold", async () => {
    const size = 7;
    const root = hex(VECTOR_ROOTS[size - 1]);
    for (let i = 0; i < size; i++) {
      const path = await auditPath(i, leaves.slice(0, size));
      for (let j = 0; j < path.length; j++) {
        const forged = path.map((p) => p.slice());
        forged[j][0] ^= 1;
        expect(await verifyInclusion(i, size, leaves[i], forged, root)).toBe(false);
      }
      expect(await verifyInclusion((i + 1) % size, size, leaves[i], path, root)).toBe(false);
      // At another size (the signed checkpoint binds size and root), the path fails.
      const bigger = hex(VECTOR_ROOTS[size]);
      expect(await verifyInclusion(i, size + 1, leaves[i], path, bigger)).toBe(false);
      expect(await verifyInclusion(i, size, leaves[(i + 1) % size], path, root)).toBe(false);
      expect(await verifyInclusion(i, size, leaves[i], path.slice(1), root)).toBe(false);
      expect(await verifyInclusion(i, size, leaves[i], [...path, leaves[0]], root)).toBe(false);
    }
    expect(await rootFromInclusion(8, 8, leaves[0], [])).toBeNull();
  });

  it("a one-leaf tree's root is its leaf, and a path past the tree is refused", async () => {
    expect(await verifyInclusion(0, 1, leaves[0], [], leaves[0])).toBe(true);
    expect(await verifyInclusion(0, 1, leaves[0], [leaves[1]], leaves[0])).toBe(false);
  });
});

describe("the log's leaf and digest", () => {
  it("a leaf is SHA-256(0x00 || u16 source length || source || u64 ms || line)", async () => {
    // The same entry hashed by Python's hashlib from docs/FORMATS.md's layout.
    expect(toHex(await leafHash("file.jsonl", 1_700_000_000_000, '{"a":1}'))).toBe("ff454ccf6253a47c7cef7d8d7f87af3298dfbd045899a95856c6817f2c964f4b");
  });

  it("a digest is v1:SHA-256 of name NUL json LF per property, then the names", async () => {
    const values = [{ name: "a2ap:document", json: '"{}"' }, { name: "claim_text", json: '"x"' }];
    // Hashed by Python's hashlib.
    const want = "2a30ec44c2be47953f6306f01ca7b07618648101a8659f6f45d49a1b46171006";
    expect(await propsDigest(values)).toBe(`v1:${want}|a2ap:document claim_text`);
  });

  it("a name holding a space or a percent sign is listed escaped, as the server lists it", async () => {
    const digest = await propsDigest([{ name: "otel:a%20b", json: "1" }, { name: "otel:my key", json: '"v"' }]);
    // The list the Rust side writes for the same names (tlog::list_name's unit test).
    expect(digest.split("|")[1]).toBe("otel:a%2520b otel:my%20key");
  });
});

/** A signed note of a checkpoint, as Provex writes one (docs/FORMATS.md). */
async function signedCheckpoint(graph: string, size: number, root: Uint8Array) {
  const keys = await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]) as CryptoKeyPair;
  const pk = new Uint8Array(await crypto.subtle.exportKey("raw", keys.publicKey));
  const name = "provex/test";
  const encoded = new Uint8Array([1, ...pk]);
  const keyHash = (await H(new TextEncoder().encode(`${name}\n`), encoded)).slice(0, 4);
  const vkey = `${name}+${toHex(keyHash)}+${b64(encoded)}`;
  const text = `${name}/${graph}\n${size}\n${b64(root)}\n`;
  const sig = new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, keys.privateKey, new TextEncoder().encode(text)));
  const note = `${text}\n\u2014 ${name} ${b64(new Uint8Array([...keyHash, ...sig]))}\n`;
  return { note, vkey };
}

async function inclusionOf(): Promise<LogInclusion> {
  const lines = ['{"@id":"s1"}', '{"@id":"s2"}', '{"@id":"s3"}'];
  const leaves = await Promise.all(lines.map((l, i) => leafHash("council.jsonl", 1000 + i, l)));
  const root = await mth(leaves);
  const { note, vkey } = await signedCheckpoint("council", 3, root);
  const values = [{ name: "claim_text", json: '"the claim"' }];
  return {
    graph: "council", node: "s2", label: "Statement",
    leaves: [{ index: 1, leaf_hash: b64(leaves[1]), path: (await auditPath(1, leaves)).map(b64) }],
    checkpoint: note, checkpoint_at: 1_764_000_000_000, tree_size: 3, verifier_key: vkey,
    record: { index: 1, source: "council.jsonl", received: 1001, line: lines[1] },
    stored: { digest: await propsDigest(values), values, matches: true },
  };
}

describe("a node's log entry checked in the browser", () => {
  it("parses the signed note, its checkpoint and the verifier key", async () => {
    const inc = await inclusionOf();
    const note = parseNote(inc.checkpoint!)!;
    expect(note.signatures).toHaveLength(1);
    expect(parseCheckpoint(note.text)).toMatchObject({ origin: "provex/test/council", size: 3n });
    expect((await parseVerifierKey(inc.verifier_key))?.name).toBe("provex/test");
    expect(await parseVerifierKey(inc.verifier_key.replace(/\+[0-9a-f]{8}\+/, "+00000000+"))).toBeNull();
    expect(fromBase64("not base64!")).toBeNull();
    // Only canonical base64, as the server decodes it: unused low bits of the last character
    // set (the same bytes otherwise) are refused.
    expect(fromBase64("AQI=")).toEqual(Uint8Array.of(1, 2));
    expect(fromBase64("AQJ=")).toBeNull();
    expect(fromBase64("AQ==")).toEqual(Uint8Array.of(1));
    expect(fromBase64("AR==")).toBeNull();
  });

  it("refuses a note whose signature differs only in the unused bits of its last character", async () => {
    // Found by the property below (a change at 172 by 1 or 2): the signature's last character
    // before its padding, whose two low bits carry nothing.
    const base = await inclusionOf();
    const note = base.checkpoint!;
    const at = note.lastIndexOf("=\n") - 1;
    for (const code of [1, 2]) {
      const changed = note.slice(0, at) + String.fromCharCode(note.charCodeAt(at) ^ code) + note.slice(at + 1);
      expect((await verifyNode({ ...base, checkpoint: changed })).result).toBe("failed");
    }
  });

  it("an untouched node verifies: signature, checkpoint, leaf, inclusion, stored form", async () => {
    const v = await verifyNode(await inclusionOf());
    expect(v.checks.map((c) => [c.what, c.ok])).toEqual([["signature", true], ["checkpoint", true], ["leaf", true], ["inclusion", true], ["stored", true]]);
    expect(v.result).toBe("verified");
  });

  it("a changed checkpoint, line, path or stored property fails, naming what", async () => {
    const base = await inclusionOf();
    const failing = async (inc: LogInclusion) => (await verifyNode(inc)).checks.filter((c) => c.ok === false).map((c) => c.what);
    expect(await failing({ ...base, checkpoint: base.checkpoint!.replace("\n3\n", "\n4\n") })).toEqual(expect.arrayContaining(["signature"]));
    expect(await failing({ ...base, record: { ...base.record!, line: '{"@id":"s2","x":1}' } })).toEqual(["leaf"]);
    const path = [...base.leaves[0].path];
    path[0] = b64(new Uint8Array(32).fill(7));
    expect(await failing({ ...base, leaves: [{ ...base.leaves[0], path }] })).toEqual(["inclusion"]);
    const edited = { ...base.stored!, values: [{ name: "claim_text", json: '"the opposite"' }] };
    expect(await failing({ ...base, stored: edited })).toEqual(["stored"]);
    expect((await verifyNode({ ...base, stored: edited })).result).toBe("failed");
    expect(await failing({ ...base, graph: "other" })).toEqual(["checkpoint"]);
  });

  it("a node that keeps no line is only partly verified: its leaf cannot be rebuilt here", async () => {
    const v = await verifyNode({ ...(await inclusionOf()), record: null });
    expect(v.result).toBe("partial");
    const leaf = v.checks.find((c) => c.what === "leaf")!;
    expect(leaf.ok).toBeNull();
    // Said exactly: what the proof shows, and what was not checked.
    expect(leaf.text).toMatch(/^Not checked: this node does not keep the record it came from/);
    expect(leaf.text).toContain("shows that leaf 1 is in the signed log, not that this node's properties came from that record");
    expect(v.checks.find((c) => c.what === "stored")?.text).toBe("Its stored properties hash to the digest stored with them when its records were written (log_digest).");
  });

  it("a node from no logged record is said to be absent", async () => {
    const base = await inclusionOf();
    expect((await verifyNode({ ...base, leaves: [], checkpoint: null })).result).toBe("absent");
  });

  it("the details line says index and checkpoint time, and Verify says verified", async () => {
    const inc = await inclusionOf();
    const line = new LogLine({ backend: { logInclusion: vi.fn(async () => inc) } });
    await line.show("council", "s2");
    expect(line.el.hidden).toBe(false);
    expect(line.el.textContent).toMatch(/In the log at index 1, checkpoint of \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} \(3 leaves\)/);
    (line.el.querySelector("[data-testid=log-verify]") as HTMLButtonElement).click();
    await vi.waitFor(() => expect(line.el.querySelector("[data-testid=log-result]")?.getAttribute("data-result")).toBe("verified"));
  });
});

describe("the banner when the store disagrees with its log", () => {
  const status = (over: Partial<LogStatus>): LogStatus => ({
    graph: "council", tree_size: 10, checkpoint_size: 10, checkpoint_at: 1, checkpoint_matches: true,
    pending: 0, nodes_checked: 9, complete: true, differing: 0, mismatches: [], ...over,
  });

  it("is hidden for a matching graph and names the differing nodes, listing them on request", async () => {
    let answer = status({});
    const select = vi.fn();
    const banner = new LogBanner({ backend: { logStatus: vi.fn(async () => answer) }, graph: "council", select });
    await banner.check();
    expect(banner.el.hidden).toBe(true);
    answer = status({ differing: 1, mismatches: [{ name: "stmt-1", label: "Statement", leaves: [3], reason: "changed" }] });
    await banner.check();
    expect(banner.el.hidden).toBe(false);
    expect(banner.el.textContent).toContain("1 node of this graph differs");
    const list = banner.el.querySelector("[data-testid=log-banner-list]") as HTMLElement;
    expect(list.hidden).toBe(true);
    (banner.el.querySelector("[data-testid=log-banner-toggle]") as HTMLButtonElement).click();
    expect(list.hidden).toBe(false);
    (list.querySelector("li[data-name=stmt-1] button") as HTMLButtonElement).click();
    expect(select).toHaveBeenCalledWith("stmt-1", { focus: true, from: "panel" });
  });

  it("is hidden while an ingest's records are logged but not yet signed, and says so beside a real difference", async () => {
    let answer = status({ tree_size: 40, checkpoint_size: null, checkpoint_at: null, pending: 40 });
    const banner = new LogBanner({ backend: { logStatus: vi.fn(async () => answer) }, graph: "council", select: vi.fn() });
    await banner.check();
    expect(banner.el.hidden).toBe(true);
    answer = status({ tree_size: 25, pending: 15 });
    await banner.check();
    expect(banner.el.hidden).toBe(true);
    answer = status({ tree_size: 25, pending: 15, differing: 1, mismatches: [{ name: "stmt-1", label: "Statement", leaves: [3], reason: "changed" }] });
    await banner.check();
    expect(banner.el.hidden).toBe(false);
    expect(banner.el.textContent).toContain("1 node of this graph differs");
    expect(banner.el.textContent).toContain("(15 records are being written, not yet signed.)");
    expect(banner.el.textContent).not.toContain("does not extend");
  });

  it("asks a second after a graph is shown, once for graphs switched between meanwhile, then every minute", async () => {
    vi.useFakeTimers();
    try {
      const logStatus = vi.fn(async ({ graph }: { graph: string }) => status({ graph }));
      const host = { backend: { logStatus }, graph: "council" as string | null, select: vi.fn() };
      const banner = new LogBanner(host);
      banner.graphShown(true);
      await vi.advanceTimersByTimeAsync(SETTLE_MS - 1);
      expect(logStatus).not.toHaveBeenCalled();
      await vi.advanceTimersByTimeAsync(1);
      expect(logStatus.mock.calls).toEqual([[{ graph: "council" }]]);
      host.graph = "zoning";
      banner.graphShown(true);
      await vi.advanceTimersByTimeAsync(SETTLE_MS / 2);
      host.graph = "budget";
      banner.graphShown(true);
      await vi.advanceTimersByTimeAsync(SETTLE_MS);
      expect(logStatus.mock.calls.slice(1)).toEqual([[{ graph: "budget" }]]);
      await vi.advanceTimersByTimeAsync(60_000);
      expect(logStatus.mock.calls.slice(2)).toEqual([[{ graph: "budget" }]]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("says when the log no longer extends its checkpoint, and when the check ran out of time", async () => {
    const banner = new LogBanner({ backend: { logStatus: vi.fn(async () => status({ checkpoint_matches: false, complete: false, nodes_checked: 4000 })) }, graph: "council", select: vi.fn() });
    await banner.check();
    expect(banner.el.hidden).toBe(false);
    expect(banner.el.textContent).toContain("does not extend its latest signed checkpoint");
    expect(banner.el.textContent).toContain("Only 4000 nodes were checked");
  });
});

describe("where WebCrypto has no Ed25519", () => {
  it("the signature is said not to be checked, and the rest still is", async () => {
    const inc = await inclusionOf();
    const spy = vi.spyOn(crypto.subtle, "importKey").mockRejectedValue(new DOMException("Algorithm: Unrecognized name", "NotSupportedError"));
    try {
      const v = await verifyNode(inc);
      expect(v.result).toBe("partial");
      const sig = v.checks.find((c) => c.what === "signature")!;
      expect(sig.ok).toBeNull();
      expect(sig.text).toMatch(/^Not checked: this browser's WebCrypto has no Ed25519/);
      expect(v.checks.filter((c) => c.what !== "signature").every((c) => c.ok === true)).toBe(true);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("the log's parsers take anything the server could send", () => {
  it("never throw on arbitrary text, and a changed note never verifies", async () => {
    fc.assert(fc.property(fc.string({ maxLength: 400 }), (s) => {
      parseNote(s);
      parseCheckpoint(s);
      fromBase64(s);
    }));
    await fc.assert(fc.asyncProperty(fc.string({ maxLength: 200 }), async (s) => {
      expect(await parseVerifierKey(s)).toBeNull();
    }), { numRuns: 50 });
    const base = await inclusionOf();
    const note = base.checkpoint!;
    await fc.assert(fc.asyncProperty(fc.nat(note.length - 1), fc.integer({ min: 1, max: 0xffff }), async (at, code) => {
      const changed = note.slice(0, at) + String.fromCharCode(note.charCodeAt(at) ^ code) + note.slice(at + 1);
      fc.pre(changed !== note);
      const v = await verifyNode({ ...base, checkpoint: changed });
      expect(v.result).toBe("failed");
    }), { numRuns: 60 });
    // Deep and huge inputs are plain text to these parsers: no recursion to exhaust.
    expect(parseNote("[".repeat(100_000))).toBeNull();
    expect(parseCheckpoint("9".repeat(1_000_000))).toBeNull();
  });
});

describe("the trail's log badge", () => {
  it("checks the claim and its verifications once, and reuses the check when the trail is redrawn", async () => {
    const inc = await inclusionOf();
    const logInclusion = vi.fn(async () => inc);
    const trail = { statement_id: "s2", verifications: [{ verification_id: "v1" }] } as unknown as Trail;
    const host = { backend: { logInclusion }, graph: "badge-graph" };
    const first = trailLogBadge(host, trail, 1000);
    await vi.waitFor(() => expect(first.dataset.log).toBe("verified"));
    expect(logInclusion).toHaveBeenCalledTimes(2);
    const again = trailLogBadge(host, trail, 2000);
    await vi.waitFor(() => expect(again.dataset.log).toBe("verified"));
    expect(logInclusion).toHaveBeenCalledTimes(2);
    // A minute later it is checked again (an edit made meanwhile is seen).
    logInclusion.mockImplementation(async () => ({ ...inc, stored: { ...inc.stored!, values: [{ name: "claim_text", json: '"changed"' }] } }));
    const later = trailLogBadge(host, trail, 70_000);
    await vi.waitFor(() => expect(later.dataset.log).toBe("failed"));
    expect(later.textContent).toBe("✗ Log check failed");
  });
});
