import sharp, { type Sharp } from 'sharp';
import { prepareImage, rowWhere } from '../../src/lab-reports/parsing/image-prep';
import { divideByBackground, findPageQuad, quadTilt, textSkew, warpQuad, type GreyImage, type Quad } from '../../src/lab-reports/parsing/page-geometry';
import { removeRules } from '../../src/lab-reports/parsing/table-rules';

/**
 * The page geometry of photos on small generated images: a "page" is a white sheet with rows of
 * dark bars for text lines, placed on a darker surface, turned and lit by sharp.
 */
const PAGE = { width: 400, height: 520 };

/** Text lines as bars, 12 px apart, of varied lengths, as an SVG page. */
function pageSvg(width = PAGE.width, height = PAGE.height): string {
  const bars: string[] = [];
  for (let y = 40, i = 0; y < height - 40; y += 14, i++) {
    bars.push(`<rect x="30" y="${y}" width="${120 + ((i * 37) % 200)}" height="6" fill="#111"/>`);
    bars.push(`<rect x="${width - 120}" y="${y}" width="60" height="6" fill="#111"/>`);
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#fff"/>${bars.join('')}</svg>`;
}

async function grey(image: Sharp): Promise<GreyImage> {
  const { data, info } = await image.grayscale().extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

/** The prepared page (a binary PGM) as sharp input. */
function fromPgm(pgm: Buffer): Sharp {
  const [, width, height] = /^P5\n(\d+) (\d+)\n255\n/.exec(pgm.subarray(0, 40).toString('latin1')) ?? [];
  const header = `P5\n${width} ${height}\n255\n`.length;
  return sharp(pgm.subarray(header), { raw: { width: Number(width), height: Number(height), channels: 1 } });
}

/** The page turned `degrees` clockwise on a surface of grey `surface`, `margin` px of it showing. */
async function photographed(degrees: number, surface = 80, margin = 60): Promise<Buffer> {
  const turned = await sharp(Buffer.from(pageSvg()))
    .rotate(degrees, { background: { r: surface, g: surface, b: surface } })
    .png()
    .toBuffer();
  return sharp(turned)
    .extend({ top: margin, bottom: margin, left: margin, right: margin, background: { r: surface, g: surface, b: surface } })
    .png()
    .toBuffer();
}

/** The corners of the page turned `degrees` clockwise about its centre, placed as `photographed` places it. */
function expectedCorners(degrees: number, margin = 60): Quad {
  const a = (degrees * Math.PI) / 180;
  const { width: w, height: h } = PAGE;
  const boxW = Math.abs(w * Math.cos(a)) + Math.abs(h * Math.sin(a));
  const boxH = Math.abs(w * Math.sin(a)) + Math.abs(h * Math.cos(a));
  const turn = (x: number, y: number) => ({
    x: margin + boxW / 2 + (x - w / 2) * Math.cos(a) - (y - h / 2) * Math.sin(a),
    y: margin + boxH / 2 + (x - w / 2) * Math.sin(a) + (y - h / 2) * Math.cos(a),
  });
  return [turn(0, 0), turn(w, 0), turn(w, h), turn(0, h)];
}

describe('findPageQuad', () => {
  it('finds the corners of a sheet turned 3° on a darker surface, within 3 px', async () => {
    const quad = findPageQuad(await grey(sharp(await photographed(3))));
    expect(quad).not.toBeNull();
    for (const [i, corner] of expectedCorners(3).entries()) {
      expect(Math.hypot((quad as Quad)[i].x - corner.x, (quad as Quad)[i].y - corner.y)).toBeLessThan(3);
    }
    expect(quadTilt(quad as Quad)).toBeCloseTo(3, 0);
  });

  it('finds none on a scan, where the page fills the frame', async () => {
    expect(findPageQuad(await grey(sharp(Buffer.from(pageSvg()))))).toBeNull();
  });

  it('finds none on a frame of one grey', async () => {
    expect(findPageQuad({ data: new Uint8Array(200 * 100).fill(128), width: 200, height: 100 })).toBeNull();
  });
});

describe('warpQuad', () => {
  it('flattens a turned sheet back square: its text lines level again', async () => {
    const photo = await grey(sharp(await photographed(-2.5)));
    const quad = findPageQuad(photo) as Quad;
    const flat = warpQuad(photo, quad, PAGE.width, PAGE.height);
    expect(Math.abs(textSkew(flat))).toBeLessThan(0.2);
    // The surface is gone: the flattened page's edges are paper.
    const edge = [...flat.data.subarray(0, PAGE.width)];
    expect(Math.min(...edge.slice(5, -5))).toBeGreaterThan(200);
  });

  it('reads a square quad as a plain crop', () => {
    const data = new Uint8Array(20 * 10).map((_, i) => i % 256);
    const image = { data, width: 20, height: 10 };
    const crop = warpQuad(
      image,
      [
        { x: 5, y: 2 },
        { x: 15, y: 2 },
        { x: 15, y: 8 },
        { x: 5, y: 8 },
      ],
      10,
      6,
    );
    expect(crop.data[0]).toBe(data[2 * 20 + 5]);
    expect(crop.data[5 * 10 + 9]).toBe(data[7 * 20 + 14]);
  });
});

describe('textSkew', () => {
  it.each([2, -1.5, 0])('measures text lines turned %s° to within 0.15° (a 400 px page: one pixel in 400 is 0.14°)', async (degrees) => {
    const page = await grey(sharp(Buffer.from(pageSvg())).rotate(degrees, { background: '#fff' }));
    expect(Math.abs(textSkew(page) - degrees)).toBeLessThan(0.15);
  });
});

describe('divideByBackground', () => {
  it('evens paper lit from one side to near white and keeps ink dark', () => {
    const width = 100;
    const height = 10;
    const lit = new Uint8Array(width * height).map((_, i) => 120 + (i % width));
    lit[5 * width + 10] = 20;
    const flat = divideByBackground({ data: lit, width, height }, { data: new Uint8Array(width * height).map((_, i) => 120 + (i % width)), width, height });
    expect(flat.data[5 * width + 90]).toBeGreaterThanOrEqual(240);
    expect(flat.data[5 * width + 5]).toBeGreaterThanOrEqual(240);
    expect(flat.data[5 * width + 10]).toBeLessThan(60);
  });
});

describe('removeRules', () => {
  it('whitens and counts the thin rules of a bordered cell and keeps the text in it, a bar of bold text and a thick block', () => {
    const width = 400;
    const height = 200;
    const data = new Uint8Array(width * height).fill(240);
    const ink = (x0: number, y0: number, x1: number, y1: number) => {
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) data[y * width + x] = 20;
    };
    // A cell 300 × 60 boxed by 2-px rules, glyph-sized blobs inside it.
    ink(20, 20, 320, 22);
    ink(20, 80, 320, 82);
    ink(20, 20, 22, 82);
    ink(318, 20, 320, 82);
    for (let x = 40; x < 200; x += 16) ink(x, 40, x + 10, 62);
    // A line of bold text set tight: one long run through it, but ink above and below the run.
    for (let x = 20; x < 340; x += 9) ink(x, 120, x + 9, 140);
    // A thick block (a filled bar): ink either side of every run in it.
    ink(20, 160, 380, 190);
    const { page: cleaned, runs } = removeRules({ data, width, height }, 50);
    const at = (x: number, y: number) => cleaned.data[y * width + x];
    expect([at(100, 21), at(100, 81), at(21, 50), at(319, 50)]).toEqual([255, 255, 255, 255]);
    expect([at(45, 50), at(130, 130), at(200, 175)]).toEqual([20, 20, 20]);
    // The box's two rules along rows and two down columns, each 2 px thick; the bold text and the block are no rules.
    expect(runs).toEqual({ across: 4, down: 4 });
  });
});

describe('prepareImage', () => {
  it('cuts a photographed sheet out on white, unwarped and scaled as its frame would be, for tesseract to turn by its text’s slope (at 72 dpi)', async () => {
    const photo = await photographed(2.5, 70, 80);
    const prepared = await prepareImage(photo);
    expect(prepared.steps).toEqual({ flattened: false, skewDegrees: null });
    expect(prepared.dpi).toBe(72);
    // Turned clockwise by 2.5°: tesseract turns it back.
    expect(prepared.rotateRadians).toBeCloseTo((-2.5 * Math.PI) / 180, 2);
    const frame = await sharp(photo).metadata();
    const meta = await fromPgm(prepared.image).metadata();
    expect([meta.width, meta.height]).toEqual([prepared.width, prepared.height]);
    // Cut to the sheet's bounding box (the frame less its 80 px margins), at the frame's scale.
    const scale = 3300 / Math.max(frame.width!, frame.height!);
    expect(prepared.height).toBeLessThan(3300);
    expect(Math.abs(prepared.height - (frame.height! - 160) * scale)).toBeLessThan(0.02 * prepared.height);
    // The surface is gone: the cut's corner, outside the turned sheet, is white.
    const corner = await grey(fromPgm(prepared.image).extract({ left: 0, top: 0, width: 20, height: 20 }));
    expect(Math.min(...corner.data)).toBe(255);
  });

  it('with `flatten`, cuts a photographed page out square and leaves its lines level', async () => {
    const prepared = await prepareImage(await photographed(2.5, 70, 80), { flatten: true });
    expect(prepared.steps.flattened).toBe(true);
    const page = await grey(fromPgm(prepared.image).resize(PAGE.width));
    expect(Math.abs(textSkew(page))).toBeLessThan(0.2);
    // Cut to the sheet: as tall as wide as the page is, not the photo.
    expect(prepared.height / prepared.width).toBeCloseTo(PAGE.height / PAGE.width, 1);
  });

  it('places a point of the photographed frame on both of a photo’s images: the sheet as tesseract turns it, and the flattened sheet', async () => {
    const photo = await photographed(2.5, 70, 80);
    const corners = expectedCorners(2.5, 80);
    const centre = { x: (corners[0].x + corners[2].x) / 2, y: (corners[0].y + corners[2].y) / 2 };
    const first = await prepareImage(photo);
    const flat = await prepareImage(photo, { flatten: true });
    const near = (a: { x: number; y: number }, b: { x: number; y: number }, within: number) => expect(Math.hypot(a.x - b.x, a.y - b.y)).toBeLessThan(within);
    // Turned level by tesseract about the image's centre, the sheet's top-left corner lies half the
    // sheet's scaled size up and left of that centre; toFrame takes it back to the photo's corner.
    const frame = await sharp(photo).metadata();
    const scale = 3300 / Math.max(frame.width!, frame.height!);
    const size = { w: PAGE.width * scale, h: PAGE.height * scale };
    near(first.toFrame!({ x: first.width / 2, y: first.height / 2 }), centre, 3);
    near(first.toFrame!({ x: first.width / 2 - size.w / 2, y: first.height / 2 - size.h / 2 }), corners[0], 4);
    // The flattened sheet is the page square: its corners at the image's (less the 1% inset), its centre at the centre.
    near(flat.fromFrame!(centre), { x: flat.width / 2, y: flat.height / 2 }, 0.01 * flat.width);
    near(flat.fromFrame!(corners[2]), { x: flat.width, y: flat.height }, 0.02 * flat.width);
    near(flat.fromFrame!(corners[0]), { x: 0, y: 0 }, 0.02 * flat.width);
  });

  it('turns a scan sloping 1.5° level without cutting it', async () => {
    const scan = await sharp(Buffer.from(pageSvg())).rotate(1.5, { background: '#fff' }).resize(1000).png().toBuffer();
    const prepared = await prepareImage(scan);
    expect(prepared.steps.flattened).toBe(false);
    expect(prepared.steps.skewDegrees).toBeCloseTo(1.5, 0);
    expect(Math.abs(textSkew(await grey(fromPgm(prepared.image).resize(PAGE.width))))).toBeLessThan(0.2);
  });

  it('leaves a level scan as it is, only scaled', async () => {
    const prepared = await prepareImage(await sharp(Buffer.from(pageSvg())).resize(1000).png().toBuffer());
    expect(prepared.steps).toEqual({ flattened: false, skewDegrees: expect.closeTo(0, 1) as number });
    expect(Math.max(prepared.width, prepared.height)).toBe(3300);
  });

  it('with `withoutRules`, counts the rules down a page: none on a page ruled only across, some where a block is boxed', async () => {
    const ruled = (box: boolean) => {
      const rules = ['<rect x="20" y="30" width="360" height="2" fill="#111"/>', '<rect x="20" y="480" width="360" height="2" fill="#111"/>'];
      // A block of the page's first lines boxed (as a patient block is), its sides down the page.
      if (box)
        rules.push(
          '<rect x="20" y="30" width="2" height="90" fill="#111"/>',
          '<rect x="378" y="30" width="2" height="90" fill="#111"/>',
          '<rect x="20" y="118" width="360" height="2" fill="#111"/>',
        );
      return pageSvg().replace('</svg>', `${rules.join('')}</svg>`);
    };
    const prepared = async (box: boolean) =>
      prepareImage(
        await sharp(Buffer.from(ruled(box)))
          .resize(1000)
          .png()
          .toBuffer(),
        { withoutRules: true },
      );
    const [across, boxed] = [await prepared(false), await prepared(true)];
    expect(across.steps.verticalRules).toBe(0);
    expect(boxed.steps.verticalRules).toBeGreaterThan(0);
  });
});

describe('rowWhere', () => {
  it('finds the first row, up or down, where a span of a prepared page holds ink or is blank', () => {
    const [width, height] = [20, 30];
    const pixels = Buffer.alloc(width * height, 255);
    // Ink on rows 5-7 across the page, and on rows 20-22 left of x = 8 only.
    for (let y = 5; y <= 7; y++) pixels.fill(0, y * width, (y + 1) * width);
    for (let y = 20; y <= 22; y++) pixels.fill(0, y * width, y * width + 8);
    const pgm = Buffer.concat([Buffer.from(`P5\n${width} ${height}\n255\n`, 'ascii'), pixels]);
    const strip = { left: 10, right: 13 };
    expect(rowWhere(pgm, strip, 15, -1, 'ink')).toBe(7);
    // Down the strip, nothing crosses it: the page's foot.
    expect(rowWhere(pgm, strip, 15, 1, 'ink')).toBe(29);
    expect(rowWhere(pgm, { left: 0, right: 8 }, 15, 1, 'ink')).toBe(20);
    expect(rowWhere(pgm, { left: 0, right: 8 }, 20, 1, 'blank')).toBe(23);
    expect(rowWhere(pgm, strip, 7, 1, 'blank')).toBe(8);
  });
});
