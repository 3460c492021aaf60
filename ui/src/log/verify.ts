// Checks, in the browser, that a node is in its graph's tamper-evident log (docs/FORMATS.md,
// "Tamper-evident log"): the checkpoint's Ed25519 signature (C2SP signed-note) with WebCrypto,
// the leaf rebuilt from the line the node keeps, the RFC 9162 §2.1.3.2 inclusion proof up to
// the checkpoint's root, and the node's stored properties against its digest. Nothing here
// trusts the server's own verdicts: every hash is computed with crypto.subtle.

import type { LogInclusion } from "../api/contract";

const enc = new TextEncoder();

export async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    all.set(p, at);
    at += p.length;
  }
  return new Uint8Array(await crypto.subtle.digest("SHA-256", all));
}

/** Standard base64 to bytes; null when it is not base64. */
export function fromBase64(s: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) return null;
  try {
    const bin = atob(s);
    // Canonical only, as the server's decoder: a last character whose unused low bits are
    // set decodes to the same bytes, so a note changed there would still verify.
    if (btoa(bin) !== s) return null;
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

export function toHex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** RFC 9162 §2.1.1: an interior node's hash. */
export function nodeHash(left: Uint8Array, right: Uint8Array): Promise<Uint8Array> {
  return sha256(Uint8Array.of(0x01), left, right);
}

/** The leaf hash of a record as Provex logs it: `SHA-256(0x00 || u16 BE source length ||
 *  source || u64 BE time of receipt (Unix ms) || line)`. */
export function leafHash(source: string, receivedMs: number, line: string): Promise<Uint8Array> {
  const name = enc.encode(source).slice(0, 0xffff);
  const head = new Uint8Array(2 + name.length + 8);
  const view = new DataView(head.buffer);
  view.setUint16(0, name.length);
  head.set(name, 2);
  view.setBigUint64(2 + name.length, BigInt(receivedMs));
  return sha256(Uint8Array.of(0x00), head, enc.encode(line));
}

/** RFC 9162 §2.1.3.2: the root an inclusion proof leads to, or null when the proof cannot
 *  hold at this size (then no root could match). */
export async function rootFromInclusion(index: number | bigint, size: number | bigint, leaf: Uint8Array, path: readonly Uint8Array[]): Promise<Uint8Array | null> {
  let fn = BigInt(index);
  let sn = BigInt(size) - 1n;
  if (fn > sn || fn < 0n) return null;
  let r = leaf;
  for (const p of path) {
    if (sn === 0n) return null;
    if ((fn & 1n) === 1n || fn === sn) {
      r = await nodeHash(p, r);
      if ((fn & 1n) === 0n) {
        while ((fn & 1n) === 0n && fn !== 0n) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      r = await nodeHash(r, p);
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n ? r : null;
}

/** Whether `path` proves leaf `index` in the tree of `size` leaves with root `root`. */
export async function verifyInclusion(index: number | bigint, size: number | bigint, leaf: Uint8Array, path: readonly Uint8Array[], root: Uint8Array): Promise<boolean> {
  const r = await rootFromInclusion(index, size, leaf, path);
  return r !== null && sameBytes(r, root);
}

/** A C2SP signed note split into its text (ending in a newline) and signature lines. */
export interface SignedNote {
  text: string;
  signatures: Array<{ name: string; keyHash: Uint8Array; signature: Uint8Array }>;
}

export function parseNote(note: string): SignedNote | null {
  const cut = note.lastIndexOf("\n\n");
  if (cut < 0) return null;
  const text = note.slice(0, cut + 1);
  const signatures: SignedNote["signatures"] = [];
  for (const line of note.slice(cut + 2).split("\n")) {
    if (line === "") continue;
    const m = /^\u2014 (\S+) (\S+)$/.exec(line);
    const raw = m ? fromBase64(m[2]) : null;
    if (!m || !raw || raw.length < 5) return null;
    signatures.push({ name: m[1], keyHash: raw.slice(0, 4), signature: raw.slice(4) });
  }
  return { text, signatures };
}

/** A C2SP tlog-checkpoint body: origin, tree size, root hash. */
export interface Checkpoint {
  origin: string;
  size: bigint;
  root: Uint8Array;
}

export function parseCheckpoint(text: string): Checkpoint | null {
  const lines = text.split("\n");
  if (lines.length < 4 || !/^[0-9]{1,20}$/.test(lines[1])) return null;
  const root = fromBase64(lines[2]);
  if (!root || root.length !== 32) return null;
  return { origin: lines[0], size: BigInt(lines[1]), root };
}

/** A signed-note Ed25519 verifier key `<name>+<key hash hex>+<base64 of 0x01 || key>`. */
export interface VerifierKey {
  name: string;
  keyHash: Uint8Array;
  publicKey: Uint8Array;
}

export async function parseVerifierKey(vkey: string): Promise<VerifierKey | null> {
  // The name holds no "+"; the base64 key may.
  const m = /^([^+]+)\+([0-9a-f]{8})\+(.+)$/.exec(vkey.trim());
  if (!m) return null;
  const parts = [m[1], m[2], m[3]];
  const encoded = fromBase64(parts[2]);
  if (!encoded || encoded.length !== 33 || encoded[0] !== 0x01) return null;
  // The key hash is the first four bytes of SHA-256(name || "\n" || 0x01 || key).
  const hash = (await sha256(enc.encode(`${parts[0]}\n`), encoded)).slice(0, 4);
  if (toHex(hash) !== parts[1]) return null;
  return { name: parts[0], keyHash: hash, publicKey: encoded.slice(1) };
}

/** Checks an Ed25519 signature with WebCrypto: true or false, or null when this browser's
 *  WebCrypto has no Ed25519 (then nothing was said about the signature). */
export async function ed25519Verify(publicKey: Uint8Array, signature: Uint8Array, message: Uint8Array): Promise<boolean | null> {
  let key: CryptoKey;
  try {
    key = await crypto.subtle.importKey("raw", buffer(publicKey), { name: "Ed25519" }, false, ["verify"]);
  } catch (e) {
    if (e instanceof DOMException && e.name === "DataError") return false;
    return null;
  }
  try {
    return await crypto.subtle.verify({ name: "Ed25519" }, key, buffer(signature), buffer(message));
  } catch {
    return false;
  }
}

/** The bytes in an ArrayBuffer of their own (WebCrypto takes no shared buffer). */
function buffer(b: Uint8Array): Uint8Array<ArrayBuffer> {
  const copy = new Uint8Array(b.length);
  copy.set(b);
  return copy;
}

/** The digest of a node's stored properties as docs/FORMATS.md defines it. */
export async function propsDigest(values: ReadonlyArray<{ name: string; json: string }>): Promise<string> {
  const parts = values.map((v) => enc.encode(`${v.name}\u0000${v.json}\n`));
  return `v1:${toHex(await sha256(...parts))}|${values.map((v) => listName(v.name)).join(" ")}`;
}

/** A property name as a digest's list writes it: `%` as `%25`, a space as `%20`. */
export function listName(name: string): string {
  return name.replaceAll("%", "%25").replaceAll(" ", "%20");
}

/** One thing checked: true (holds), false (fails) or null (could not be checked here). */
export interface Check {
  what: "signature" | "checkpoint" | "leaf" | "inclusion" | "stored";
  ok: boolean | null;
  text: string;
}

export interface Verdict {
  /** verified: every check held; failed: one failed; partial: none failed, some not checked. */
  result: "verified" | "failed" | "partial" | "absent";
  checks: Check[];
}

/** Checks everything a node's log entry claims, in the browser. */
export async function verifyNode(inc: LogInclusion): Promise<Verdict> {
  const checks: Check[] = [];
  const add = (what: Check["what"], ok: boolean | null, text: string) => checks.push({ what, ok, text });
  if (inc.leaves.length === 0 || !inc.checkpoint) {
    return { result: "absent", checks: [{ what: "inclusion", ok: null, text: "This node came from no logged record." }] };
  }
  const note = parseNote(inc.checkpoint);
  const cp = note ? parseCheckpoint(note.text) : null;
  const key = await parseVerifierKey(inc.verifier_key);
  if (!note || !cp) {
    add("checkpoint", false, "The checkpoint is not a signed tlog checkpoint.");
    return finish(checks);
  }
  // The signature by the instance's key over the note's text.
  if (!key) {
    add("signature", false, "The instance's verifier key is malformed (its key hash does not match).");
  } else {
    const sig = note.signatures.find((s) => s.name === key.name && sameBytes(s.keyHash, key.keyHash));
    if (!sig) add("signature", false, `The checkpoint carries no signature by ${key.name}.`);
    else {
      const ok = await ed25519Verify(key.publicKey, sig.signature, enc.encode(note.text));
      add("signature", ok, ok === null
        ? "Not checked: this browser's WebCrypto has no Ed25519. The proof below holds only if the checkpoint is genuine."
        : ok ? `Ed25519 signature by ${key.name} holds (WebCrypto).` : `The Ed25519 signature by ${key.name} does not hold.`);
    }
  }
  const originOk = key !== null && cp.origin === `${key.name}/${inc.graph}`;
  add("checkpoint", originOk && cp.size === BigInt(inc.tree_size),
    originOk ? `Checkpoint of ${cp.size} leaves of log ${cp.origin}.` : `The checkpoint is of log ${cp.origin}, not of this graph's.`);
  // The leaf rebuilt from the line the node keeps.
  const rec = inc.record;
  if (rec) {
    const rebuilt = await leafHash(rec.source, rec.received, rec.line);
    const proven = inc.leaves.find((l) => l.index === rec.index);
    const stated = proven ? fromBase64(proven.leaf_hash) : null;
    add("leaf", stated !== null && sameBytes(rebuilt, stated), stated !== null && sameBytes(rebuilt, stated)
      ? `Its line (from ${rec.source}) hashes to leaf ${rec.index}.`
      : `Its line no longer hashes to leaf ${rec.index}.`);
  } else {
    // Only statements keep the line they came in on; the log keeps hashes, not records, so
    // nothing the server answers rebuilds the leaf of another node.
    const at = inc.leaves.map((l) => l.index).join(", ");
    add("leaf", null, `Not checked: this node does not keep the record it came from (only statements keep their line), so its leaf was not rebuilt here. The proof below shows that leaf ${at} is in the signed log, not that this node's properties came from ${inc.leaves.length === 1 ? "that record" : "those records"}.`);
  }
  for (const l of inc.leaves) {
    const leaf = fromBase64(l.leaf_hash);
    const path = l.path.map(fromBase64);
    const ok = leaf !== null && leaf.length === 32 && path.every((p) => p !== null && p.length === 32) &&
      await verifyInclusion(l.index, cp.size, leaf, path as Uint8Array[], cp.root);
    add("inclusion", ok, ok ? `Leaf ${l.index} is in the checkpoint's tree (RFC 9162 inclusion proof, ${l.path.length} hashes).`
      : `The inclusion proof of leaf ${l.index} does not lead to the checkpoint's root.`);
  }
  if (inc.stored) {
    const again = await propsDigest(inc.stored.values);
    const ok = again === inc.stored.digest;
    add("stored", ok, ok ? "Its stored properties hash to the digest stored with them when its records were written (log_digest)."
      : `Its stored properties no longer hash to what its records gave them: one of ${inc.stored.values.map((v) => v.name).join(", ")} was changed in the database.`);
  }
  return finish(checks);
}

function finish(checks: Check[]): Verdict {
  const result = checks.some((c) => c.ok === false) ? "failed" : checks.some((c) => c.ok === null) ? "partial" : "verified";
  return { result, checks };
}
