/**
 * One curated LOINC analyte: the code, the name labs print (`display`), LOINC's long common name,
 * the usual unit (US conventional, or SI for the `(SI)` twins labs outside the US print), the
 * specimen, and the other names and abbreviations reports print. OCR misreadings are not
 * aliases: the matcher folds those itself.
 */
export type LoincSpecimen = 'serum_plasma' | 'blood' | 'plasma' | 'urine';

export interface CuratedLoinc {
  code: string;
  display: string;
  name: string;
  /** Null for qualitative (nominal, ordinal) results: colours, Positive/Negative, blood groups. */
  unit: string | null;
  specimen: LoincSpecimen;
  aliases: string[];
}

export type Entry = [code: string, display: string, name: string, unit: string | null, specimen: LoincSpecimen, aliases: string[]];

export const SP: LoincSpecimen = 'serum_plasma';
export const B: LoincSpecimen = 'blood';
export const P: LoincSpecimen = 'plasma';
export const U: LoincSpecimen = 'urine';

export const toCurated = (entries: Entry[]): CuratedLoinc[] =>
  entries.map(([code, display, name, unit, specimen, aliases]) => ({ code, display, name, unit, specimen, aliases }));
