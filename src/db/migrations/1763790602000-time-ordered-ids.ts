import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `labflow_uuid_v7()`: a UUID version 7 (RFC 9562: 48 bits of Unix milliseconds, then random
 * bits), which PostgreSQL 15 lacks (18 has `uuidv7()`). New deliveries and attempt rows take
 * their ids from it: a random id puts each insert on a random leaf of the primary key, so every
 * page of the index is written by turns and split half-full, while time-ordered ids append to
 * the rightmost leaf, which stays in cache. Ids within one millisecond are in random order, which
 * is all the locality needs; nothing may rely on their order.
 */
export class TimeOrderedIds1763790602000 implements MigrationInterface {
  name = 'TimeOrderedIds1763790602000';

  async up(db: QueryRunner): Promise<void> {
    // gen_random_uuid() gives version 4 bits (0100); setting bits 52 and 53 makes them 0111 (7).
    await db.query(
      `CREATE FUNCTION labflow_uuid_v7() RETURNS uuid LANGUAGE sql VOLATILE PARALLEL SAFE AS $$
         SELECT encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid())
                  PLACING substring(int8send(floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) FROM 3)
                  FROM 1 FOR 6), 52, 1), 53, 1), 'hex')::uuid
       $$`,
    );
  }

  async down(db: QueryRunner): Promise<void> {
    await db.query(`DROP FUNCTION labflow_uuid_v7()`);
  }
}
