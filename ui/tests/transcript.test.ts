// Transcript lines, speakers and times around a quote.

import { describe, expect, it } from "vitest";
import { lineAt, parseUtterance, quoteContext, splitLines } from "../src/trail/transcript";
import { byteRangeToIndices } from "../src/trail/utf8";
import { councilFile } from "./helpers";

const transcript = await councilFile("council-transcript.txt");

describe("transcript lines", () => {
  it("parses time and speaker, including speakers with titles and spaces", () => {
    const line = "[00:14:05] COUNCILLOR NAME: text here";
    const u = parseUtterance(line);
    expect(u).toMatchObject({ time: "00:14:05", speaker: "COUNCILLOR NAME" });
    expect(line.slice(u!.bodyStart)).toBe("text here");
    expect(parseUtterance("[00:01:15] CITY PLANNER MAYA CHEN: Ordinance 2025-31: rezoning")).toMatchObject({ speaker: "CITY PLANNER MAYA CHEN" });
    expect(parseUtterance("ITEM 2 — ELM STREET REZONING (ORDINANCE 2025-31)")).toBeNull();
    expect(parseUtterance("")).toBeNull();
  });

  it("splits lines with their string offsets and drops a CR", () => {
    const lines = splitLines("one\r\ntwo\n\nthree");
    expect(lines.map((l) => l.text)).toEqual(["one", "two", "", "three"]);
    expect(lines[1]).toMatchObject({ index: 1, start: 5, end: 8 });
    expect(lineAt(lines, 0)).toBe(0);
    expect(lineAt(lines, 6)).toBe(1);
    expect(lineAt(lines, 9)).toBe(2);
    expect(lineAt(lines, 12)).toBe(3);
  });

  it("finds the speaker, time and surrounding lines of a council quote given as a byte range", () => {
    const lines = splitLines(transcript);
    // The roll call on Elm Street, bytes 1433–1530 (after two em dashes).
    const { start, end } = byteRangeToIndices(transcript, { start: 1433, end: 1530 });
    expect(transcript.slice(start, end)).toMatch(/^Ortega, yes\..*four to one\.$/);
    const ctx = quoteContext(lines, start, end, 1, 1);
    expect(ctx.speaker).toBe("CITY CLERK MARIA SANTOS");
    expect(ctx.time).toBe("00:02:36");
    expect(ctx.lines).toHaveLength(3);
    expect(ctx.lines[0].text).toContain("[00:02:31] MAYOR DANA WHITFIELD");
    expect(ctx.lines[1].index).toBe(ctx.first);
    expect(ctx.lines[1].text).toContain(transcript.slice(start, end));
  });

  it("takes the speaker of the utterance a continuation line belongs to, but not across a blank line", () => {
    const text = "[00:00:01] ALICE: first part\nsecond part of Alice\n\nloose line";
    const lines = splitLines(text);
    const cont = text.indexOf("second");
    expect(quoteContext(lines, cont, cont + 6)).toMatchObject({ speaker: "ALICE", time: "00:00:01" });
    const loose = text.indexOf("loose");
    expect(quoteContext(lines, loose, loose + 5)).toMatchObject({ speaker: null, time: null });
  });

  it("spans several lines when the quote does, and clips context at the ends", () => {
    const text = "a\nb\nc";
    const lines = splitLines(text);
    const ctx = quoteContext(lines, 0, text.length, 1, 1);
    expect([ctx.first, ctx.last]).toEqual([0, 2]);
    expect(ctx.lines.map((l) => l.text)).toEqual(["a", "b", "c"]);
  });
});
