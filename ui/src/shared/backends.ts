// Chooses the Backend: Tauri IPC inside the desktop window, HTTP + SSE in a browser. The
// rest of the app only sees the Backend interface. The page's `?token=` is kept for the tab's
// lifetime (sessionStorage) and taken out of the address bar so it is not shared by copying it.

import type { Backend } from "../api/backend";
import { httpBackend } from "../api/http";

// api/tauri.ts exports `tauriBackend()`. A lazy glob keeps it (and @tauri-apps/api) out of
// the browser bundle's main chunk.
const tauriModules = import.meta.glob<{ tauriBackend: () => Backend }>("../api/tauri.ts");

const TOKEN_KEY = "provex.token";

export function inTauri(): boolean {
  return typeof window !== "undefined" && "__TAURI_INTERNALS__" in window;
}

/** The API token from `?token=` (then removed from the visible URL), or from earlier in this tab. */
export function takeToken(loc: Location = window.location, hist: History = window.history): string | undefined {
  const url = new URL(loc.href);
  const fromUrl = url.searchParams.get("token");
  if (fromUrl) {
    try {
      sessionStorage.setItem(TOKEN_KEY, fromUrl);
    } catch {
      return fromUrl; // cannot remember it: leave it in the URL so a reload still works
    }
    url.searchParams.delete("token");
    hist.replaceState(hist.state, "", url.toString());
    return fromUrl;
  }
  try {
    return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export async function pickBackend(): Promise<Backend> {
  if (inTauri()) {
    const load = tauriModules["../api/tauri.ts"];
    if (!load) throw new Error("This build has no Tauri backend (src/api/tauri.ts).");
    const { tauriBackend } = await load();
    return tauriBackend();
  }
  return httpBackend("", takeToken());
}
