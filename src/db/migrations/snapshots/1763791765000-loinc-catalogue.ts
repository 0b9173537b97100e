/**
 * The curated LOINC catalogue as migration 1763791765000 leaves `loinc_codes`: 1763790160000's, and
 * haemoglobin in moles (59260-0, mmol/L, as Dutch labs print it) after haemoglobin in mass.
 * Frozen: never edit. The live catalogue in src/lab-tests/loinc must equal the newest snapshot
 * (a unit test checks), so changing it means a new migration.
 */
import { LOINC_CATALOGUE_1763790160000 } from './1763790160000-loinc-catalogue';
import type { SnapshotRow } from './loinc-snapshot-row';

/** The rows 1763791765000 adds. */
export const LOINC_ADDED_1763791765000: SnapshotRow[] = [
  ['59260-0', 'Hemoglobin (SI)', 'Hemoglobin [Moles/volume] in Blood', 'mmol/L', 'blood', ['Hemoglobin', 'HGB', 'Hb', 'Haemoglobin']],
];

export const LOINC_CATALOGUE_1763791765000: SnapshotRow[] = LOINC_CATALOGUE_1763790160000.flatMap((row) =>
  row[0] === '718-7' ? [row, ...LOINC_ADDED_1763791765000] : [row],
);
