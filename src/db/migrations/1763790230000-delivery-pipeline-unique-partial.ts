import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `UNIQUE (event_id, pipeline_id)` of `event_deliveries` becomes a unique index over RabbitMQ
 * deliveries only (`WHERE pipeline_id IS NOT NULL`). A webhook delivery has no pipeline, and a
 * unique constraint indexes NULLs too: every webhook delivery paid an entry in it on insert and
 * on each of its updates that is not HOT (the claim, usually; the outcome, always), for an index
 * that can never find a conflict among NULLs. The rule it enforces — one delivery per event and
 * pipeline — is the same. (`UNIQUE (event_id, endpoint_id)` stays as it is: `redeliver` names it
 * as its ON CONFLICT target, and RabbitMQ deliveries are few.)
 *
 * Existing rows satisfied the constraint, so the index builds on any table; building it holds
 * writes to `event_deliveries` back for as long as it takes to read the table once.
 */
export class DeliveryPipelineUniquePartial1763790230000 implements MigrationInterface {
  name = 'DeliveryPipelineUniquePartial1763790230000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`CREATE UNIQUE INDEX event_deliveries_event_pipeline ON event_deliveries (event_id, pipeline_id) WHERE pipeline_id IS NOT NULL`);
    await db.query(`ALTER TABLE event_deliveries DROP CONSTRAINT event_deliveries_event_id_pipeline_id_key`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`ALTER TABLE event_deliveries ADD CONSTRAINT event_deliveries_event_id_pipeline_id_key UNIQUE (event_id, pipeline_id)`);
    await db.query(`DROP INDEX event_deliveries_event_pipeline`);
  }
}
