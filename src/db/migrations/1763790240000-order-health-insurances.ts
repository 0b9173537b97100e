import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The health insurance an order is billed to (`health_insurance` of `POST /v3/order`, Junction's
 * HealthInsuranceCreateRequest: card images, payor, member id, the responsible person, diagnosis
 * codes), encrypted as PHI; `orders.health_insurance_id` names it. A row of its own, not a column
 * of `orders`, so that every order read does not carry card images. It belongs to the patient
 * (`user_id`, deleted with the user) rather than to one order: a recreation of the order is billed
 * to the same insurance and names the same id.
 */
export class OrderHealthInsurances1763790240000 implements MigrationInterface {
  name = 'OrderHealthInsurances1763790240000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE order_health_insurances (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        insurance_enc text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await db.query(`CREATE INDEX order_health_insurances_user ON order_health_insurances (user_id)`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP TABLE order_health_insurances`);
  }
}
