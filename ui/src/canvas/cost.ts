//! What a frame cost, by layer: script time, draw calls, vertices submitted and GPU uploads
//! (count and bytes). The benchmark prints it (bench/ui/run.mjs) so that a slower canvas
//! names the layer that got slower; it is counted whether or not anyone reads it (a few
//! additions per draw call).

/** The layers a frame is drawn in. `picture` is the cached drawing of a zoomed-out graph
 *  (renderer.ts) put on screen; its nodes and edges count under nodes and edges on the
 *  frames that redraw it. `badges`: node instances drawn with a signature badge. */
export const LAYERS = ["nodes", "edges", "badges", "labels", "picture", "minimap", "overlays"] as const;
export type Layer = (typeof LAYERS)[number];

export interface LayerCost {
  ms: number;
  drawCalls: number;
  vertices: number;
  uploads: number;
  uploadBytes: number;
  /** Records the layer's script looked at: nodes projected or culled, edges clipped,
   *  label candidates (work that grows with the graph, where time depends on the machine). */
  visited: number;
}

export type FrameCostReport = { scriptMs: number } & Record<Layer, LayerCost>;

function zero(): LayerCost {
  return { ms: 0, drawCalls: 0, vertices: 0, uploads: 0, uploadBytes: 0, visited: 0 };
}

export class FrameCost {
  scriptMs = 0;
  readonly layers = Object.fromEntries(LAYERS.map((l) => [l, zero()])) as Record<Layer, LayerCost>;

  /** Forgets the last frame. */
  begin(): void {
    this.scriptMs = 0;
    for (const l of LAYERS) Object.assign(this.layers[l], zero());
  }

  draw(layer: Layer, vertices: number): void {
    const c = this.layers[layer];
    c.drawCalls++;
    c.vertices += vertices;
  }

  upload(layer: Layer, bytes: number): void {
    if (bytes <= 0) return;
    const c = this.layers[layer];
    c.uploads++;
    c.uploadBytes += bytes;
  }

  /** Runs `fn`, adding its time to `layer`. */
  time<T>(layer: Layer, fn: () => T): T {
    const t = now();
    try {
      return fn();
    } finally {
      this.layers[layer].ms += now() - t;
    }
  }

  report(): FrameCostReport {
    const out = { scriptMs: this.scriptMs } as FrameCostReport;
    for (const l of LAYERS) out[l] = { ...this.layers[l] };
    return out;
  }
}

function now(): number {
  return typeof performance !== "undefined" ? performance.now() : Date.now();
}
