import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { logOperatorRead, type OperatorAccess } from '../common/phi-access-log';
import { runPrepared } from '../common/prepared-statement';
import { Hl7LabInterfaceEntity, type Hl7MessageEntity, type Hl7MessageState } from './hl7.entities';
import type { Hl7InterfaceSettings } from './hl7-settings';
import type { Hl7LabFact } from './hl7-orders';
import type { MatchKeys } from './lab-facts';

/** A message row without its body: what listings show. */
export type Hl7MessageSummary = Omit<Hl7MessageEntity, 'bodyEnc'>;

/**
 * An inbound message as the listener stores it: `received`, ACKed AA, its order not matched yet;
 * with what the hand-off needs of it read already (`matchKeys`; absent: the hand-off reads the body).
 */
export type NewInboundMessage = Pick<
  Hl7MessageEntity,
  'peerFacility' | 'controlId' | 'messageType' | 'labAccountId' | 'fillerNumber' | 'ackText' | 'bodyEnc'
> & {
  matchKeys?: MatchKeys | null;
};

/** What storing an inbound message answers: the row it is stored as, as far as its ACK needs. */
export type StoredInbound = Pick<Hl7MessageEntity, 'id' | 'state' | 'ackText'>;

// Each row's placer and filler numbers as JSON arrays (unnest cannot take an array of arrays).
const STORE_INBOUND = `INSERT INTO hl7_messages (id, direction, peer_facility, control_id, message_type, lab_account_id, filler_number, state, ack_code, ack_text, body_enc,
    placer_numbers, filler_numbers, lab_fact, lab_fact_correction)
  SELECT id, 'in', peer_facility, control_id, message_type, lab_account_id, filler_number, 'received', 'AA', ack_text, body_enc,
         CASE WHEN placers IS NOT NULL THEN ARRAY(SELECT jsonb_array_elements_text(placers::jsonb)) END,
         CASE WHEN fillers IS NOT NULL THEN ARRAY(SELECT jsonb_array_elements_text(fillers::jsonb)) END, lab_fact, lab_fact_correction
    FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::uuid[], $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[], $12::bool[])
      WITH ORDINALITY AS r(id, peer_facility, control_id, message_type, lab_account_id, filler_number, ack_text, body_enc, placers, fillers, lab_fact, lab_fact_correction, n)
   ORDER BY n
  ON CONFLICT (direction, peer_facility, control_id) DO NOTHING
  RETURNING id, state, ack_text AS "ackText"`;

/**
 * A stored message waiting to be handed to its order: what the listener read of it for that
 * (placer_numbers NULL: nothing, a row stored without), and its sealed body only when the hand-off
 * must read it (nothing read, or a lab's cancellation, whose words stay sealed).
 */
export interface ReceivedMessage {
  id: string;
  peerFacility: string;
  labAccountId: string | null;
  placerNumbers: string[] | null;
  fillerNumbers: string[] | null;
  labFact: Hl7LabFact | null;
  labFactCorrection: boolean;
  bodyEnc: string | null;
}

/** The columns of a ReceivedMessage, of the rows `m`. */
const RECEIVED = `m.id, m.peer_facility AS "peerFacility", m.lab_account_id AS "labAccountId", m.placer_numbers AS "placerNumbers",
  m.filler_numbers AS "fillerNumbers", m.lab_fact AS "labFact", m.lab_fact_correction AS "labFactCorrection",
  CASE WHEN m.placer_numbers IS NULL OR m.lab_fact = 'do_not_process' THEN m.body_enc END AS "bodyEnc"`;
/** Of the rows `m`: inbound, `received`, and claimed by no hand-off within the lease ($1, ms). */
const UNCLAIMED = `m.direction = 'in' AND m.state = 'received' AND (m.updated_at = m.created_at OR m.updated_at < now() - make_interval(secs => $1::float8 / 1000))`;

const SUMMARY = `id, direction, peer_facility AS "peerFacility", control_id AS "controlId", message_type AS "messageType",
  lab_account_id AS "labAccountId", order_id AS "orderId", filler_number AS "fillerNumber", state, ack_code AS "ackCode",
  ack_text AS "ackText", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The HL7 interfaces of lab accounts and the messages exchanged with those labs. */
@Injectable()
export class Hl7Repository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  interfaceOf(labAccountId: string): Promise<Hl7LabInterfaceEntity | null> {
    return this.db.getRepository(Hl7LabInterfaceEntity).findOneBy({ labAccountId });
  }

  /** The interface of the lab whose facility is `facility` (MSH-4 of what it sends). */
  interfaceOfLabFacility(facility: string): Promise<Hl7LabInterfaceEntity | null> {
    return this.db.getRepository(Hl7LabInterfaceEntity).findOneBy({ receivingFacility: facility });
  }

  async saveInterface(labAccountId: string, settings: Hl7InterfaceSettings): Promise<Hl7LabInterfaceEntity> {
    const row = Object.assign(new Hl7LabInterfaceEntity(), { labAccountId, ...settings, tls: settings.tls ?? null, updatedAt: new Date() });
    return this.db.getRepository(Hl7LabInterfaceEntity).save(row);
  }

  async labAccountExists(labAccountId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query('SELECT 1 FROM lab_accounts WHERE id = $1', [labAccountId]);
    return rows.length > 0;
  }

  /** How many order messages to the lab were answered AE/AR: each resend is a new message with a new control id. */
  async refusedOrderMessages(orderId: string): Promise<number> {
    const [row] = await this.db.query(
      `SELECT count(*)::int AS n FROM hl7_messages WHERE direction = 'out' AND order_id = $1 AND state IN ('error', 'rejected')`,
      [orderId],
    );
    return (row as { n: number }).n;
  }

  /** Stores an outbound message before it is sent (a retry of the same control id keeps the first row). */
  async recordOutbound(
    row: Pick<Hl7MessageEntity, 'peerFacility' | 'controlId' | 'messageType' | 'labAccountId' | 'orderId' | 'bodyEnc'>,
  ): Promise<Hl7MessageSummary> {
    const [stored] = await this.db.query(
      `INSERT INTO hl7_messages (id, direction, peer_facility, control_id, message_type, lab_account_id, order_id, state, body_enc)
       VALUES ($1, 'out', $2, $3, $4, $5, $6, 'sending', $7)
       ON CONFLICT (direction, peer_facility, control_id) DO UPDATE SET updated_at = hl7_messages.updated_at
       RETURNING ${SUMMARY}`,
      [randomUUID(), row.peerFacility, row.controlId, row.messageType, row.labAccountId, row.orderId, row.bodyEnc],
    );
    return stored as Hl7MessageSummary;
  }

  async recordAnswer(id: string, answer: { state: Hl7MessageState; ackCode: string | null; ackText: string | null }): Promise<void> {
    await this.db.query(`UPDATE hl7_messages SET state = $2, ack_code = $3, ack_text = $4, updated_at = now() WHERE id = $1`, [
      id,
      answer.state,
      answer.ackCode,
      answer.ackText,
    ]);
  }

  /**
   * Stores inbound messages, each once per (sending facility, control id), in one statement (one
   * commit for all): per row, in order, `stored` false when that message was stored already (a
   * repeat, also of an earlier row of the same batch), with the row it was stored as. The INSERT is
   * a prepared statement on the pool's connection (runPrepared: no TypeORM query runner) returning
   * only what the ACK needs: it runs for every message the listener takes.
   */
  async storeInbound(rows: readonly NewInboundMessage[]): Promise<Array<{ stored: boolean; message: StoredInbound }>> {
    const ids = rows.map(() => randomUUID());
    const inserted = await runPrepared<StoredInbound>(this.db, 'hl7-store-inbound', STORE_INBOUND, [
      ids,
      rows.map((row) => row.peerFacility),
      rows.map((row) => row.controlId),
      rows.map((row) => row.messageType),
      rows.map((row) => row.labAccountId),
      rows.map((row) => row.fillerNumber),
      rows.map((row) => row.ackText),
      rows.map((row) => row.bodyEnc),
      rows.map((row) => (row.matchKeys ? JSON.stringify(row.matchKeys.placers) : null)),
      rows.map((row) => (row.matchKeys ? JSON.stringify(row.matchKeys.fillers) : null)),
      rows.map((row) => row.matchKeys?.fact?.low ?? null),
      rows.map((row) => row.matchKeys?.fact?.correction ?? false),
    ]);
    const byId = new Map(inserted.map((row) => [row.id, row]));
    const repeats = rows.filter((_, index) => !byId.has(ids[index]));
    const existing: Array<StoredInbound & { peerFacility: string; controlId: string }> = repeats.length
      ? await this.db.query(
          `SELECT id, state, ack_text AS "ackText", peer_facility AS "peerFacility", control_id AS "controlId" FROM hl7_messages
            WHERE direction = 'in' AND (peer_facility, control_id) IN (SELECT * FROM unnest($1::text[], $2::text[]))`,
          [repeats.map((row) => row.peerFacility), repeats.map((row) => row.controlId)],
        )
      : [];
    const key = (row: { peerFacility: string; controlId: string }) => `${row.peerFacility}\u0000${row.controlId}`;
    const byKey = new Map<string, StoredInbound>(existing.map((row) => [key(row), row]));
    // A repeat of an earlier row of this batch: that row's id.
    rows.forEach((row, index) => {
      const own = byId.get(ids[index]);
      if (own && !byKey.has(key(row))) byKey.set(key(row), own);
    });
    return rows.map((row, index) => {
      const own = byId.get(ids[index]);
      return own ? { stored: true, message: own } : { stored: false, message: byKey.get(key(row)) as StoredInbound };
    });
  }

  /**
   * Inbound messages still `received` that no hand-off has claimed (updated_at is still created_at:
   * stored by a listener of role `hl7-listener`, or by one of role `hl7` that has not handed it
   * over yet) or whose claim is older than `leaseMs` (the hand-off that claimed them stopped),
   * oldest first: read, not locked — the hand-off matches them, then claims them with
   * `claimForHandOver`. `fresh` false: only those untouched for `leaseMs` (a sweep beside a
   * listener that hands over what it stores itself).
   */
  waitingForHandOver(leaseMs: number, limit: number, fresh = true): Promise<ReceivedMessage[]> {
    return this.db.query(
      `SELECT ${RECEIVED} FROM hl7_messages m WHERE ${UNCLAIMED} AND ($3::bool OR m.updated_at < now() - make_interval(secs => $1::float8 / 1000))
        ORDER BY created_at, id LIMIT $2`,
      [leaseMs, limit, fresh],
    );
  }

  /**
   * Claims those of `rows` still unclaimed (Postgres re-checks the WHERE on a row another hand-off
   * changed since it was read, so a row it took first is left out) and, in the same UPDATE, records
   * each decided row's order (`orderId` null: `held`; absent: only claimed): one new version of each
   * row before its signal, not two (a claim, then its match). Answers the ids claimed.
   */
  async claimForHandOver(leaseMs: number, rows: ReadonlyArray<{ id: string; orderId?: string | null }>): Promise<Set<string>> {
    if (rows.length === 0) return new Set();
    const claimed: Array<{ id: string }> = await this.db.query(
      `WITH claimed AS (
         UPDATE hl7_messages m SET updated_at = clock_timestamp(),
                order_id = CASE WHEN r.decided THEN r.order_id ELSE m.order_id END,
                state = CASE WHEN r.decided AND r.order_id IS NULL THEN 'held' ELSE m.state END
           FROM unnest($2::uuid[], $3::uuid[], $4::bool[]) AS r(id, order_id, decided)
          WHERE m.id = r.id AND ${UNCLAIMED}
          RETURNING m.id)
       SELECT id FROM claimed`,
      [leaseMs, rows.map((row) => row.id), rows.map((row) => row.orderId ?? null), rows.map((row) => row.orderId !== undefined)],
    );
    return new Set(claimed.map((row) => row.id));
  }

  /** Of `orderIds`, those placed through the lab account (one query for a batch of messages). */
  async ordersAt(orderIds: readonly string[], labAccountId: string): Promise<Set<string>> {
    if (orderIds.length === 0) return new Set();
    const rows: Array<{ id: string }> = await this.db.query(`SELECT id FROM orders WHERE id = ANY($1::uuid[]) AND lab_account_id = $2`, [
      orderIds,
      labAccountId,
    ]);
    return new Set(rows.map((row) => row.id));
  }

  /** The orders earlier messages from this lab tied to these accession numbers, by number. */
  async ordersOfFillers(peerFacility: string, fillerNumbers: readonly string[]): Promise<Map<string, string>> {
    if (fillerNumbers.length === 0) return new Map();
    const rows: Array<{ fillerNumber: string; orderId: string }> = await this.db.query(
      `SELECT DISTINCT ON (filler_number) filler_number AS "fillerNumber", order_id AS "orderId" FROM hl7_messages
        WHERE peer_facility = $1 AND filler_number = ANY($2::text[]) AND order_id IS NOT NULL ORDER BY filler_number, created_at`,
      [peerFacility, fillerNumbers],
    );
    return new Map(rows.map((row) => [row.fillerNumber, row.orderId]));
  }

  /** Messages handed to their order. */
  async markProcessed(ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.db.query(`UPDATE hl7_messages SET state = 'processed', updated_at = now() WHERE id = ANY($1::uuid[]) AND state = 'received'`, [ids]);
  }

  /** A held message handed to `orderId` (a rematch, once its order took it). False: it is no longer held. */
  async processHeld(id: string, orderId: string): Promise<boolean> {
    const rows: unknown[] = await this.db.query(
      `WITH done AS (UPDATE hl7_messages SET state = 'processed', order_id = $2, updated_at = now() WHERE id = $1 AND state = 'held' RETURNING id) SELECT id FROM done`,
      [id, orderId],
    );
    return rows.length > 0;
  }

  /** The order an earlier message from this lab tied to the lab's accession number. */
  async orderOfFiller(peerFacility: string, fillerNumber: string): Promise<string | null> {
    const [row] = await this.db.query(
      `SELECT order_id AS "orderId" FROM hl7_messages WHERE peer_facility = $1 AND filler_number = $2 AND order_id IS NOT NULL ORDER BY created_at LIMIT 1`,
      [peerFacility, fillerNumber],
    );
    return (row as { orderId: string } | undefined)?.orderId ?? null;
  }

  /** The lab's accession number for an order, as its latest message carrying one named it; null: none yet. */
  async fillerNumberOf(orderId: string): Promise<string | null> {
    const [row] = await this.db.query(
      `SELECT filler_number AS "fillerNumber" FROM hl7_messages WHERE direction = 'in' AND order_id = $1 AND filler_number IS NOT NULL ORDER BY created_at DESC LIMIT 1`,
      [orderId],
    );
    return (row as { fillerNumber: string } | undefined)?.fillerNumber ?? null;
  }

  /** The sealed bodies of the result and status messages taken in for an order, oldest first. */
  async inboundBodiesOf(orderId: string): Promise<Array<{ id: string; bodyEnc: string }>> {
    return this.db.query(
      `SELECT id, body_enc AS "bodyEnc" FROM hl7_messages WHERE direction = 'in' AND order_id = $1 AND state IN ('received', 'processed') ORDER BY created_at, id`,
      [orderId],
    );
  }

  messagesOfOrder(orderId: string): Promise<Hl7MessageSummary[]> {
    return this.db.query(`SELECT ${SUMMARY} FROM hl7_messages WHERE order_id = $1 ORDER BY created_at, id`, [orderId]);
  }

  heldMessages(limit: number): Promise<Hl7MessageSummary[]> {
    return this.db.query(`SELECT ${SUMMARY} FROM hl7_messages WHERE state = 'held' ORDER BY created_at, id LIMIT $1`, [limit]);
  }

  /** Held messages from these lab accounts, oldest first. */
  heldMessagesOf(labAccountIds: readonly string[], limit: number): Promise<Hl7MessageSummary[]> {
    return this.db.query(`SELECT ${SUMMARY} FROM hl7_messages WHERE state = 'held' AND lab_account_id = ANY($1::uuid[]) ORDER BY created_at, id LIMIT $2`, [
      labAccountIds,
      limit,
    ]);
  }

  async summary(id: string): Promise<Hl7MessageSummary | null> {
    const [row] = await this.db.query(`SELECT ${SUMMARY} FROM hl7_messages WHERE id = $1`, [id]);
    return (row as Hl7MessageSummary | undefined) ?? null;
  }

  /** The team owning a lab account (null: a platform account, or none). */
  async teamOfLabAccount(labAccountId: string): Promise<string | null> {
    const [row] = await this.db.query(`SELECT team_id AS "teamId" FROM lab_accounts WHERE id = $1`, [labAccountId]);
    return (row as { teamId: string | null } | undefined)?.teamId ?? null;
  }

  /** The lab accounts a team owns (its own accounts, not the platform's it may use). */
  async labAccountsOfTeam(teamId: string): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.db.query(`SELECT id FROM lab_accounts WHERE team_id = $1`, [teamId]);
    return rows.map((row) => row.id);
  }

  /** Audits an operator's view of a message's decrypted body; resolves once the row has committed. */
  recordOperatorRead(by: OperatorAccess, messageId: string): Promise<void> {
    return logOperatorRead(this.db.manager, by, 'hl7_message', messageId);
  }

  async message(id: string): Promise<Hl7MessageEntity | null> {
    const [row] = await this.db.query(`SELECT ${SUMMARY}, body_enc AS "bodyEnc" FROM hl7_messages WHERE id = $1`, [id]);
    return (row as Hl7MessageEntity | undefined) ?? null;
  }

  /** Counts for metrics: held inbound messages, and orders whose latest order message was refused (waiting for a resend). */
  async waitingCounts(): Promise<{ held: number; refusedOrders: number }> {
    const [row] = await this.db.query(
      `SELECT (SELECT count(*)::int FROM hl7_messages WHERE state = 'held') AS held,
              (SELECT count(*)::int FROM (SELECT DISTINCT ON (order_id) state FROM hl7_messages
                 WHERE direction = 'out' AND order_id IS NOT NULL ORDER BY order_id, created_at DESC, id) latest
                WHERE state IN ('error', 'rejected')) AS "refusedOrders"`,
    );
    return row as { held: number; refusedOrders: number };
  }
}
