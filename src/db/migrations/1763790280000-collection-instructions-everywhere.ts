import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every lab test now has collection instructions (src/lab-tests/collection-instructions.ts: one
 * text per collection method, with the test's fasting rule), not only test kits: the flag says so.
 */
export class CollectionInstructionsEverywhere1763790280000 implements MigrationInterface {
  name = 'CollectionInstructionsEverywhere1763790280000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`UPDATE lab_tests SET has_collection_instructions = true, updated_at = now() WHERE NOT has_collection_instructions`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`UPDATE lab_tests SET has_collection_instructions = false, updated_at = now() WHERE method <> 'testkit' AND has_collection_instructions`);
  }
}
