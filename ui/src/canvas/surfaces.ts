//! The canvas's two drawing surfaces, stacked over the container's box: WebGL below (it
//! takes the pointer and, with Tab, the keyboard), the text overlay above.

/** Makes the WebGL canvas and the overlay and puts them in `container`. */
export function makeSurfaces(container: HTMLElement, background: string): { element: HTMLCanvasElement, overlay: HTMLCanvasElement } {
  const doc = container.ownerDocument;
  const element = doc.createElement("canvas");
  const overlay = doc.createElement("canvas");
  element.className = "provex-graph-canvas";
  // Reachable with Tab: Enter selects the node nearest the centre, the arrows walk its edges.
  element.tabIndex = 0;
  element.setAttribute("role", "application");
  element.setAttribute("aria-label", "Graph. Enter selects the node nearest the centre; the arrow keys then walk along its edges; Escape clears the selection.");
  overlay.className = "provex-graph-overlay";
  for (const c of [element, overlay]) {
    Object.assign(c.style, { position: "absolute", left: "0", top: "0", width: "100%", height: "100%", display: "block" });
  }
  element.style.touchAction = "none";
  element.style.background = background;
  overlay.style.pointerEvents = "none";
  container.appendChild(element);
  container.appendChild(overlay);
  return { element, overlay };
}
