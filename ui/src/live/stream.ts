// The open graph's live stream: one subscription at a time, its connection state, and the
// timers that coalesce the page's reaction to bursts of batches. The messages themselves
// go to the app's `onStreamMessage` (looked up per message, so a benchmark can wrap it).

import type { Backend, Subscription } from "../api/backend";
import type { StreamMessage } from "../api/contract";
import type { StreamState } from "../shared/host";

/** What the stream needs of the app. */
export interface StreamHost {
  readonly backend: Pick<Backend, "subscribe">;
  onStreamMessage(msg: StreamMessage): unknown;
  /** The connection state changed (the status bar shows it). */
  streamStateChanged(): void;
}

export class LiveStream {
  state: StreamState = "off";
  private sub: Subscription | null = null;

  constructor(private readonly host: StreamHost) {}

  /** Follows `graph` (its cluster view's stream, with `clusters`) from after `since`,
   *  closing any earlier subscription. */
  open(graph: string, since: number, clusters = false): void {
    this.close();
    this.setState("reconnecting");
    this.sub = this.host.backend.subscribe(clusters ? { graph, since, clusters } : { graph, since }, {
      onMessage: (msg) => this.host.onStreamMessage(msg),
      onStatus: (s) => this.setState(s),
    });
  }

  close(): void {
    const sub = this.sub;
    this.sub = null;
    sub?.close();
    this.setState("off");
  }

  private setState(s: StreamState): void {
    if (s === "closed" && this.sub) return; // an old subscription's goodbye
    this.state = s;
    this.host.streamStateChanged();
  }
}

/** Runs `fn` once, `ms` after the first of any number of `schedule()` calls. */
export class Coalesced {
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(private readonly ms: number, private readonly fn: () => void) {}

  schedule(): void {
    if (this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.fn();
    }, this.ms);
  }
}
