import type { LoincMatch, LoincMatchStatus, MatchedMetadata, MatchedReport, MatchedResult, ParsedReport, ParsedResult } from '../types';
import type { LoincCatalogue, LoincCatalogueEntry } from './catalogue';
import { nameKey, sameDimension, unitKey } from './normalise';

/** At or above this score, and clearly ahead of the next code, a match needs no review. */
export const AUTO_MATCH_SCORE = 0.85;
/** Below this the best candidate is not offered as a match. */
export const REVIEW_SCORE = 0.55;
const MAX_CANDIDATES = 5;

/** Each result with up to five LOINC candidates, shaped as the SDK's `LabReportResult`. */
export function matchReport(report: ParsedReport, catalogue: LoincCatalogue): MatchedReport {
  return { metadata: toMetadata(report), results: report.results.map((result) => matchResult(result, catalogue)) };
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

export function matchResult(result: ParsedResult, catalogue: LoincCatalogue): MatchedResult {
  const scored = scoreCandidates(result, catalogue);
  const candidates = scored.map(toMatch);
  const [best, second] = scored;
  let status: LoincMatchStatus = 'no_match';
  if (best && best.score >= AUTO_MATCH_SCORE && (!second || best.score - second.score >= 0.05)) status = 'auto_match';
  else if (best && best.score >= REVIEW_SCORE) status = 'needs_review';
  return {
    test_name: result.test_name,
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
  return scoreCandidates(result, catalogue).map(toMatch);
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

function scoreCandidates(result: ParsedResult, catalogue: LoincCatalogue): Scored[] {
  const key = nameKey(result.test_name);
  if (!key) return [];
  const tokens = key.split(' ');
  const grams = trigrams(key);
  const unit = unitKey(result.units);
  const scored: Scored[] = [];
  for (const entry of catalogue.entries) {
    let name = 0;
    const entryGrams = entryTrigrams(entry);
    entry.keys.forEach((candidate, i) => {
      name = Math.max(name, entry.weights[i] * (candidate === key ? 1 : similarity(tokens, grams, entry.tokens[i], entryGrams[i])));
    });
    if (name < 0.4) continue;
    let score = name;
    if (unit && entry.unit) {
      if (unit === entry.unit) score += 0.08;
      else if (!sameDimension(unit, entry.unit)) score -= 0.2;
    }
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
  return scored.slice(0, MAX_CANDIDATES);
}

/** Token overlap (typos of one letter forgiven in longer words) blended with trigram overlap. */
function similarity(aTokens: string[], aGrams: Trigrams, bTokens: string[], bGrams: Trigrams): number {
  let matched = 0;
  const used = new Set<number>();
  for (const t of aTokens) {
    const exact = bTokens.findIndex((u, k) => !used.has(k) && u === t);
    // A word one letter off (an OCR slip) counts, but less than the word itself: HBsAg ≠ HBsAb.
    const near = exact >= 0 ? -1 : bTokens.findIndex((u, k) => !used.has(k) && t.length >= 5 && u.length >= 5 && editDistanceAtMostOne(t, u));
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

function editDistanceAtMostOne(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  let j = 0;
  let edits = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    if (++edits > 1) return false;
    if (a.length > b.length) i++;
    else if (b.length > a.length) j++;
    else {
      i++;
      j++;
    }
  }
  return edits + (a.length - i) + (b.length - j) <= 1;
}
