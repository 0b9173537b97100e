import type { LoincMatch, LoincMatchStatus, MatchedMetadata, MatchedReport, MatchedResult, ParsedReport, ParsedResult } from '../types';
import type { LoincCatalogue, LoincCatalogueEntry } from './catalogue';
import { withinOneEdit } from '../edit-distance';
import { KNOWN_UNITS } from '../ocr-units';
import { nameKey, ocrFoldedKey, sameDimension, unitKey } from './normalise';
import { withinScale } from './scales';

/** At or above this score, and clearly ahead of the next code, a match needs no review. */
export const AUTO_MATCH_SCORE = 0.85;
/** Below this the best candidate is not offered as a match. */
export const REVIEW_SCORE = 0.55;
const MAX_CANDIDATES = 5;

/** Each result with up to five LOINC candidates, shaped as the SDK's `LabReportResult`. */
export function matchReport(report: ParsedReport, catalogue: LoincCatalogue): MatchedReport {
  return { metadata: toMetadata(report), results: report.results.map((result) => matchResult(result, catalogue, { ocr: report.ocr === true })) };
}

function toMetadata({ metadata: m }: ParsedReport): MatchedMetadata {
  return {
    patient_first_name: m.patient_first_name ?? '',
    patient_last_name: m.patient_last_name ?? '',
    dob: m.dob ?? '',
    lab_name: m.lab_name ?? '',
    ...(m.gender ? { gender: m.gender } : {}),
    ...(m.date_reported ? { date_reported: m.date_reported } : {}),
    ...(m.date_collected ? { date_collected: m.date_collected } : {}),
    ...(m.specimen_number ? { specimen_number: m.specimen_number } : {}),
    ...(m.lab_clia ? { lab_clia: m.lab_clia } : {}),
    ...(m.ordering_provider ? { ordering_provider: m.ordering_provider } : {}),
  };
}

/**
 * `ocr`: the result was read by OCR, so a whole value beyond what the code it surely matches can
 * be is put back into scale first (scales.ts). Scored once: the scale changes no name, unit or type.
 */
export function matchResult(read: ParsedResult, catalogue: LoincCatalogue, options: { ocr?: boolean } = {}): MatchedResult {
  const { scored, restoredName } = scoreCandidates(read, catalogue);
  const candidates = scored.map(toMatch);
  const [best, second] = scored;
  const result = options.ocr && best && best.score >= AUTO_MATCH_SCORE ? withinScale(read, best.entry.row.code) : read;
  let status: LoincMatchStatus = 'no_match';
  if (best && best.score >= AUTO_MATCH_SCORE && (!second || best.score - second.score >= 0.05)) status = 'auto_match';
  else if (best && best.score >= REVIEW_SCORE) status = 'needs_review';
  return {
    test_name: restoredName ?? result.test_name,
    value: result.value,
    type: result.type,
    ...(result.units ? { units: result.units } : {}),
    ...(result.min_reference_range !== null ? { min_reference_range: result.min_reference_range } : {}),
    ...(result.max_reference_range !== null ? { max_reference_range: result.max_reference_range } : {}),
    ...(result.source_panel_name ? { source_panel_name: result.source_panel_name } : {}),
    interpretation: result.interpretation,
    ...(result.is_above_max_range !== null ? { is_above_max_range: result.is_above_max_range } : {}),
    ...(result.is_below_min_range !== null ? { is_below_min_range: result.is_below_min_range } : {}),
    loinc_match_status: status,
    loinc_matches: status === 'no_match' ? candidates.filter((c) => c.confidence_score >= 0.35).slice(0, 3) : candidates,
  };
}

/**
 * Scores every code by how well the printed name meets its display name, aliases or long name,
 * then moves the score by unit agreement (`%` is not `10^3/uL`: the percentage and the absolute
 * count of a white cell type share a name) and specimen agreement (urine glucose vs serum).
 */
export function loincCandidates(result: ParsedResult, catalogue: LoincCatalogue): LoincMatch[] {
  return scoreCandidates(result, catalogue).scored.map(toMatch);
}

interface Scored {
  entry: LoincCatalogueEntry;
  /** Unclipped, so an exact name with agreeing unit still ranks above an exact alias of another specimen. */
  score: number;
}

function toMatch({ entry, score }: Scored): LoincMatch {
  return {
    loinc_code: entry.row.code,
    loinc_name: entry.row.name,
    ...(entry.row.display_name ? { display_name: entry.row.display_name } : {}),
    aliases: entry.row.aliases,
    confidence_score: Math.round(Math.max(0, Math.min(1, score)) * 1000) / 1000,
  };
}

function scoreCandidates(result: ParsedResult, catalogue: LoincCatalogue): { scored: Scored[]; restoredName: string | null } {
  const key = nameKey(result.test_name);
  if (!key) return { scored: [], restoredName: null };
  // A name printed in two languages (`Tốc độ máu lắng (VS) / ESR`): either half may be the one the
  // catalogue knows; so may the abbreviation in capitals a name ends with (`Số lượng bạch cầu (WBC)`).
  // (`Total Cholesterol / HDL Ratio` is one name: a ratio's two terms are no two languages.)
  const halves = /\b(ratio|index)\s*$/i.test(result.test_name) ? [] : result.test_name.split(' / ');
  const abbreviation = /\(([A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*[%#]?)\)$/.exec(result.test_name.trim())?.[1];
  const keys = [key, ...(halves.length === 2 ? halves : []), ...(abbreviation ? [abbreviation] : [])]
    .map((name, i) => (i === 0 ? name : nameKey(name)))
    .filter((k, i, all) => k && all.indexOf(k) === i);
  const printed = keys.map((k) => ({ key: k, tokens: k.split(' '), grams: trigrams(k) }));
  const index = catalogueIndex(catalogue);
  // A unit no lab prints (OCR's `ny/` for `mg/dL`) is no evidence for or against a code.
  const read = unitKey(result.units);
  const unit = read && index.units.has(read) ? read : null;
  const qualitative = result.units === null && QUALITATIVE_RESULT.test(result.value.trim());
  // A name that meets no catalogue name as read, but one test's name with OCR's letter confusions
  // folded (`AIP` is `ALP`): that test's codes, the name as the catalogue spells it.
  // (Not a name in another script, `Φερριτίνη / Ferritin`: OCR reads Latin letters only, and folding drops the others.)
  const known = keys.some((k) => index.names.has(k)) || OTHER_SCRIPT.test(result.test_name);
  // (`S. Fenitin`: the name after a specimen's initial, the initial kept in the name restored.)
  const asRead = known ? undefined : index.folded.get(ocrFoldedKey(result.test_name));
  const initial = known || asRead ? '' : (BLOOD_SPECIMEN_INITIAL.exec(result.test_name)?.[0] ?? '');
  const afterInitial = result.test_name.slice(initial.length);
  const byInitial = initial && !index.names.has(nameKey(afterInitial)) ? index.folded.get(ocrFoldedKey(afterInitial)) : undefined;
  const folded = foldedName(asRead ?? byInitial, unit);
  const prefix = byInitial ? initial : '';
  // A name naming a virus by its letters that some codes' names name too (`HCV Antibody`): those
  // codes only. One letter apart (`HIV Antibody`), or sharing only the rest (`Antinuclear
  // Antibody`), another test's name is no near miss of it.
  const viruses = printed.flatMap((p) => p.tokens).filter((t) => index.virusEntries.has(t));
  const virusEntries = viruses.length ? new Set(viruses.flatMap((v) => [...(index.virusEntries.get(v) ?? [])])) : null;
  const scored: Scored[] = [];
  for (const entry of catalogue.entries) {
    if (virusEntries && !virusEntries.has(entry)) continue;
    let name = 0;
    const entryGrams = entryTrigrams(entry);
    entry.keys.forEach((candidate, i) => {
      for (const { key: own, tokens, grams } of printed) {
        name = Math.max(name, entry.weights[i] * (candidate === own ? 1 : similarity(tokens, grams, entry.tokens[i], entryGrams[i])));
      }
    });
    if (folded?.entries.has(entry)) name = Math.max(name, FOLDED_NAME_SCORE);
    if (name < 0.4) continue;
    let score = name;
    if (unit && entry.unit) {
      if (unit === entry.unit) score += 0.08;
      else if (!sameDimension(unit, entry.unit)) score -= 0.2;
    }
    // `Negative`, `Trace` or `2+` is no amount per volume: a serum glucose or protein is a number,
    // the dipstick's (or a presence test's) is read this way. Still less is it a count: a dipstick's
    // `Leucocytes  Negative` is its leukocyte esterase, not a sediment's or the blood's count.
    if (qualitative && QUANTITATIVE.test(entry.row.name) && !/\bby Test strip\b/i.test(entry.row.name)) score -= 0.15;
    else if (qualitative && COUNT.test(entry.row.name)) score -= 0.25;
    const specimen = entry.row.specimen;
    if (result.specimen && specimen) {
      const agrees = result.specimen === specimen || (result.specimen !== 'urine' && specimen !== 'urine');
      score += agrees ? 0.04 : -0.25;
    } else if (!result.specimen && specimen === 'urine') {
      score -= 0.1;
    }
    scored.push({ entry, score });
  }
  scored.sort((a, b) => b.score - a.score);
  const restoredName = folded && scored[0] && folded.entries.has(scored[0].entry) ? `${prefix}${folded.name}` : null;
  return { scored: scored.slice(0, MAX_CANDIDATES), restoredName };
}

interface FoldedName {
  /** The name as the catalogue first spells it. */
  name: string;
  key: string;
  entries: Set<LoincCatalogueEntry>;
}

/**
 * The one name a folded key stands for; of two or more (`PIT`: `PLT` or `PTT`), the one whose
 * codes alone are in the unit read (a unit OCR read whole or repaired); else none.
 */
function foldedName(names: FoldedName[] | undefined, unit: string | null): FoldedName | undefined {
  if (!names?.length) return undefined;
  if (names.length === 1) return names[0];
  if (!unit) return undefined;
  const inUnit = names.filter((n) => [...n.entries].some((entry) => entry.unit === unit));
  return inUnit.length === 1 ? inUnit[0] : undefined;
}

/** A letter of a script other than Latin (Greek, Cyrillic). */
const OTHER_SCRIPT = /(?!\p{Script=Latin})\p{L}/u;
/** What a name met only through OCR's letter confusions (`ocrFoldedKey`) scores: less than the name itself. */
const FOLDED_NAME_SCORE = 0.95;
/** Results read as a word or a dipstick's grade. */
const QUALITATIVE_RESULT = /^(negative|neg|positive|pos|trace|small|moderate|large|[1-4]\+)$/i;
/** A code that is an amount per volume (its long name's property). */
const QUANTITATIVE = /\[(Mass|Moles|Units|Enzymatic activity)\/volume\]/i;
/** A serum's, plasma's or blood's initial before a test name, as Egyptian labs print it (`S. Ferritin`). */
const BLOOD_SPECIMEN_INITIAL = /^[SPB]\.\s*/;

/** A code that is a count, per volume or per microscope field (`Leukocytes [#/area] in Urine sediment`). */
const COUNT = /\[#\/(volume|area)\]/i;

interface CatalogueIndex {
  /** Every name's key (display names, aliases, long names' components). */
  names: Set<string>;
  /** Units labs print (values.ts) and the catalogue's, as keys. */
  units: Set<string>;
  /**
   * Printed names by their OCR-folded key: each name folding to it (`Iron` of `Iron, Total` and of
   * `Iron (SI)` is one name; `PLT` and `PTT` are two), as first spelled, and the entries printing it.
   */
  folded: Map<string, FoldedName[]>;
  /** The entries a virus's letters (`hcv`, `hiv`) are a word of one of the names of. */
  virusEntries: Map<string, Set<LoincCatalogueEntry>>;
}

/** A virus by its letters. */
const VIRUS = /^(hiv|hcv|hbv|hav|hev|hdv|hsv|cmv|ebv|htlv|hpv|vzv|rsv)$/;

const indexByCatalogue = new WeakMap<LoincCatalogue, CatalogueIndex>();

function catalogueIndex(catalogue: LoincCatalogue): CatalogueIndex {
  let index = indexByCatalogue.get(catalogue);
  if (index) return index;
  const names = new Set<string>();
  const units = new Set(KNOWN_UNITS.map((u) => unitKey(u)).filter((u): u is string => u !== null));
  const folded = new Map<string, FoldedName[]>();
  const virusEntries = new Map<string, Set<LoincCatalogueEntry>>();
  for (const entry of catalogue.entries) {
    if (entry.unit) units.add(entry.unit);
    for (const key of entry.keys) names.add(key);
    for (const virus of entry.tokens.flat().filter((t) => VIRUS.test(t))) virusEntries.set(virus, (virusEntries.get(virus) ?? new Set()).add(entry));
    for (const printed of [entry.row.display_name ?? entry.row.name, ...entry.row.aliases]) {
      const key = nameKey(printed);
      if (!key) continue;
      const fold = ocrFoldedKey(printed);
      // Short names fold onto each other too readily (`T3`, `13`, `I3`).
      if (fold.replace(/ /g, '').length < 3) continue;
      const names = folded.get(fold) ?? [];
      const at = names.find((n) => n.key === key) ?? { name: printed, key, entries: new Set<LoincCatalogueEntry>() };
      if (!names.includes(at)) names.push(at);
      at.entries.add(entry);
      folded.set(fold, names);
    }
  }
  index = { names, units, folded, virusEntries };
  indexByCatalogue.set(catalogue, index);
  return index;
}

/** Token overlap (typos of one letter forgiven in longer words) blended with trigram overlap. */
function similarity(aTokens: string[], aGrams: Trigrams, bTokens: string[], bGrams: Trigrams): number {
  let matched = 0;
  const used = new Set<number>();
  for (const t of aTokens) {
    const exact = bTokens.findIndex((u, k) => !used.has(k) && u === t);
    // A word one letter off (an OCR slip) counts, but less than the word itself: HBsAg ≠ HBsAb.
    const near = exact >= 0 ? -1 : bTokens.findIndex((u, k) => !used.has(k) && t.length >= 5 && u.length >= 5 && withinOneEdit(t, u));
    const j = exact >= 0 ? exact : near;
    if (j >= 0) {
      used.add(j);
      matched += exact >= 0 ? 1 : 0.8;
    }
  }
  const tokenScore = (2 * matched) / (aTokens.length + bTokens.length);
  return Math.max(tokenScore, trigramDice(aGrams, bGrams) * 0.95);
}

/** A name without its spaces and how often each of its trigrams occurs. */
interface Trigrams {
  text: string;
  counts: Map<string, number>;
}

function trigrams(name: string): Trigrams {
  const text = name.replace(/ /g, '');
  const counts = new Map<string, number>();
  for (let i = 0; i + 3 <= text.length; i++) counts.set(text.slice(i, i + 3), (counts.get(text.slice(i, i + 3)) ?? 0) + 1);
  return { text, counts };
}

/**
 * The trigrams of an entry's names, counted once per catalogue entry: every printed name is
 * scored against every entry, and counting them again for each was most of a report's matching.
 */
const trigramsByEntry = new WeakMap<LoincCatalogueEntry, Trigrams[]>();

function entryTrigrams(entry: LoincCatalogueEntry): Trigrams[] {
  let grams = trigramsByEntry.get(entry);
  if (!grams) {
    grams = entry.keys.map(trigrams);
    trigramsByEntry.set(entry, grams);
  }
  return grams;
}

function trigramDice(a: Trigrams, b: Trigrams): number {
  if (a.text.length < 3 || b.text.length < 3) return a.text === b.text ? 1 : 0;
  let common = 0;
  for (const [g, n] of a.counts) common += Math.min(n, b.counts.get(g) ?? 0);
  return (2 * common) / (a.text.length - 2 + b.text.length - 2);
}
