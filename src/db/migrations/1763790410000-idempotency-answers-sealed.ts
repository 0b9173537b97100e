import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The stored answer of an idempotent request (an order with its patient's name, birth date,
 * e-mail and phone) is sealed with the PHI key like every other copy of PHI: `response_enc`
 * (PhiCipher's `v1.…` text). `response` keeps the plaintext answers stored before this migration
 * (the application still replays them, and writes only `response_enc`): the retention sweep
 * deletes them once their key's TTL (24 hours) has passed, and `labflow phi rekey` seals them
 * at once (it has the key, which this migration has not).
 */
export class IdempotencyAnswersSealed1763790410000 implements MigrationInterface {
  name = 'IdempotencyAnswersSealed1763790410000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE idempotency_keys ADD COLUMN response_enc text`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE idempotency_keys DROP COLUMN response_enc`);
  }
}
