/**
 * What the fault run reads once it stopped waiting, to check and report: every order as the API
 * answers it, every order workflow as Temporal describes it, the team's outbox and deliveries, and
 * the webhook requests the receiver got.
 */
import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { PhiCipher } from '../../src/common/crypto';
import type { ReceivedRequest, WebhookReceiver } from '../helpers/webhook-receiver';
import { http, pool } from './http';
import { API, config, WEBHOOK_PATH } from './settings';
import type { RunOrder, Tenant } from './team';

export interface OutboxEvent {
  id: string;
  event_type: string;
  subject_id: string | null;
  user_id: string | null;
  data: any;
}

export interface Evidence {
  /** Each order's workflow status (RUNNING, COMPLETED...; MISSING when Temporal has none). */
  workflowStatus: Map<string, string>;
  outbox: OutboxEvent[];
  deliveries: Array<{ event_id: string; status: string; attempt_count: number }>;
  /** Every request the receiver got, and the first of each webhook id. */
  requests: ReceivedRequest[];
  firstById: Map<string, ReceivedRequest>;
  /** Webhook ids (= outbox event ids) answered 2xx at least once. */
  accepted: Set<string>;
  failedAttempts: number;
}

/** Reads every order once more (into `orders`), then the rest of the evidence. */
export async function gatherEvidence(db: DataSource, client: Client, tenant: Tenant, orders: RunOrder[], receiver: WebhookReceiver): Promise<Evidence> {
  await pool(orders, 10, async (order) => {
    const reply = await http(API, 'GET', `/v3/order/${order.id}`, { key: tenant.apiKey }).catch(() => null);
    if (reply?.status === 200) order.view = reply.body;
  });

  // The workflows, as Temporal sees them.
  const workflowStatus = new Map<string, string>();
  await pool(orders, 10, async (order) => {
    try {
      const description = await client.workflow.getHandle(`order:${order.id}`).describe();
      workflowStatus.set(order.id, description.status.name);
    } catch (error) {
      workflowStatus.set(order.id, error instanceof Error && /not found/i.test(error.message) ? 'MISSING' : `UNKNOWN (${String(error)})`);
    }
  });

  // Outbox and deliveries of this team.
  const cipher = new PhiCipher(config.phiEncryptionKey);
  const outbox: OutboxEvent[] = (
    await db.query(`SELECT id, event_type, subject_id, user_id, data_enc FROM event_outbox WHERE team_id = $1 ORDER BY created_at, id`, [tenant.teamId])
  ).map((row: { id: string; event_type: string; subject_id: string | null; user_id: string | null; data_enc: string }) => ({
    id: row.id,
    event_type: row.event_type,
    subject_id: row.subject_id,
    user_id: row.user_id,
    data: cipher.decryptJson<any>(row.data_enc),
  }));
  const deliveries: Array<{ event_id: string; status: string; attempt_count: number }> = await db.query(
    `SELECT event_id, status, attempt_count FROM event_deliveries WHERE team_id = $1`,
    [tenant.teamId],
  );

  // Webhooks the receiver got, deduplicated by webhook id.
  const requests = receiver.forPath(WEBHOOK_PATH);
  const firstById = new Map<string, ReceivedRequest>();
  for (const request of requests) if (!firstById.has(request.webhookId)) firstById.set(request.webhookId, request);
  const accepted = new Set(requests.filter((request) => request.answeredStatus !== null && request.answeredStatus < 300).map((request) => request.webhookId));
  const failedAttempts = requests.filter((request) => request.answeredStatus === 500).length;
  return { workflowStatus, outbox, deliveries, requests, firstById, accepted, failedAttempts };
}
