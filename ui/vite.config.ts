import { defineConfig } from "vitest/config";

// The UI is served by `provex serve` (and loaded by the Tauri window) from dist/, with
// relative asset paths so it works under any mount point.
export default defineConfig({
  base: "./",
  build: {
    outDir: "dist", emptyOutDir: true, target: "es2022", chunkSizeWarningLimit: 1024,
    // The explorer, and the query page `/graphql` sends browsers to (GraphiQL).
    rollupOptions: {
      input: { main: "index.html", graphql: "graphql.html" },
      // GraphiQL's dependencies mark React modules "use client", which a bundle ignores anyway.
      onwarn(w, warn) {
        if (w.code !== "MODULE_LEVEL_DIRECTIVE") warn(w);
      },
    },
  },
  // GraphiQL's editor (Monaco) runs its language services in module workers.
  worker: { format: "es" },
  server: { proxy: { "/api": "http://127.0.0.1:7878" } },
  test: { environment: "jsdom", include: ["tests/**/*.test.ts"] },
});
