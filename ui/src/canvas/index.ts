//! The graph canvas module's public face: the API the app codes against and the WebGL
//! implementation of it.

export * from "./types";
export { GraphCanvas, createCanvas } from "./renderer";
export { buildSVG, type SvgEdge, type SvgNode } from "./export";
export { palette, type Palette } from "./style";
