//! A node label's text wrapped to a few lines: the narrowest width (from the node's own up to
//! a limit) at which the whole text fits in the lines allowed, an ellipsis only past them;
//! and the rectangles of labels already placed, so that two labels never cover each other.

/** Measures text in the current font (a 2D context, or a stand-in in tests). */
export interface Measure {
  measureText(t: string): { width: number };
}

/** Wraps `text` at spaces into lines at most `maxW` wide; words wider than a line are cut.
 *  Past `maxLines`, the last line ends with "…". */
export function wrapLines(m: Measure, text: string, maxW: number, maxLines: number): string[] {
  const clean = text.replace(/\s+/g, " ").trim();
  if (!clean || maxW <= 0 || maxLines <= 0) return [];
  const width = (s: string) => m.measureText(s).width;
  const lines: string[] = [];
  let line = "";
  const words = clean.split(" ");
  for (let w = 0; w < words.length; w++) {
    let word = words[w];
    const next = line ? `${line} ${word}` : word;
    if (width(next) <= maxW) {
      line = next;
      continue;
    }
    if (line) {
      lines.push(line);
      line = "";
      if (lines.length === maxLines) return ellipsised(m, lines, [word, ...words.slice(w + 1)].join(" "), maxW);
    }
    // A word wider than a line: as many characters as fit, the rest on the next lines.
    while (width(word) > maxW) {
      const chars = Array.from(word);
      let n = 1;
      while (n < chars.length && width(chars.slice(0, n + 1).join("")) <= maxW) n++;
      lines.push(chars.slice(0, n).join(""));
      word = chars.slice(n).join("");
      if (lines.length === maxLines) return ellipsised(m, lines, [word, ...words.slice(w + 1)].join(" "), maxW);
    }
    line = word;
  }
  if (line) {
    if (lines.length === maxLines) return ellipsised(m, lines, line, maxW);
    lines.push(line);
  }
  return lines;
}

/** The lines with "…" on the last (which had `rest` after it), cut to fit `maxW`. */
function ellipsised(m: Measure, lines: string[], rest: string, maxW: number): string[] {
  if (!rest.trim()) return lines;
  const last = Array.from(lines[lines.length - 1]);
  let n = last.length;
  while (n > 0 && m.measureText(`${last.slice(0, n).join("").trimEnd()}…`).width > maxW) n--;
  lines[lines.length - 1] = `${last.slice(0, n).join("").trimEnd()}…`;
  return lines;
}

/** A wrapped label: its lines and the widest line's width. */
export interface Wrapped {
  lines: string[];
  width: number;
  /** Whether the whole text is shown (no ellipsis). */
  whole: boolean;
}

/** The text wrapped at the narrowest width from `minW` up to `maxW` (in steps of a tenth)
 *  at which it fits in `maxLines` lines; at `maxW`, cut with an ellipsis past them. */
export function balancedWrap(m: Measure, text: string, minW: number, maxW: number, maxLines: number): Wrapped {
  const clean = text.replace(/\s+/g, " ").trim();
  let w = Math.max(1, Math.min(minW, maxW));
  for (;;) {
    const lines = wrapLines(m, clean, w, maxLines);
    const whole = lines.join(" ") === clean;
    if (whole || w >= maxW) {
      return { lines, width: lines.reduce((a, l) => Math.max(a, m.measureText(l).width), 0), whole };
    }
    w = Math.min(maxW, w * 1.1 + 1);
  }
}

/** Screen rectangles already taken by labels in this frame. */
export class PlacedRects {
  private readonly rects: number[] = [];

  clear(): void {
    this.rects.length = 0;
  }

  /** Whether the rectangle (centre, half sizes) is free; if so, takes it. */
  take(cx: number, cy: number, hw: number, hh: number): boolean {
    const r = this.rects;
    for (let k = 0; k < r.length; k += 4) {
      if (Math.abs(cx - r[k]) < hw + r[k + 2] && Math.abs(cy - r[k + 1]) < hh + r[k + 3]) return false;
    }
    r.push(cx, cy, hw, hh);
    return true;
  }
}
