// Evidence byte ranges count UTF-8 bytes of the source text; JavaScript strings index UTF-16
// code units. The transcript has em dashes (3 bytes, 1 unit) and could hold emoji (4 bytes,
// 2 units), so offsets are converted by walking the text, never used directly.

import type { ByteRange } from "../api/contract";

/** UTF-8 bytes and UTF-16 units of the character starting at `i`. A lone surrogate is
 *  counted as U+FFFD (3 bytes), which is what encoding it would produce. */
function charAt(text: string, i: number): { bytes: number; units: number } {
  const c = text.charCodeAt(i);
  if (c < 0x80) return { bytes: 1, units: 1 };
  if (c < 0x800) return { bytes: 2, units: 1 };
  if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
    const d = text.charCodeAt(i + 1);
    if (d >= 0xdc00 && d <= 0xdfff) return { bytes: 4, units: 2 };
  }
  return { bytes: 3, units: 1 };
}

/** The string index where UTF-8 byte offset `byte` falls. An offset inside a multi-byte
 *  character maps to that character's start; past the end maps to `text.length`. */
export function byteToIndex(text: string, byte: number): number {
  if (byte <= 0) return 0;
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const ch = charAt(text, i);
    if (bytes + ch.bytes > byte) return i;
    bytes += ch.bytes;
    i += ch.units;
    if (bytes === byte) return i;
  }
  return text.length;
}

/** The string indices [start, end) of a UTF-8 byte range of `text`. */
export function byteRangeToIndices(text: string, range: ByteRange): { start: number; end: number } {
  const start = byteToIndex(text, range.start);
  const end = Math.max(start, byteToIndex(text, range.end));
  return { start, end };
}

/** The text a UTF-8 byte range covers. */
export function sliceBytes(text: string, range: ByteRange): string {
  const { start, end } = byteRangeToIndices(text, range);
  return text.slice(start, end);
}
