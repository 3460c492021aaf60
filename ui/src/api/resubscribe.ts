// A stream subscription that keeps itself up, for both transports (HTTP + server-sent events
// in http.ts, Tauri IPC in tauri.ts): each connection asks for the messages after the last
// seq seen; a repeated or older message is dropped (a reset always passes: after a server
// restart or a rebuilt view its seq is lower, and the client must reload); a connection that
// fails or drops is closed and another is tried after a back-off; closing stops it all. Each
// transport only says how to open one connection and when it opened, failed or got a message.

import type { StreamHandlers, Subscription } from "./client";

/** Delay before reconnect attempt `n` (0-based): 0.5 s doubling to at most 10 s. */
export function reconnectDelay(n: number): number {
  return Math.min(10_000, 500 * 2 ** Math.min(n, 5));
}

/** What one connection reports back. Reports from a connection that is no longer the
 *  current one (it failed, or the subscription was closed) are ignored. */
export interface Attempt<M> {
  /** Still the current connection of an open subscription. */
  readonly current: boolean;
  /** The connection is up: the next failure waits the first delay again. */
  opened(): void;
  /** A message arrived: passed on unless it repeats or precedes one already passed. */
  message(msg: M): void;
  /** The connection failed or dropped: it is closed, and another is tried after a back-off. */
  failed(): void;
}

/** Opens one connection for the messages after `since`; returns what closes it. */
export type Connect<M> = (since: number, attempt: Attempt<M>) => () => void;

/** Subscribes from `since`, reconnecting through `connect` until closed. */
export function resubscribing<M extends { kind: string; seq: number }>(
  since: number, handlers: StreamHandlers<M>, connect: Connect<M>,
): Subscription {
  let last = since;
  let tries = 0;
  let closed = false;
  /** The current connection's token and closer. */
  let live: object | null = null;
  let stop: (() => void) | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;

  const open = (): void => {
    timer = null;
    if (closed) return;
    const token = {};
    live = token;
    const isCurrent = () => !closed && live === token;
    const attempt: Attempt<M> = {
      get current() {
        return isCurrent();
      },
      opened() {
        if (!isCurrent()) return;
        tries = 0;
        handlers.onStatus?.("open");
      },
      message(msg) {
        if (!isCurrent()) return;
        if (msg.kind !== "reset" && msg.seq <= last) return;
        last = msg.seq;
        handlers.onMessage(msg);
      },
      failed() {
        if (!isCurrent()) return;
        live = null;
        const closeIt = stop;
        stop = null;
        closeIt?.();
        handlers.onStatus?.("reconnecting");
        timer = setTimeout(open, reconnectDelay(tries));
        tries += 1;
      },
    };
    const closer = connect(last, attempt);
    // A connection that failed while it was being opened is closed at once.
    if (isCurrent()) stop = closer;
    else closer();
  };

  open();
  return {
    close() {
      if (closed) return;
      closed = true;
      live = null;
      if (timer !== null) clearTimeout(timer);
      stop?.();
      stop = null;
      handlers.onStatus?.("closed");
    },
  };
}
