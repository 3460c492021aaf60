// Keyboard shortcuts: which key does what. Pure mapping; the app performs the action.

import type { Arrow } from "../graph/along-edges";

export type KeyAction =
  | { kind: "search" | "fit" | "tidy" | "escape" | "help" | "theme" | "legend" | "enter" }
  | { kind: "zoom"; factor: number }
  | { kind: "pan"; dx: number; dy: number; arrow?: Arrow };

export const SHORTCUTS: Array<[string, string]> = [
  ["/", "Search"],
  ["f", "Fit the graph to the window"],
  ["+  −", "Zoom in, out"],
  ["← ↑ → ↓", "Move the selection along an edge (pan when nothing is selected)"],
  ["Shift + ← ↑ → ↓", "Pan"],
  ["Tab, Enter", "Focus the graph; select the node nearest the centre"],
  ["t", "Tidy up the layout"],
  ["Esc", "Close the lineage, reasoning or trace view; leave \"Show on graph\"; close menus; clear the selection"],
  ["Shift + click", "Select a second node (for a path); in a lineage, a second version to compare"],
  ["Double-click", "Open a claim's trail; expand a large graph"],
  ["d", "Dark or light theme"],
  ["l", "The legend: shapes, colours, badges"],
  ["?", "This help"],
];

const PAN = 80;

type KeyLike = Pick<KeyboardEvent, "key" | "ctrlKey" | "metaKey" | "altKey"> & { shiftKey?: boolean, target: EventTarget | null };

function typing(target: EventTarget | null): boolean {
  if (!target || typeof (target as Element).tagName !== "string") return false;
  const el = target as HTMLElement;
  return el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || el.isContentEditable;
}

export function keyAction(ev: KeyLike): KeyAction | null {
  if (ev.ctrlKey || ev.metaKey || ev.altKey) return null;
  if (ev.key === "Escape") return typing(ev.target) ? null : { kind: "escape" };
  if (typing(ev.target)) return null;
  switch (ev.key) {
    case "/": return { kind: "search" };
    case "f": return { kind: "fit" };
    case "+":
    case "=": return { kind: "zoom", factor: 1.25 };
    case "-":
    case "_": return { kind: "zoom", factor: 0.8 };
    case "ArrowLeft": return { kind: "pan", dx: PAN, dy: 0, arrow: ev.shiftKey ? undefined : "left" };
    case "ArrowRight": return { kind: "pan", dx: -PAN, dy: 0, arrow: ev.shiftKey ? undefined : "right" };
    case "ArrowUp": return { kind: "pan", dx: 0, dy: PAN, arrow: ev.shiftKey ? undefined : "up" };
    case "ArrowDown": return { kind: "pan", dx: 0, dy: -PAN, arrow: ev.shiftKey ? undefined : "down" };
    case "t": return { kind: "tidy" };
    case "Enter": return { kind: "enter" };
    case "?": return { kind: "help" };
    case "d": return { kind: "theme" };
    case "l": return { kind: "legend" };
    default: return null;
  }
}
