// Property tests of the UTF-8 byte-range code (src/trail/utf8.ts), against TextEncoder: byte
// offsets at character boundaries round-trip to string indices, any byte range slices exactly
// the characters it covers, and offsets inside a character or past the end are clamped.

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { byteRangeToIndices, byteToIndex, sliceBytes } from "../src/trail/utf8";

const encoder = new TextEncoder();
const utf8Length = (s: string): number => encoder.encode(s).length;

/** Text mixing 1-, 2-, 3- and 4-byte characters, plus lone surrogates. */
const text = fc.oneof(
  fc.string({ unit: "grapheme", maxLength: 40 }),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc.string({
    unit: fc.constantFrom("a", " ", "é", "ß", "—", "€", "\u{ffff}", "🙂", "\u{10ffff}", "\ud800", "\udfff"),
    maxLength: 40,
  }),
);

/** Every UTF-8 byte offset that starts a character, with the string index it starts at. */
function boundaries(s: string): Array<{ byte: number; index: number }> {
  const out = [{ byte: 0, index: 0 }];
  let byte = 0;
  let index = 0;
  for (const ch of s) {
    byte += utf8Length(ch);
    index += ch.length;
    out.push({ byte, index });
  }
  return out;
}

describe("UTF-8 byte ranges (properties)", () => {
  it("maps every character boundary to its string index and back", () => {
    fc.assert(
      fc.property(text, (s) => {
        for (const { byte, index } of boundaries(s)) {
          expect(byteToIndex(s, byte)).toBe(index);
          expect(utf8Length(s.slice(0, byteToIndex(s, byte)))).toBe(byte);
        }
      }),
    );
  });

  it("slices the characters a byte range between boundaries covers", () => {
    fc.assert(
      fc.property(text, fc.nat(), fc.nat(), (s, a, b) => {
        const marks = boundaries(s);
        const i = marks[a % marks.length];
        const j = marks[b % marks.length];
        const [lo, hi] = i.byte <= j.byte ? [i, j] : [j, i];
        expect(byteRangeToIndices(s, { start: lo.byte, end: hi.byte })).toEqual({ start: lo.index, end: hi.index });
        const slice = sliceBytes(s, { start: lo.byte, end: hi.byte });
        expect(slice).toBe(s.slice(lo.index, hi.index));
        // Round trip: the slice's UTF-8 bytes are exactly those bytes of the whole text.
        expect(encoder.encode(slice)).toEqual(encoder.encode(s).slice(lo.byte, hi.byte));
      }),
    );
  });

  it("clamps offsets inside a character to its start and past the end to the length", () => {
    fc.assert(
      fc.property(text, fc.integer({ min: -5, max: 200 }), (s, byte) => {
        const index = byteToIndex(s, byte);
        const starts = boundaries(s);
        const floor = [...starts].reverse().find((m) => m.byte <= Math.max(0, byte)) ?? starts[0];
        expect(index).toBe(floor.index);
        const { start, end } = byteRangeToIndices(s, { start: byte, end: byte - 3 });
        expect(start).toBe(index);
        expect(end).toBe(index);
      }),
    );
  });
});
