/**
 * What OCR makes of a label's letters, and the label read back: Courier's narrow m read as n, bold
 * capitals read as one another, a word gap lost. Used by ./labels.ts, which passes in its lookups
 * (so this file imports nothing of it back).
 */

/** How labels.ts names a label's field: by the wordings it lists, and by the label's words. */
export interface LabelLookup<F extends string> {
  listed(text: string): F | null;
  byWords(text: string): F | null;
}

/** Most `n`s of one label read back as `m`: `Specinen Collection Date/Tine` needs two. */
const MAX_NARROW_MS = 2;

/**
 * OCR reads Courier's narrow `m` as `n` (`Specinen`, `Date/Tine`): the field of the label with one
 * or two of its `n`s read as `m`, when that names a field (not `other`).
 */
export function narrowMs<F extends string>(t: string, lookup: LabelLookup<F>): F | null {
  const at = [...t].flatMap((c, i) => (c === 'n' ? [i] : []));
  if (!at.length || at.length > 6) return null;
  let variants = [t];
  for (let round = 1; round <= MAX_NARROW_MS; round += 1) {
    variants = [...new Set(variants.flatMap((v) => at.filter((i) => v[i] === 'n').map((i) => `${v.slice(0, i)}m${v.slice(i + 1)}`)))];
    for (const variant of variants) {
      const field = lookup.listed(variant) ?? lookup.byWords(variant);
      if (field !== null && field !== 'other') return field;
    }
  }
  return null;
}

/** OCR drops the space of a word gap in small capitals (`SPECIMENID`): the field of the label with one space put back. */
export function respaced<F extends string>(t: string, lookup: LabelLookup<F>): F | null {
  if (!/^[A-Z]{6,20}$/.test(t)) return null;
  for (let at = 2; at <= t.length - 2; at++) {
    const spaced = lookup.listed(`${t.slice(0, at)} ${t.slice(at)}`);
    if (spaced !== null) return spaced;
  }
  return null;
}

/** Bold capitals OCR reads as each other. */
const CAPITALS_MISREAD: Record<string, string> = { C: 'O', O: 'C', I: 'T', T: 'I' };

/**
 * What OCR makes of bold capitals (a faxed report's Courier labels): `T` read as `I'`
 * (`PATIENI' NAME`), `O` as `C` and `C` as `O` (`DATE CF BIRTH`, `OOLL DATE`), `I` as `T`
 * (`PATTENI'`), a capital doubled (`PATTIENI'`), a word split in two (`PATI ENI'`) or two run
 * together (`PATIENI'NAME`). A label printed in capitals that names nothing as read is tried with
 * `I'` read as `T`, then with one `C` or `O`, `I` or `T` read as the other or one doubled capital
 * single, each with its word gaps as read and with them taken
 * out and one put back; only a field a label names (not `other`) is taken. Mixed case is left
 * alone: these are misreadings of capitals.
 */
export function misreadCapitals<F extends string>(t: string, lookup: LabelLookup<F>): F | null {
  if (/\p{Ll}/u.test(t) || !/^[A-Z' ]{2,30}$/.test(t)) return null;
  const bases = [t, t.replace(/I'/g, 'T')];
  const variants = new Set<string>();
  for (const base of bases) {
    variants.add(base);
    [...base].forEach((c, i) => {
      const other = CAPITALS_MISREAD[c];
      if (other) variants.add(`${base.slice(0, i)}${other}${base.slice(i + 1)}`);
      if (c === base[i + 1]) variants.add(`${base.slice(0, i)}${base.slice(i + 1)}`);
    });
  }
  for (const variant of variants) {
    if (variant.includes("'")) continue;
    const joined = variant.replace(/ /g, '');
    const field =
      (variant === t ? null : (lookup.listed(variant) ?? lookup.byWords(variant))) ??
      (joined === variant ? null : (lookup.listed(joined) ?? lookup.byWords(joined))) ??
      respaced(joined, lookup);
    if (field !== null && field !== 'other') return field;
  }
  return null;
}
