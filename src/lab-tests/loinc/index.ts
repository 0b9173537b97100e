import { CHEMISTRY } from './chemistry';
import { ENDOCRINE } from './endocrine';
import { HAEMATOLOGY } from './haematology';
import { IMMUNOLOGY } from './immunology';
import { LIPIDS_CARDIAC } from './lipids-cardiac';
import { NUTRITION } from './nutrition';
import { TOXICOLOGY } from './toxicology';
import type { CuratedLoinc } from './types';
import { URINE } from './urine';

export type { CuratedLoinc, LoincSpecimen } from './types';

/**
 * The curated LOINC catalogue lab-report parsing matches printed test names against, by category.
 * Codes and long common names are checked against LOINC (see VERIFICATION.md). The database gets
 * it through migrations that carry their own copy or delta of this list (never this module), so
 * editing it changes nothing in `loinc_codes` until a new migration says so.
 */
export const CURATED_LOINC: CuratedLoinc[] = [
  ...CHEMISTRY,
  ...LIPIDS_CARDIAC,
  ...HAEMATOLOGY,
  ...ENDOCRINE,
  ...NUTRITION,
  ...IMMUNOLOGY,
  ...URINE,
  ...TOXICOLOGY,
];
