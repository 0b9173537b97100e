/**
 * The curated LOINC catalogue as migration 1763791766000 leaves `loinc_codes`: 1763791765000's,
 * and after haemoglobin S the sickling screen, the haemoglobin electrophoresis pattern and malaria
 * by blood film and by rapid antigen test, as labs in malaria-endemic countries print them.
 * Frozen: never edit. The live catalogue in src/lab-tests/loinc must equal the newest snapshot
 * (a unit test checks), so changing it means a new migration.
 */
import { LOINC_CATALOGUE_1763791765000 } from './1763791765000-loinc-catalogue';
import type { SnapshotRow } from './loinc-snapshot-row';

/** The rows 1763791766000 adds. */
// prettier-ignore
export const LOINC_ADDED_1763791766000: SnapshotRow[] = [
  ['4621-9', 'Hemoglobin S Screen', 'Hemoglobin S [Presence] in Blood', null, 'blood', ['Sickling Test', 'Sickling', 'Sickle Cell Screen', 'Sickle Cell Test', 'Hb S Screen', 'HbS Screen']],
  ['13514-5', 'Hemoglobin Electrophoresis', 'Hemoglobin pattern [interpretation] in Blood by Electrophoresis Narrative', null, 'blood', ['Haemoglobin Electrophoresis', 'Hb Electrophoresis', 'Hb Genotype', 'Hemoglobin Genotype', 'Haemoglobin Genotype']],
  ['51587-4', 'Malaria Parasites', 'Plasmodium sp [Presence] in Blood by Light microscopy', null, 'blood', ['Blood Film for Malaria Parasites', 'Blood Film for MPs', 'BF for Malaria', 'Malaria Smear', 'Malaria Film', 'MPs']],
  ['70569-9', 'Malaria RDT', 'Plasmodium sp Ag [Identifier] in Blood by Rapid immunoassay', null, 'blood', ['Malaria Rapid Test', 'Malaria Rapid Diagnostic Test', 'mRDT', 'Malaria Antigen', 'Malaria Ag']],
];

export const LOINC_CATALOGUE_1763791766000: SnapshotRow[] = LOINC_CATALOGUE_1763791765000.flatMap((row) =>
  row[0] === '4625-0' ? [row, ...LOINC_ADDED_1763791766000] : [row],
);
