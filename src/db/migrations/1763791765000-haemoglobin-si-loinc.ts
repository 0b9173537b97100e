import type { MigrationInterface, QueryRunner } from 'typeorm';
import { deleteUnreferencedLoincRows, insertLoincRows } from './loinc-rows';
import { LOINC_ADDED_1763791765000 } from './snapshots/1763791765000-loinc-catalogue';

/**
 * Adds haemoglobin in moles, 59260-0 `Hemoglobin [Moles/volume] in Blood` (mmol/L: Dutch labs
 * print it so), to `loinc_codes`, so a parsed report's haemoglobin in mmol/L meets its own code
 * rather than 718-7's (g/dL). Rows from a frozen snapshot (snapshots/1763791765000), never the live
 * catalogue. Down removes the row when no marker references it.
 */
export class HaemoglobinSiLoinc1763791765000 implements MigrationInterface {
  name = 'HaemoglobinSiLoinc1763791765000';

  async up(db: QueryRunner): Promise<void> {
    await insertLoincRows(db, LOINC_ADDED_1763791765000);
  }

  async down(db: QueryRunner): Promise<void> {
    await deleteUnreferencedLoincRows(db, LOINC_ADDED_1763791765000);
  }
}
