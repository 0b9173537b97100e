import type { LoincRow } from '../types';
import { nameKey, nameTokens, unitKey } from './normalise';

/** One catalogue entry with its comparable name keys, built once per catalogue. */
export interface LoincCatalogueEntry {
  row: LoincRow;
  /** Normalised display name, aliases and long name (first is the display name). */
  keys: string[];
  /** Token sets of the keys, for the token-overlap score. */
  tokens: string[][];
  /** How much a perfect hit on each key is worth: printed names 1, the long name's component less. */
  weights: number[];
  unit: string | null;
}

/** The LOINC table as the matcher reads it: plain JSON, so it can be built once and passed around. */
export interface LoincCatalogue {
  entries: LoincCatalogueEntry[];
}

/** Builds the matcher's catalogue from `loinc_codes` rows (a repository's `loincCatalogueRows()`). */
export function buildLoincCatalogue(rows: LoincRow[]): LoincCatalogue {
  return {
    entries: rows.map((row) => {
      const printed = [row.display_name ?? row.name, ...row.aliases].map(nameKey).filter(Boolean);
      const keys = [...new Set(printed)];
      const weights = keys.map(() => 1);
      const component = shortLongName(row.name);
      if (component && !keys.includes(component)) {
        keys.push(component);
        weights.push(0.9);
      }
      return { row, keys, tokens: keys.map((key) => key.split(' ')), weights, unit: unitKey(row.unit) };
    }),
  };
}

/** The component part of a long common name: `Ferritin [Mass/volume] in Serum or Plasma` → `Ferritin`. */
function shortLongName(name: string): string {
  return nameTokens(name.split('[')[0].replace(/\bin (serum|plasma|blood|urine).*$/i, '')).join(' ');
}
