import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What an order's requisition carries beyond the order row, as given at ordering: the answers to
 * the lab's ask-at-order-entry questions (`aoe_answers`) and the ordering physician's signature
 * image (`physician.signature_image`), encrypted as one JSON document. A row of its own so that
 * order reads do not carry an image; a recreation of the order gets a copy.
 */
export class OrderRequisitionInputs1763790250000 implements MigrationInterface {
  name = 'OrderRequisitionInputs1763790250000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE order_requisition_inputs (
        order_id uuid PRIMARY KEY REFERENCES orders(id) ON DELETE CASCADE,
        inputs_enc text NOT NULL
      )`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE order_requisition_inputs`);
  }
}
