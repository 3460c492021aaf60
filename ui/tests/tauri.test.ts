// The desktop transport's stream (Tauri IPC): the same resubscription as the HTTP one
// (src/api/resubscribe.ts): after since, no repeats, a reset passes, a failed subscribe is
// retried with back-off from the last seq seen, and closing unsubscribes, also a
// subscription the shell grants only after the page closed it. The IPC is faked at
// @tauri-apps/api (no window here); what is checked is what the page asks the shell.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { StreamMessage } from "../src/api/contract";
import { batch, node } from "./helpers";

interface Pending { resolve(id: number): void; reject(e: unknown): void }

const ipc = vi.hoisted(() => ({
  channels: [] as Array<{ onmessage: (m: unknown) => void }>,
  subscribes: [] as Array<{ since: number; pending: Pending }>,
  unsubscribed: [] as number[],
}));

vi.mock("@tauri-apps/api/core", () => ({
  Channel: class {
    onmessage: (m: unknown) => void = () => undefined;
    constructor() {
      ipc.channels.push(this);
    }
  },
  invoke: (cmd: string, args: { req?: { since: number }; id?: number }) => {
    if (cmd === "subscribe") {
      return new Promise<number>((resolve, reject) => ipc.subscribes.push({ since: args.req?.since ?? -1, pending: { resolve, reject } }));
    }
    if (cmd === "unsubscribe") ipc.unsubscribed.push(args.id ?? -1);
    return Promise.resolve(null);
  },
}));
vi.mock("@tauri-apps/api/event", () => ({ listen: () => Promise.resolve(() => undefined) }));

const { tauriBackend } = await import("../src/api/tauri");
const { reconnectDelay } = await import("../src/api/resubscribe");

/** Lets the promise callbacks of invoke run. */
const settle = () => vi.advanceTimersByTimeAsync(0);

describe("TauriBackend stream", () => {
  beforeEach(() => {
    ipc.channels.length = 0;
    ipc.subscribes.length = 0;
    ipc.unsubscribed.length = 0;
    vi.useFakeTimers();
    vi.spyOn(console, "error").mockImplementation(() => undefined);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it("delivers messages after since, skips repeats, passes a reset, and resubscribes from the last seq with back-off", async () => {
    const got: string[] = [];
    const status: string[] = [];
    tauriBackend().subscribe({ graph: "g", since: 3 }, { onMessage: (m: StreamMessage) => got.push(`${m.kind}:${m.seq}`), onStatus: (s) => status.push(s) });
    expect(ipc.subscribes.map((s) => s.since)).toEqual([3]);
    ipc.subscribes[0].pending.resolve(11);
    await settle();
    expect(status).toEqual(["open"]);
    const ch = ipc.channels[0];
    ch.onmessage(batch(3, [node("old", 0)]));
    ch.onmessage(batch(4, [node("a", 1)]));
    ch.onmessage(batch(4, [node("a", 1)]));
    ch.onmessage({ kind: "reset", graph: "g", seq: 0, reason: "the view was rebuilt" });
    ch.onmessage(batch(1, [node("b", 2)]));
    expect(got).toEqual(["batch:4", "reset:0", "batch:1"]);
  });

  it("retries a failed subscribe after 0.5 s, then longer, from the last seq seen", async () => {
    const status: string[] = [];
    const got: number[] = [];
    tauriBackend().subscribe({ graph: "g", since: 0 }, { onMessage: (m) => got.push(m.seq), onStatus: (s) => status.push(s) });
    ipc.channels[0].onmessage(batch(5, []));
    ipc.subscribes[0].pending.reject({ code: "no_graph", message: "no graph g" });
    await settle();
    expect(status).toEqual(["reconnecting"]);
    // The failed channel's messages no longer count.
    ipc.channels[0].onmessage(batch(6, []));
    expect(got).toEqual([5]);
    await vi.advanceTimersByTimeAsync(reconnectDelay(0) - 1);
    expect(ipc.subscribes).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(ipc.subscribes.map((s) => s.since)).toEqual([0, 5]);
    ipc.subscribes[1].pending.reject(new Error("ipc down"));
    await settle();
    await vi.advanceTimersByTimeAsync(reconnectDelay(1) - 1);
    expect(ipc.subscribes).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(ipc.subscribes).toHaveLength(3);
    ipc.subscribes[2].pending.resolve(7);
    await settle();
    expect(status).toEqual(["reconnecting", "reconnecting", "open"]);
  });

  it("unsubscribes on close, and unsubscribes a subscription granted after the close", async () => {
    const status: string[] = [];
    const sub = tauriBackend().subscribe({ graph: "g", since: 0 }, { onMessage: () => undefined, onStatus: (s) => status.push(s) });
    ipc.subscribes[0].pending.resolve(21);
    await settle();
    sub.close();
    expect(ipc.unsubscribed).toEqual([21]);
    expect(status).toEqual(["open", "closed"]);

    const late = tauriBackend().subscribe({ graph: "g", since: 0 }, { onMessage: () => undefined });
    late.close();
    ipc.subscribes[1].pending.resolve(22);
    await settle();
    expect(ipc.unsubscribed).toEqual([21, 22]);
  });

  it("does not resubscribe after close while waiting to", async () => {
    const sub = tauriBackend().subscribe({ graph: "g", since: 0 }, { onMessage: () => undefined });
    ipc.subscribes[0].pending.reject(new Error("ipc down"));
    await settle();
    sub.close();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(ipc.subscribes).toHaveLength(1);
  });
});
