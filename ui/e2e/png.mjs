// Just enough PNG reading for the tests: the signature, the IHDR header, and the pixels of
// 8-bit greyscale / RGB / RGBA non-interlaced images (what Chromium writes), to tell a drawn
// canvas from a blank one. No dependencies.

import { inflateSync } from "node:zlib";

export const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The IHDR fields, or throws when `buf` is not a PNG. */
export function pngHeader(buf) {
  if (buf.length < 33 || !buf.subarray(0, 8).equals(PNG_SIGNATURE)) throw new Error("not a PNG (bad signature)");
  if (buf.toString("latin1", 12, 16) !== "IHDR") throw new Error("not a PNG (first chunk is not IHDR)");
  return {
    width: buf.readUInt32BE(16),
    height: buf.readUInt32BE(20),
    bitDepth: buf[24],
    colorType: buf[25],
    interlace: buf[28],
  };
}

/** Decodes to { width, height, channels, data } (data: one byte per channel, rows packed). */
export function decodePng(buf) {
  const hd = pngHeader(buf);
  const channels = { 0: 1, 2: 3, 4: 2, 6: 4 }[hd.colorType];
  if (hd.bitDepth !== 8 || !channels || hd.interlace !== 0) {
    throw new Error(`unsupported PNG: depth ${hd.bitDepth}, colour type ${hd.colorType}, interlace ${hd.interlace}`);
  }
  const idat = [];
  let off = 8;
  let sawEnd = false;
  while (off + 8 <= buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString("latin1", off + 4, off + 8);
    if (type === "IDAT") idat.push(buf.subarray(off + 8, off + 8 + len));
    off += 12 + len;
    if (type === "IEND") { sawEnd = true; break; }
  }
  if (!sawEnd) throw new Error("truncated PNG (no IEND)");
  const raw = inflateSync(Buffer.concat(idat));
  const stride = hd.width * channels;
  const data = Buffer.alloc(stride * hd.height);
  for (let y = 0; y < hd.height; y++) {
    const filter = raw[y * (stride + 1)];
    const src = y * (stride + 1) + 1;
    const dst = y * stride;
    for (let x = 0; x < stride; x++) {
      const a = x >= channels ? data[dst + x - channels] : 0;
      const b = y > 0 ? data[dst - stride + x] : 0;
      const c = x >= channels && y > 0 ? data[dst - stride + x - channels] : 0;
      const v = raw[src + x];
      let out;
      switch (filter) {
        case 0: out = v; break;
        case 1: out = v + a; break;
        case 2: out = v + b; break;
        case 3: out = v + ((a + b) >> 1); break;
        case 4: {
          const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
          out = v + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
          break;
        }
        default: throw new Error(`bad PNG filter ${filter} on row ${y}`);
      }
      data[dst + x] = out & 255;
    }
  }
  return { width: hd.width, height: hd.height, channels, data };
}

/**
 * How varied an image is: the number of distinct colours (RGB), the most common colour (the
 * background) and the share of pixels that differ from it by more than `tolerance` per channel.
 */
export function pixelStats(img, tolerance = 8) {
  const { data, channels } = img;
  const n = img.width * img.height;
  const counts = new Map();
  const rgb = (i) => (channels >= 3 ? [data[i], data[i + 1], data[i + 2]] : [data[i], data[i], data[i]]);
  for (let p = 0; p < n; p++) {
    const [r, g, b] = rgb(p * channels);
    const key = (r << 16) | (g << 8) | b;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let bg = 0, bgCount = -1;
  for (const [k, c] of counts) if (c > bgCount) { bg = k; bgCount = c; }
  const br = bg >> 16, bgG = (bg >> 8) & 255, bb = bg & 255;
  let differing = 0;
  for (let p = 0; p < n; p++) {
    const [r, g, b] = rgb(p * channels);
    if (Math.abs(r - br) > tolerance || Math.abs(g - bgG) > tolerance || Math.abs(b - bb) > tolerance) differing++;
  }
  return { colours: counts.size, background: [br, bgG, bb], differing: differing / n };
}

/**
 * The share of the image's width and height that its drawing spans: from the first to the last
 * column (row) holding at least `dense` pixels that differ from the background, so that thin
 * lines crossing the image (edges) do not count as drawing, and boxes (nodes) do.
 */
export function drawnExtent(img, { dense = 12, tolerance = 8 } = {}) {
  const { data, channels, width, height } = img;
  const [br, bg, bb] = pixelStats(img, tolerance).background;
  const cols = new Uint32Array(width), rows = new Uint32Array(height);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * channels;
      const [r, g, b] = channels >= 3 ? [data[i], data[i + 1], data[i + 2]] : [data[i], data[i], data[i]];
      if (Math.abs(r - br) > tolerance || Math.abs(g - bg) > tolerance || Math.abs(b - bb) > tolerance) {
        cols[x]++;
        rows[y]++;
      }
    }
  }
  const span = (counts) => {
    const first = counts.findIndex((c) => c >= dense);
    if (first < 0) return 0;
    const last = counts.length - 1 - [...counts].reverse().findIndex((c) => c >= dense);
    return (last - first + 1) / counts.length;
  };
  return { x: span(cols), y: span(rows) };
}
