// Reading a meeting transcript: its lines, and for a quote, the line it sits in, who was
// speaking and when. Lines look like `[00:14:05] COUNCILLOR NAME: text`. Pure.

export interface Line {
  /** 0-based line number. */
  index: number;
  /** String indices [start, end) of the line in the text, without its newline. */
  start: number;
  end: number;
  text: string;
}

export interface Utterance {
  time: string;
  speaker: string;
  /** String index in the line where the spoken words begin. */
  bodyStart: number;
}

const UTTERANCE = /^\[(\d{1,2}:\d{2}:\d{2}(?:\.\d+)?)\]\s*([^:\]]{1,120}?):\s*/;

/** The time and speaker of a transcript line, or null for a heading, blank or continuation line. */
export function parseUtterance(line: string): Utterance | null {
  const m = UTTERANCE.exec(line);
  if (!m) return null;
  return { time: m[1], speaker: m[2].trim(), bodyStart: m[0].length };
}

export function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  let index = 0;
  for (;;) {
    const nl = text.indexOf("\n", start);
    const end = nl === -1 ? text.length : nl;
    // A CRLF transcript keeps its \r out of the shown line.
    const shownEnd = end > start && text.charCodeAt(end - 1) === 13 ? end - 1 : end;
    lines.push({ index, start, end: shownEnd, text: text.slice(start, shownEnd) });
    if (nl === -1) break;
    start = nl + 1;
    index += 1;
  }
  return lines;
}

/** The index in `lines` of the line holding string index `pos`. */
export function lineAt(lines: Line[], pos: number): number {
  let lo = 0;
  let hi = lines.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (lines[mid].start <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export interface QuoteContext {
  /** Line numbers of the quote's first and last line. */
  first: number;
  last: number;
  /** The lines shown around it: `before` lines before `first` to `after` lines after `last`. */
  lines: Line[];
  /** From the utterance the quote belongs to (the nearest timestamped line at or above it,
   *  within the same paragraph), or null. */
  time: string | null;
  speaker: string | null;
}

/** Where the quote at string indices [start, end) sits in the transcript. */
export function quoteContext(lines: Line[], start: number, end: number, before = 1, after = 1): QuoteContext {
  const first = lineAt(lines, start);
  const last = Math.max(first, lineAt(lines, Math.max(start, end - 1)));
  let time: string | null = null;
  let speaker: string | null = null;
  for (let i = first; i >= 0; i--) {
    const u = parseUtterance(lines[i].text);
    if (u) {
      time = u.time;
      speaker = u.speaker;
      break;
    }
    if (lines[i].text.trim() === "") break;
  }
  const from = Math.max(0, first - before);
  const to = Math.min(lines.length - 1, last + after);
  return { first, last, lines: lines.slice(from, to + 1), time, speaker };
}
