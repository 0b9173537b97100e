import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Stranded orders (src/orders/order-reconciler.ts): orders that have not ended while their
 * workflow closed, vanished or stopped making progress.
 *
 * - `stranded_orders`: one row per order the reconciler ever found stranded. `kind` is what it
 *   found (`closed`, `missing`, `stalled`), `state` what became of it: `healed` (a new run was
 *   started), `raised` (left to a human: stalled, heal limit reached, restart failed) or
 *   `resolved` (a later pass found the order fine or ended). A new finding reopens the row;
 *   `heal_attempts` counts every new run ever started for the order, so RECONCILER_MAX_HEALS
 *   bounds them across findings. `created_at` never changes (the management API's keyset).
 * - `orders_not_terminal`: the reconciler pages through orders that have not ended. The
 *   predicate lists the terminal low-level statuses of workflows/order/order-statuses.ts (sorted) as
 *   OrdersRepository.nonTerminalPage writes them, so the planner can use the index.
 */
export class StrandedOrders1763790008000 implements MigrationInterface {
  name = 'StrandedOrders1763790008000';

  async up(db: QueryRunner): Promise<void> {
    await db.query(`
      CREATE TABLE stranded_orders (
        id uuid PRIMARY KEY,
        order_id uuid NOT NULL UNIQUE REFERENCES orders(id) ON DELETE CASCADE,
        team_id uuid NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
        kind text NOT NULL CHECK (kind IN ('closed', 'missing', 'stalled')),
        state text NOT NULL CHECK (state IN ('healed', 'raised', 'resolved')),
        detail text NOT NULL,
        heal_attempts integer NOT NULL DEFAULT 0,
        first_seen_at timestamptz NOT NULL,
        last_seen_at timestamptz NOT NULL,
        healed_at timestamptz,
        resolved_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp()
      )`);
    await db.query(`CREATE INDEX stranded_orders_team_created ON stranded_orders (team_id, created_at, id)`);
    await db.query(`CREATE INDEX stranded_orders_open ON stranded_orders (kind, state) WHERE resolved_at IS NULL`);
    await db.query(`
      CREATE INDEX orders_not_terminal ON orders (created_at, id)
       WHERE low_level_status NOT IN ('cancelled', 'completed', 'corrected', 'do_not_process', 'failure_to_deliver_to_customer',
                                      'failure_to_deliver_to_lab', 'lost', 'redraw_available', 'sample_error')`);
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP INDEX orders_not_terminal`);
    await db.query(`DROP TABLE stranded_orders`);
  }
}
