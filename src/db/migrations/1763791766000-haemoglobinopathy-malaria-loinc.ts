import type { MigrationInterface, QueryRunner } from 'typeorm';
import { deleteUnreferencedLoincRows, insertLoincRows } from './loinc-rows';
import { LOINC_ADDED_1763791766000 } from './snapshots/1763791766000-loinc-catalogue';

/**
 * Adds to `loinc_codes` the screens labs in malaria-endemic countries print beside a blood count:
 * 4621-9 `Hemoglobin S [Presence] in Blood` (the sickling test), 13514-5 the haemoglobin
 * electrophoresis pattern (the Hb genotype), 51587-4 malaria parasites by blood film and 70569-9
 * malaria by rapid antigen test. Before, a parsed report's rows for them met no code of their own.
 * Rows from a frozen snapshot (snapshots/1763791766000), never the live catalogue. Down removes
 * the rows no marker references.
 */
export class HaemoglobinopathyMalariaLoinc1763791766000 implements MigrationInterface {
  name = 'HaemoglobinopathyMalariaLoinc1763791766000';

  async up(db: QueryRunner): Promise<void> {
    await insertLoincRows(db, LOINC_ADDED_1763791766000);
  }

  async down(db: QueryRunner): Promise<void> {
    await deleteUnreferencedLoincRows(db, LOINC_ADDED_1763791766000);
  }
}
