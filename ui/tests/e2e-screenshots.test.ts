// The Chromium tests save the pictures they leave in docs/screenshots/ one way: through the
// harness's `screenshot` (ui/e2e/harness.mjs), which writes e2e/artifacts/ and copies to
// docs/screenshots/. A test file that writes there itself keeps its own copy of that set-up.

import { describe, expect, it } from "vitest";

const files = import.meta.glob("../e2e/**/*.mjs", { query: "?raw", import: "default", eager: true }) as Record<string, string>;

/** The lines of `text` that are code (comment lines and doc-comment lines left out) and
 *  name the screenshots folder. */
function writesScreenshotsItself(text: string): string[] {
  return text.split("\n").filter((line) => {
    const t = line.trim();
    return !t.startsWith("//") && !t.startsWith("*") && !t.startsWith("/**") && t.includes("docs/screenshots");
  });
}

describe("Chromium tests' screenshots", () => {
  it("reads the test files and the harness", () => {
    expect(Object.keys(files)).toContain("../e2e/harness.mjs");
    expect(Object.keys(files).filter((f) => f.endsWith(".test.mjs")).length).toBeGreaterThan(20);
  });

  it("finds a test file that copies its own screenshot", () => {
    const own = 'async function shot(page, name) {\n  await copyFile(path, join(ROOT, "docs/screenshots", name));\n}';
    expect(writesScreenshotsItself(own)).toHaveLength(1);
    expect(writesScreenshotsItself('// Screenshots go to docs/screenshots/.\nawait shot(page, "a.png");')).toEqual([]);
  });

  it("go to docs/screenshots/ only through the harness's screenshot", () => {
    const found = Object.entries(files)
      .filter(([f]) => f !== "../e2e/harness.mjs")
      .flatMap(([f, text]) => writesScreenshotsItself(text).map((line) => `${f}: ${line.trim()}`));
    expect(found).toEqual([]);
  });
});
