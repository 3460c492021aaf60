// Evidence byte ranges (UTF-8) to string indices, checked against the council example.

import { describe, expect, it } from "vitest";
import { byteRangeToIndices, byteToIndex, sliceBytes } from "../src/trail/utf8";
import { councilFile } from "./helpers";

const a2ap = await councilFile("council-a2ap.jsonl");
const transcript = await councilFile("council-transcript.txt");

const encoder = new TextEncoder();

describe("UTF-8 byte offsets to string indices", () => {
  it("counts an em dash as three bytes and one index", () => {
    const text = "A — B";
    // "A " = 2 bytes, "—" = 3 bytes, " B" = 2 bytes.
    expect(byteToIndex(text, 2)).toBe(2);
    expect(byteToIndex(text, 5)).toBe(3);
    expect(byteToIndex(text, 7)).toBe(5);
    expect(sliceBytes(text, { start: 5, end: 7 })).toBe(" B");
  });

  it("counts an emoji as four bytes and two indices", () => {
    const text = "x🙂y";
    expect(byteToIndex(text, 1)).toBe(1);
    expect(byteToIndex(text, 5)).toBe(3);
    expect(sliceBytes(text, { start: 1, end: 5 })).toBe("🙂");
    expect(sliceBytes(text, { start: 5, end: 6 })).toBe("y");
  });

  it("handles two-byte characters", () => {
    const text = "café au lait";
    expect(sliceBytes(text, { start: 6, end: 8 })).toBe("au");
  });

  it("maps an offset inside a character to its start, and past the end to the length", () => {
    const text = "a—b";
    expect(byteToIndex(text, 2)).toBe(1); // inside the dash
    expect(byteToIndex(text, 100)).toBe(3);
    expect(byteToIndex(text, 0)).toBe(0);
    expect(byteRangeToIndices(text, { start: 4, end: 2 })).toEqual({ start: 2, end: 2 });
  });

  it("agrees with TextEncoder at every character boundary of the council transcript", () => {
    let bytes = 0;
    for (let i = 0; i <= transcript.length; ) {
      expect(byteToIndex(transcript, bytes)).toBe(i);
      if (i === transcript.length) break;
      const cp = transcript.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      bytes += encoder.encode(ch).length;
      i += ch.length;
    }
    expect(encoder.encode(transcript).length).toBeGreaterThan(transcript.length); // it has em dashes
  });

  it("finds every council evidence quote at its byte range, except the one altered after signing", () => {
    const records = a2ap.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>);
    const doc = records.find((r) => r["@type"] === "a2ap:SourceDocument") as { text: string };
    expect(doc.text).toBe(transcript);
    type Ev = { byteRange: { start: number; end: number }; quoteText: string };
    const evidence = records
      .filter((r) => r["@type"] === "a2ap:ProvenanceStatement")
      .flatMap((r) => r.evidence as Ev[]);
    const mismatched = evidence.filter((e) => sliceBytes(doc.text, e.byteRange) !== e.quoteText);
    expect(evidence.length).toBeGreaterThan(8);
    // The demo alters one quote on purpose; everything else must line up exactly.
    expect(mismatched).toHaveLength(1);
    expect(mismatched[0].quoteText).toContain("Parking on our block");
    // Slicing the string by the raw byte numbers would be wrong past the first em dash.
    const late = evidence.find((e) => e.byteRange.start > 1000)!;
    expect(doc.text.slice(late.byteRange.start, late.byteRange.end)).not.toBe(late.quoteText);
  });
});
