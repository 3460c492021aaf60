// Short functions, as the house asks: no function of ui/src over 120 lines, measured by the
// TypeScript parser from its first token to its last (doc comments left out); in the tests
// (ui/tests, ui/e2e) no named function over half as long again; the callbacks handed to
// describe/it/before/after are the test cases themselves and are not measured. Modules'
// lengths, and Rust's functions, are checked by tests/it/sizes.rs; scripts/sizes.sh runs
// both and lists everything over the limits.

import ts from "typescript";
import { describe, expect, it } from "vitest";

const code = import.meta.glob("../src/**/*.ts", { query: "?raw", import: "default", eager: true }) as Record<string, string>;
const tests = {
  ...import.meta.glob("./**/*.ts", { query: "?raw", import: "default", eager: true }),
  ...import.meta.glob("../e2e/**/*.mjs", { query: "?raw", import: "default", eager: true }),
} as Record<string, string>;

const FUNCTION_LINES = 120;
/** Parsing every module takes seconds on a loaded machine, beyond vitest's default 5 s. */
const SLOW = 60_000;
const TEST_FUNCTION_LINES = 180;
/** Functions allowed over the limit ("path: name"), and why: none. */
const LONG_FUNCTIONS: Record<string, string> = {};
/** The calls whose callbacks are test cases and their set-up, not functions to keep short. */
const TEST_CALLS = new Set(["describe", "it", "test", "before", "after", "beforeEach", "afterEach", "beforeAll", "afterAll"]);

interface Measured { name: string; line: number; lines: number }

/** A function's name as the reader knows it: its own, or the variable or property it is. */
function nameOf(fn: ts.SignatureDeclaration, file: ts.SourceFile): string {
  if (fn.name) return fn.name.getText(file);
  const parent = fn.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(file);
  if (ts.isConstructorDeclaration(fn)) return "constructor";
  return "(anonymous)";
}

/** A test case's callback: a function handed straight to describe(), it(), before() …. */
function isTestCallback(fn: ts.Node): boolean {
  const call = fn.parent;
  return ts.isCallExpression(call) && call.arguments.includes(fn as ts.Expression) && ts.isIdentifier(call.expression) && TEST_CALLS.has(call.expression.text);
}

/** Every function with a body in `text`, with its first line and length in lines. */
function functions(path: string, text: string, skipTestCallbacks = false): Measured[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true);
  const out: Measured[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body && !(skipTestCallbacks && isTestCallback(node))) {
      const first = file.getLineAndCharacterOfPosition(node.getStart(file)).line;
      const last = file.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ name: nameOf(node, file), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return out;
}

/** The functions over `max` lines in these files, as "path:line name: N lines". */
function overLimit(files: Record<string, string>, max: number, skipTestCallbacks: boolean): string[] {
  return Object.entries(files).flatMap(([path, text]) =>
    functions(path, text, skipTestCallbacks)
      .filter((f) => f.lines > max && !(`${path}: ${f.name}` in LONG_FUNCTIONS))
      .map((f) => `${path}:${f.line} ${f.name}: ${f.lines} lines (over ${max})`));
}

describe("function sizes", () => {
  it("measures a function from its first token to its last", () => {
    const text = "/** doc */\nexport function a() {\n  return 1;\n}\nconst b = () => {\n  it('x', () => {\n  });\n};\nclass C {\n  m(): void {}\n}\n";
    expect(functions("x.ts", text).map((f) => [f.name, f.line, f.lines])).toEqual([["a", 2, 3], ["b", 5, 4], ["(anonymous)", 6, 2], ["m", 10, 1]]);
    expect(functions("x.ts", text, true).map((f) => f.name)).toEqual(["a", "b", "m"]);
  });

  it("reads the modules", () => {
    expect(Object.keys(code).length).toBeGreaterThan(50);
    expect(Object.keys(tests).some((p) => p.endsWith("harness.mjs"))).toBe(true);
  });

  it(`has no function of ui/src over ${FUNCTION_LINES} lines`, () => {
    expect(overLimit(code, FUNCTION_LINES, false)).toEqual([]);
  }, SLOW);

  it(`has no named function of the tests over ${TEST_FUNCTION_LINES} lines`, () => {
    expect(overLimit(tests, TEST_FUNCTION_LINES, true)).toEqual([]);
  }, SLOW);
});
