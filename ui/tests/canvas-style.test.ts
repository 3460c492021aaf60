// How the canvas styles things: PROV shapes and colours by base type, status badge
// colours, edge colour classes, and the outline geometry shared by hits, arrows and SVG.

import { describe, expect, it } from "vitest";
import type { SignatureStatus } from "../src/api/contract";
import {
  EdgeKind, Shape, Status, boundaryDistance, edgeKind, hexToRgba, insideShape, palette, shapeOf, statusCode, badgeCode,
} from "../src/canvas/style";

describe("canvas style", () => {
  it("draws PROV's shapes and colours by base type, and grey rounded boxes otherwise", () => {
    expect(shapeOf("ProvEntity")).toBe(Shape.Ellipse);
    expect(shapeOf("ProvActivity")).toBe(Shape.Box);
    expect(shapeOf("ProvAgent")).toBe(Shape.House);
    expect(shapeOf(null)).toBe(Shape.Rounded);
    expect(shapeOf("Statement")).toBe(Shape.Rounded);
    const light = palette("light");
    expect(light.fill[Shape.Ellipse].toUpperCase()).toBe("#FFFC87");
    expect(light.fill[Shape.Box].toUpperCase()).toBe("#9FB1FC");
    expect(light.fill[Shape.House].toUpperCase()).toBe("#FED37F");
    const [r, g, b] = hexToRgba(light.fill[Shape.Rounded]);
    expect(Math.abs(r - g) + Math.abs(g - b)).toBeLessThan(0.02); // grey
  });

  it("colours every signature status: valid green, bad red, doubtful amber, unsigned grey", () => {
    const all: SignatureStatus[] = ["valid", "invalid", "unknown_key", "untrusted_key", "malformed", "unsigned"];
    const codes = Object.fromEntries(all.map((s) => [s, statusCode(s)]));
    expect(codes).toEqual({
      valid: Status.Valid, invalid: Status.Bad, malformed: Status.Bad,
      unknown_key: Status.Doubtful, untrusted_key: Status.Doubtful, unsigned: Status.Unsigned,
    });
    expect(statusCode(null)).toBe(Status.None);
    expect(statusCode("something_new")).toBe(Status.Unsigned);
    for (const theme of ["light", "dark"] as const) {
      const p = palette(theme);
      const rgb = (code: number) => Array.from(hexToRgba(p.status[code]));
      const [vr, vg] = rgb(Status.Valid), [br, bg] = rgb(Status.Bad), [dr, dg, db] = rgb(Status.Doubtful);
      expect(vg).toBeGreaterThan(vr);
      expect(br).toBeGreaterThan(bg);
      expect(dr).toBeGreaterThan(db);
      expect(dg).toBeGreaterThan(db);
      const [ur, ug, ub] = rgb(Status.Unsigned);
      expect(Math.max(ur, ug, ub) - Math.min(ur, ug, ub)).toBeLessThan(0.1);
    }
  });

  it("gives both themes a full palette of valid colours, dark with a dark background", () => {
    for (const theme of ["light", "dark"] as const) {
      const p = palette(theme);
      for (const c of [p.background, p.nodeText, p.text, p.labelBackground, p.selection, p.glow, ...p.fill, ...p.stroke, ...p.edge, ...p.status]) {
        expect(() => hexToRgba(c)).not.toThrow();
      }
    }
    const lum = (hex: string) => { const [r, g, b] = hexToRgba(hex); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
    expect(lum(palette("dark").background)).toBeLessThan(0.15);
    expect(lum(palette("light").background)).toBeGreaterThan(0.9);
    expect(() => hexToRgba("#12345")).toThrow();
  });

  it("classes relations into plain, support, challenge and citation colours", () => {
    expect(edgeKind("WAS_GENERATED_BY")).toBe(EdgeKind.Plain);
    expect(edgeKind("VERIFIED")).toBe(EdgeKind.Support);
    expect(edgeKind("validated")).toBe(EdgeKind.Support);
    expect(edgeKind("CHALLENGED")).toBe(EdgeKind.Challenge);
    expect(edgeKind("CONTRADICTS")).toBe(EdgeKind.Challenge);
    expect(edgeKind("CITES")).toBe(EdgeKind.Citation);
    // Remembered per type as given, and the same the next time; past the types remembered,
    // still classed.
    expect(edgeKind("validated")).toBe(EdgeKind.Support);
    expect(edgeKind("Refutes")).toBe(EdgeKind.Challenge);
    for (let i = 0; i < 3000; i++) expect(edgeKind(`T${i}`)).toBe(EdgeKind.Plain);
    expect(edgeKind("sourced_from")).toBe(EdgeKind.Citation);
    expect(edgeKind("Disputes")).toBe(EdgeKind.Challenge);
  });

  it("puts arrow ends exactly on the outline the hit test uses", () => {
    const hw = 70, hh = 20;
    for (const shape of [Shape.Ellipse, Shape.Box, Shape.House]) {
      for (let k = 0; k < 72; k++) {
        const a = (k / 72) * 2 * Math.PI + 0.01;
        const ux = Math.cos(a), uy = Math.sin(a);
        const t = boundaryDistance(shape, hw, hh, ux, uy);
        expect(insideShape(shape, ux * t * 0.995, uy * t * 0.995, hw, hh)).toBe(true);
        expect(insideShape(shape, ux * t * 1.005, uy * t * 1.005, hw, hh)).toBe(false);
      }
    }
    // The roof: straight up ends at the apex; the box would end at the same height.
    expect(boundaryDistance(Shape.House, hw, hh, 0, -1)).toBeCloseTo(hh, 9);
    // Up and to the side, the roof cuts in before the box's top edge.
    const up = boundaryDistance(Shape.House, hw, hh, Math.SQRT1_2, -Math.SQRT1_2);
    expect(up).toBeLessThan(boundaryDistance(Shape.Box, hw, hh, Math.SQRT1_2, -Math.SQRT1_2));
  });

  it("badges a claim by its standing, anything else by its signature status", () => {
    expect(badgeCode({ status: "invalid", standing: "invalid_signature" })).toBe(Status.Bad);
    // Signed validly and verified by consensus, but its quote does not match: never ✓.
    expect(badgeCode({ status: "valid", standing: "quote_mismatch" })).toBe(Status.Bad);
    expect(badgeCode({ status: "valid", standing: "challenged" })).toBe(Status.Bad);
    expect(badgeCode({ status: "unknown_key", standing: "unknown_signer" })).toBe(Status.Doubtful);
    expect(badgeCode({ status: "valid", standing: "unverified" })).toBe(Status.Unsigned);
    expect(badgeCode({ status: "valid", standing: "verified" })).toBe(Status.Valid);
    expect(badgeCode({ status: "invalid" })).toBe(Status.Bad);
    expect(badgeCode({ status: "valid", standing: null })).toBe(Status.Valid);
  });
});
