/**
 * Geometry of a photographed page on plain grey rasters (one byte a pixel): where the sheet lies
 * against the surface it was photographed on, the warp that flattens it, its light, and the slope
 * of its text lines. sharp has no perspective warp and opencv.js costs ~10 MB of WASM and a second
 * of start-up for the three routines used here, so they are written out; each is linear in the
 * pixels (a 2500×3300 page: ~0.1 s).
 */
// Module-level bindings, not `Math.x` in the per-pixel loops: inside Jest's sandbox every lookup of
// a global goes through the vm context's interceptor, which made these loops ~50 times slower.
const { abs, atan2, ceil, cos, floor, max, min, round, sin, tan, PI } = Math;

export interface GreyImage {
  data: Uint8Array;
  width: number;
  height: number;
}

export interface Point {
  x: number;
  y: number;
}

/** Corners of a page: top-left, top-right, bottom-right, bottom-left. */
export type Quad = [Point, Point, Point, Point];

/** Otsu's threshold: the grey level that best parts a raster's histogram into two classes. */
export function otsuThreshold(image: GreyImage): number {
  const histogram = new Float64Array(256);
  for (const v of image.data) histogram[v] += 1;
  const total = image.data.length;
  let sumAll = 0;
  for (let i = 0; i < 256; i++) sumAll += i * histogram[i];
  let below = 0;
  let sumBelow = 0;
  let best = 0;
  let threshold = 128;
  for (let t = 0; t < 256; t++) {
    below += histogram[t];
    if (!below || below === total) continue;
    sumBelow += t * histogram[t];
    const meanBelow = sumBelow / below;
    const meanAbove = (sumAll - sumBelow) / (total - below);
    const between = below * (total - below) * (meanBelow - meanAbove) ** 2;
    if (between > best) {
      best = between;
      threshold = t;
    }
  }
  return threshold;
}

/** The largest 4-connected region of pixels above `threshold`, as a 0/1 mask, and its size. */
function largestBrightRegion(image: GreyImage, threshold: number): { mask: Uint8Array; area: number } {
  const { data, width, height } = image;
  const label = new Int32Array(width * height);
  const queue = new Int32Array(width * height);
  let bestLabel = 0;
  let bestArea = 0;
  let next = 0;
  for (let start = 0; start < data.length; start++) {
    if (label[start] || data[start] <= threshold) continue;
    next += 1;
    let head = 0;
    let tail = 0;
    queue[tail++] = start;
    label[start] = next;
    while (head < tail) {
      const p = queue[head++];
      const x = p % width;
      for (let k = 0; k < 4; k++) {
        const n = k === 0 ? (x > 0 ? p - 1 : -1) : k === 1 ? (x < width - 1 ? p + 1 : -1) : k === 2 ? p - width : p + width;
        if (n < 0 || n >= data.length || label[n] || data[n] <= threshold) continue;
        label[n] = next;
        queue[tail++] = n;
      }
    }
    if (tail > bestArea) {
      bestArea = tail;
      bestLabel = next;
    }
  }
  const mask = new Uint8Array(width * height);
  for (let i = 0; i < mask.length; i++) mask[i] = label[i] === bestLabel ? 1 : 0;
  return { mask, area: bestArea };
}

/** A line `across = slope * along + offset`, fitted by least squares with far points dropped once. */
function fitLine(points: Point[]): { slope: number; offset: number } | null {
  let kept = points;
  let fit: { slope: number; offset: number } | null = null;
  for (let round = 0; round < 3 && kept.length >= 8; round++) {
    const n = kept.length;
    const sx = kept.reduce((s, p) => s + p.x, 0);
    const sy = kept.reduce((s, p) => s + p.y, 0);
    const sxx = kept.reduce((s, p) => s + p.x * p.x, 0);
    const sxy = kept.reduce((s, p) => s + p.x * p.y, 0);
    const denominator = n * sxx - sx * sx;
    if (!denominator) return null;
    const slope = (n * sxy - sx * sy) / denominator;
    fit = { slope, offset: (sy - slope * sx) / n };
    const current = fit;
    const residuals = kept.map((p) => abs(p.y - (current.slope * p.x + current.offset)));
    const limit = max(1.5, [...residuals].sort((a, b) => a - b)[floor(residuals.length * 0.8)] * 2);
    kept = kept.filter((_, i) => residuals[i] <= limit);
  }
  return fit;
}

/**
 * The corners of a sheet of paper photographed on a darker surface, or null when none shows: the
 * brightest region (Otsu) must cover 25-97% of the frame and leave most of the frame's border to
 * the surface (a scan, all page, has none). Each side is a line fitted through the region's outermost
 * pixels over the middle of that side, so a corner cut off or a shadow at one end does not tilt it.
 */
export function findPageQuad(image: GreyImage): Quad | null {
  const { width, height } = image;
  const { mask, area } = largestBrightRegion(image, otsuThreshold(image));
  const frame = width * height;
  if (area < frame * 0.25 || area > frame * 0.97) return null;
  let borderPage = 0;
  for (let x = 0; x < width; x++) borderPage += mask[x] + mask[(height - 1) * width + x];
  for (let y = 0; y < height; y++) borderPage += mask[y * width] + mask[y * width + width - 1];
  if (borderPage > (width + height) * 2 * 0.5) return null;

  let top = height;
  let bottom = 0;
  let leftmost = width;
  let rightmost = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (!mask[y * width + x]) continue;
      top = min(top, y);
      bottom = max(bottom, y);
      leftmost = min(leftmost, x);
      rightmost = max(rightmost, x);
    }
  }
  // Sides as `x = f(y)` (left, right) and `y = f(x)` (top, bottom), over their middle 70%.
  const rows = { from: round(top + (bottom - top) * 0.15), to: round(bottom - (bottom - top) * 0.15) };
  const cols = { from: round(leftmost + (rightmost - leftmost) * 0.15), to: round(rightmost - (rightmost - leftmost) * 0.15) };
  const left: Point[] = [];
  const right: Point[] = [];
  for (let y = rows.from; y <= rows.to; y++) {
    let first = -1;
    let last = -1;
    for (let x = 0; x < width; x++) {
      if (!mask[y * width + x]) continue;
      if (first < 0) first = x;
      last = x;
    }
    if (first >= 0) {
      left.push({ x: y, y: first });
      right.push({ x: y, y: last + 1 });
    }
  }
  const upper: Point[] = [];
  const lower: Point[] = [];
  for (let x = cols.from; x <= cols.to; x++) {
    let first = -1;
    let last = -1;
    for (let y = 0; y < height; y++) {
      if (!mask[y * width + x]) continue;
      if (first < 0) first = y;
      last = y;
    }
    if (first >= 0) {
      upper.push({ x, y: first });
      lower.push({ x, y: last + 1 });
    }
  }
  const [l, r, t, b] = [fitLine(left), fitLine(right), fitLine(upper), fitLine(lower)];
  if (!l || !r || !t || !b) return null;
  // Where a `x = l.slope*y + l.offset` side meets a `y = t.slope*x + t.offset` side.
  const meet = (side: { slope: number; offset: number }, edge: { slope: number; offset: number }): Point => {
    const y = (edge.slope * side.offset + edge.offset) / (1 - edge.slope * side.slope);
    return { x: side.slope * y + side.offset, y };
  };
  const quad: Quad = [meet(l, t), meet(r, t), meet(r, b), meet(l, b)];
  const inFrame = quad.every((p) => p.x > -width * 0.05 && p.x < width * 1.05 && p.y > -height * 0.05 && p.y < height * 1.05);
  return inFrame && quadArea(quad) > frame * 0.25 ? quad : null;
}

function quadArea(q: Quad): number {
  let twice = 0;
  for (let i = 0; i < 4; i++) twice += q[i].x * q[(i + 1) % 4].y - q[(i + 1) % 4].x * q[i].y;
  return abs(twice) / 2;
}

/** The largest angle, in degrees, between a side of the quad and the frame's axes. */
export function quadTilt(q: Quad): number {
  const sides = [
    atan2(q[1].y - q[0].y, q[1].x - q[0].x),
    atan2(q[2].y - q[3].y, q[2].x - q[3].x),
    atan2(q[0].x - q[3].x, q[3].y - q[0].y),
    atan2(q[1].x - q[2].x, q[2].y - q[1].y),
  ];
  return max(...sides.map((a) => abs((a * 180) / PI)));
}

/** The homography taking the rectangle `width`×`height` (origin top-left) onto `quad`. */
function rectangleToQuad(width: number, height: number, quad: Quad): number[] {
  return homography(rectangle(width, height), quad);
}

const rectangle = (width: number, height: number): Quad => [
  { x: 0, y: 0 },
  { x: width, y: 0 },
  { x: width, y: height },
  { x: 0, y: height },
];

/** The homography h0..h7 (h8 = 1) taking the four points `from` onto `to`. */
function homography(from: Quad, to: Quad): number[] {
  // Eight equations in h0..h7: x' = (h0 x + h1 y + h2) / (h6 x + h7 y + 1), y' likewise.
  const rows: number[][] = [];
  for (let i = 0; i < 4; i++) {
    const { x, y } = from[i];
    const { x: u, y: v } = to[i];
    rows.push([x, y, 1, 0, 0, 0, -x * u, -y * u, u]);
    rows.push([0, 0, 0, x, y, 1, -x * v, -y * v, v]);
  }
  for (let col = 0; col < 8; col++) {
    let pivot = col;
    for (let r = col + 1; r < 8; r++) if (abs(rows[r][col]) > abs(rows[pivot][col])) pivot = r;
    [rows[col], rows[pivot]] = [rows[pivot], rows[col]];
    for (let r = 0; r < 8; r++) {
      if (r === col) continue;
      const factor = rows[r][col] / rows[col][col];
      for (let c = col; c < 9; c++) rows[r][c] -= factor * rows[col][c];
    }
  }
  return rows.map((row, i) => row[8] / row[i]);
}

/**
 * Where a point of the photographed image lies on the sheet `warpQuad(image, quad, width, height)`
 * flattened it into (the inverse of the warp's own mapping).
 */
export function pointOnFlattened(point: Point, quad: Quad, width: number, height: number): Point {
  const h = homography(quad, rectangle(width, height));
  const w = h[6] * point.x + h[7] * point.y + 1;
  return { x: (h[0] * point.x + h[1] * point.y + h[2]) / w, y: (h[3] * point.x + h[4] * point.y + h[5]) / w };
}

/** `point` turned by `radians` (clockwise on the page: y points down) about `centre`. */
export function turned(point: Point, radians: number, centre: Point): Point {
  const [c, s] = [cos(radians), sin(radians)];
  const [dx, dy] = [point.x - centre.x, point.y - centre.y];
  return { x: centre.x + dx * c - dy * s, y: centre.y + dx * s + dy * c };
}

/** The whole pixels a quad covers: from its leftmost and topmost corner to its rightmost and lowest. */
export function quadBounds(image: { width: number; height: number }, quad: Quad): { left: number; top: number; width: number; height: number } {
  const left = max(0, floor(min(...quad.map((p) => p.x))));
  const top = max(0, floor(min(...quad.map((p) => p.y))));
  return { left, top, width: min(image.width, ceil(max(...quad.map((p) => p.x)))) - left, height: min(image.height, ceil(max(...quad.map((p) => p.y)))) - top };
}

/**
 * The part of `image` inside the (convex) quad, on white: the image cut to the quad's bounding box,
 * every pixel outside the quad painted white.
 */
export function cutToQuad(image: GreyImage, quad: Quad): GreyImage {
  const { left, top, width, height } = quadBounds(image, quad);
  const out = new Uint8Array(width * height).fill(255);
  for (let y = 0; y < height; y++) {
    // Where the row crosses the quad's edges: the quad is convex, so inside is one span.
    const row = top + y + 0.5;
    let from = Infinity;
    let to = -Infinity;
    quad.forEach((a, i) => {
      const b = quad[(i + 1) % 4];
      if ((a.y <= row && b.y > row) || (b.y <= row && a.y > row)) {
        const x = a.x + ((row - a.y) * (b.x - a.x)) / (b.y - a.y);
        from = min(from, x);
        to = max(to, x);
      }
    });
    const x0 = max(left, ceil(from - 0.5));
    const x1 = min(left + width, floor(to - 0.5) + 1);
    if (x1 > x0) out.set(image.data.subarray((top + y) * image.width + x0, (top + y) * image.width + x1), y * width + x0 - left);
  }
  return { data: out, width, height };
}

/**
 * The quad of `image` flattened into a `width`×`height` rectangle (bilinear sampling); pixels
 * whose source falls outside the image are white.
 */
export function warpQuad(image: GreyImage, quad: Quad, width: number, height: number): GreyImage {
  const h = rectangleToQuad(width, height, quad);
  const { data: src, width: sw, height: sh } = image;
  const out = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const cy = y + 0.5;
    for (let x = 0; x < width; x++) {
      const cx = x + 0.5;
      const w = h[6] * cx + h[7] * cy + 1;
      const fx = (h[0] * cx + h[1] * cy + h[2]) / w - 0.5;
      const fy = (h[3] * cx + h[4] * cy + h[5]) / w - 0.5;
      const x0 = floor(fx);
      const y0 = floor(fy);
      if (x0 < 0 || y0 < 0 || x0 + 1 >= sw || y0 + 1 >= sh) {
        out[y * width + x] = 255;
        continue;
      }
      const ax = fx - x0;
      const ay = fy - y0;
      const p = y0 * sw + x0;
      const top = src[p] + (src[p + 1] - src[p]) * ax;
      const bottom = src[p + sw] + (src[p + sw + 1] - src[p + sw]) * ax;
      out[y * width + x] = round(top + (bottom - top) * ay);
    }
  }
  return { data: out, width, height };
}

/**
 * Evens out uneven light: each pixel divided by the paper's brightness around it, `background`
 * (the same page, heavily shrunk, its text taken out by a maximum filter and scaled back up), so
 * paper comes out near white and ink keeps its contrast. Grey levels are kept (no threshold): a
 * binarised page lost decimal points, read as colons.
 */
export function divideByBackground(image: GreyImage, background: GreyImage): GreyImage {
  const out = new Uint8Array(image.data.length);
  for (let i = 0; i < out.length; i++) {
    const paper = max(background.data[i], 24);
    out[i] = min(255, round((image.data[i] * 245) / paper));
  }
  return { data: out, width: image.width, height: image.height };
}

/** A maximum filter over a square of side 2·radius+1 (separable): light paper spreads over ink. */
export function maxFilter(image: GreyImage, radius: number): GreyImage {
  const { data, width, height } = image;
  const across = new Uint8Array(data.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let m = 0;
      for (let dx = max(0, x - radius); dx <= min(width - 1, x + radius); dx++) m = max(m, data[y * width + dx]);
      across[y * width + x] = m;
    }
  }
  const out = new Uint8Array(data.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let m = 0;
      for (let dy = max(0, y - radius); dy <= min(height - 1, y + radius); dy++) m = max(m, across[dy * width + x]);
      out[y * width + x] = m;
    }
  }
  return { data: out, width, height };
}

/**
 * The slope of a page's text lines in degrees (positive: lines fall to the right, clockwise), by
 * projection profiles: ink pixels projected along each candidate slope pile into the fewest, fullest
 * rows when the slope is the lines' own. Searched over ±`range`°, coarse then fine.
 */
export function textSkew(image: GreyImage, range = 5): number {
  const { data, width, height } = image;
  const threshold = otsuThreshold(image);
  let count = 0;
  for (let i = 0; i < data.length; i++) if (data[i] < threshold) count += 1;
  if (count < 50) return 0;
  const xs = new Int32Array(count);
  const ys = new Int32Array(count);
  for (let y = 0, n = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (data[y * width + x] < threshold) {
        xs[n] = x;
        ys[n++] = y;
      }
    }
  }
  const margin = ceil(width * tan((range * PI) / 180)) + 1;
  const bins = new Float64Array(height + 2 * margin);
  const score = (degrees: number): number => {
    const t = tan((degrees * PI) / 180);
    bins.fill(0);
    for (let i = 0; i < xs.length; i++) bins[round(ys[i] - xs[i] * t) + margin] += 1;
    let sum = 0;
    for (const b of bins) sum += b * b;
    return sum;
  };
  const search = (from: number, to: number, step: number): number => {
    let best = 0;
    let bestScore = -1;
    for (let a = from; a <= to + 1e-9; a += step) {
      const s = score(a);
      if (s > bestScore) {
        bestScore = s;
        best = a;
      }
    }
    return best;
  };
  const coarse = search(-range, range, 0.25);
  return round(search(coarse - 0.25, coarse + 0.25, 0.025) * 1000) / 1000;
}
