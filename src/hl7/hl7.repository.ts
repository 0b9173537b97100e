import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { logOperatorRead, type OperatorAccess } from '../common/phi-access-log';
import { Hl7LabInterfaceEntity, type Hl7MessageEntity, type Hl7MessageState } from './hl7.entities';
import type { Hl7InterfaceSettings } from './hl7-settings';

/** A message row without its body: what listings show. */
export type Hl7MessageSummary = Omit<Hl7MessageEntity, 'bodyEnc'>;

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
   * Stores an inbound message once per (sending facility, control id): `stored` false when that
   * message was stored already (a repeat), with the row it was stored as.
   */
  async storeInbound(
    row: Pick<
      Hl7MessageEntity,
      'peerFacility' | 'controlId' | 'messageType' | 'labAccountId' | 'orderId' | 'fillerNumber' | 'state' | 'ackCode' | 'ackText' | 'bodyEnc'
    >,
  ): Promise<{ stored: boolean; message: Hl7MessageSummary }> {
    const inserted: Hl7MessageSummary[] = await this.db.query(
      `INSERT INTO hl7_messages (id, direction, peer_facility, control_id, message_type, lab_account_id, order_id, filler_number, state, ack_code, ack_text, body_enc)
       VALUES ($1, 'in', $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (direction, peer_facility, control_id) DO NOTHING
       RETURNING ${SUMMARY}`,
      [
        randomUUID(),
        row.peerFacility,
        row.controlId,
        row.messageType,
        row.labAccountId,
        row.orderId,
        row.fillerNumber,
        row.state,
        row.ackCode,
        row.ackText,
        row.bodyEnc,
      ],
    );
    if (inserted[0]) return { stored: true, message: inserted[0] };
    const [existing] = await this.db.query(`SELECT ${SUMMARY} FROM hl7_messages WHERE direction = 'in' AND peer_facility = $1 AND control_id = $2`, [
      row.peerFacility,
      row.controlId,
    ]);
    return { stored: false, message: existing as Hl7MessageSummary };
  }

  async setInboundState(id: string, state: Hl7MessageState, orderId: string | null = null): Promise<void> {
    await this.db.query(`UPDATE hl7_messages SET state = $2, order_id = COALESCE($3, order_id), updated_at = now() WHERE id = $1`, [id, state, orderId]);
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
