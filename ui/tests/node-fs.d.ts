// The one Node built-in the tests use to read the council example files (the UI project
// has no @types/node, and Vite's `?raw` may not reach outside ui/).
declare module "node:fs" {
  export function readFileSync(path: URL | string, encoding: "utf8"): string;
}
