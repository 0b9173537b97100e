import { Inject, Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { orderWorkflowId } from '../../workflows/contract';
import { ApiError } from '../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { DeliveryLogRepository } from '../events/delivery-log.repository';
import { OrdersRepository } from '../orders/orders.repository';
import { PhiAccessReadModel, type PhiAccessRow } from './phi-access-read-model';

export interface PhiAccessView {
  at: string;
  team_id: string | null;
  /** The operator of an ops CLI access; null for an API key's. */
  actor: string | null;
  action: 'read' | 'write';
  resource: string;
  resource_id: string;
  api_key: { id: string; prefix: string | null; label: string | null } | null;
}

/**
 * An order's story for whoever is on call: the row (no PHI: patient details, addresses and
 * results stay encrypted and unprinted), its status events, the outbox events written for it and
 * every delivery of those with its attempts, and where its workflow is in the Temporal UI.
 */
export interface OrderStory {
  order: {
    id: string;
    team_id: string;
    environment: string;
    user_id: string;
    status: string;
    low_level_status: string;
    collection_method: string;
    flow: string;
    origin: string;
    lab_id: number;
    lab_test_id: string;
    sample_id: string | null;
    order_transaction_id: string;
    created_at: string;
    updated_at: string;
    workflow_started_at: string | null;
  };
  events: Array<{ seq: number; status: string; status_detail: string | null; created_at: string }>;
  outbox: Array<{
    id: string;
    event_type: string;
    created_at: string;
    relayed_at: string | null;
    deliveries: Array<{
      id: string;
      target: string;
      endpoint_id: string | null;
      pipeline_id: string | null;
      status: string;
      status_reason: string | null;
      attempt_count: number;
      next_attempt_at: string | null;
      attempts: Array<{
        attempt_number: number;
        trigger: string;
        status: string;
        url: string | null;
        response_status_code: number | null;
        error: string | null;
        latency_ms: number | null;
        created_at: string;
      }>;
    }>;
  }>;
  workflow: { id: string; namespace: string; ui_url: string };
}

const iso = (value: Date | null) => value?.toISOString() ?? null;

/** The ops CLI's read-only views: the PHI access log and an order's story. */
@Injectable()
export class OpsQueriesService {
  private readonly deliveries: DeliveryLogRepository;

  constructor(
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
    @InjectDataSource() db: DataSource,
    private readonly orders: OrdersRepository,
    private readonly phiAccess: PhiAccessReadModel,
  ) {
    this.deliveries = new DeliveryLogRepository(db);
  }

  async phiLogOfOrder(orderId: string, limit: number): Promise<PhiAccessView[]> {
    const rows = await this.phiAccess.ofOrder(orderId, limit);
    if (rows.length === 0 && !(await this.orders.findById(orderId))) throw new ApiError(404, `No order ${orderId} and no PHI access to it recorded.`);
    return rows.map(phiView);
  }

  async phiLogOfUser(userId: string, limit: number): Promise<PhiAccessView[]> {
    const rows = await this.phiAccess.ofUser(userId, limit);
    if (rows.length === 0 && !(await this.phiAccess.userExists(userId))) throw new ApiError(404, `No user ${userId}.`);
    return rows.map(phiView);
  }

  async orderStory(orderId: string): Promise<OrderStory> {
    const order = await this.orders.findById(orderId);
    if (!order) throw new ApiError(404, `No order ${orderId}.`);
    const events = (await this.orders.eventsOf([order.id])).get(order.id) ?? [];
    const log = await this.deliveries.ofSubject(order.teamId, order.id);
    const { namespace, uiUrl } = this.config.temporal;
    const workflowId = orderWorkflowId(order.id);
    return {
      order: {
        id: order.id,
        team_id: order.teamId,
        environment: order.environment,
        user_id: order.userId,
        status: order.status,
        low_level_status: order.lowLevelStatus,
        collection_method: order.collectionMethod,
        flow: order.flow,
        origin: order.origin,
        lab_id: order.labId,
        lab_test_id: order.labTestId,
        sample_id: order.sampleId,
        order_transaction_id: order.orderTransactionId,
        created_at: order.createdAt.toISOString(),
        updated_at: order.updatedAt.toISOString(),
        workflow_started_at: iso(order.workflowStartedAt),
      },
      events: events.map((event) => ({ seq: event.seq, status: event.status, status_detail: event.statusDetail, created_at: event.createdAt.toISOString() })),
      outbox: log.events.map((event) => ({
        id: event.id,
        event_type: event.event_type,
        created_at: event.created_at.toISOString(),
        relayed_at: iso(event.relayed_at),
        deliveries: log.deliveries
          .filter((delivery) => delivery.event_id === event.id)
          .map((delivery) => ({
            id: delivery.id,
            target: delivery.target,
            endpoint_id: delivery.endpoint_id,
            pipeline_id: delivery.pipeline_id,
            status: delivery.status,
            status_reason: delivery.status_reason,
            attempt_count: delivery.attempt_count,
            next_attempt_at: delivery.status === 'pending' ? iso(delivery.next_attempt_at) : null,
            attempts: log.attempts
              .filter((attempt) => attempt.delivery_id === delivery.id)
              .map((attempt) => ({
                attempt_number: attempt.attempt_number,
                trigger: attempt.trigger,
                status: attempt.status,
                url: attempt.url,
                response_status_code: attempt.response_status_code,
                error: attempt.error,
                latency_ms: attempt.latency_ms,
                created_at: attempt.created_at.toISOString(),
              })),
          })),
      })),
      workflow: {
        id: workflowId,
        namespace,
        // The UI opens the latest run of a workflow id given without a run id.
        ui_url: `${uiUrl.replace(/\/+$/, '')}/namespaces/${namespace}/workflows/${workflowId}`,
      },
    };
  }
}

function phiView(row: PhiAccessRow): PhiAccessView {
  return {
    at: row.at.toISOString(),
    team_id: row.team_id,
    actor: row.actor,
    action: row.action,
    resource: row.resource,
    resource_id: row.resource_id,
    api_key: row.api_key_id ? { id: row.api_key_id, prefix: row.api_key_prefix, label: row.api_key_label } : null,
  };
}
