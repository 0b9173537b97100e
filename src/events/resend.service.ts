import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { conflict, notFound } from '../common/errors';
import { ORDER_EVENT_TYPES } from './catalogue';
import { DeliveriesRepository } from './deliveries.repository';
import type { DeliveryStatus } from './delivery-status';
import { DeliveryLogRepository } from './delivery-log.repository';
import { OutboxRepository } from './outbox.repository';

/** Orders whose latest event one resend call sends again, at most. */
export const RESEND_LIMIT = 1000;

export interface ResendFilter {
  orderIds?: string[];
  /** Only orders whose latest event was written in [startAt, endAt]. */
  startAt?: Date;
  endAt?: Date;
}

/**
 * `POST /v3/order/resend_events`: sends the latest order event (labtest.order.created|updated)
 * of each selected order again to the team's webhook endpoints, with its original webhook id.
 * Orders are found by the outbox's subject (the order id; see NewEvent.subjectId). Also the
 * operator's replay of one delivery by its id (the ops CLI's `delivery replay`).
 */
@Injectable()
export class EventResendService {
  private readonly repo: OutboxRepository;
  private readonly deliveries: DeliveriesRepository;
  private readonly log: DeliveryLogRepository;

  constructor(@InjectDataSource() private readonly db: DataSource) {
    this.repo = new OutboxRepository(db);
    this.deliveries = new DeliveriesRepository(db);
    this.log = new DeliveryLogRepository(db);
  }

  /**
   * Sends one delivery (to a webhook endpoint or a RabbitMQ destination) again, now, whatever its
   * state, as the management API's message retry does: a manual attempt the relay enqueues, the
   * webhook id unchanged. Refused (409) while its target is disabled: the attempt would only be
   * cancelled.
   */
  async replayDelivery(
    deliveryId: string,
  ): Promise<{ delivery_id: string; event_id: string; event_type: string; previous_status: DeliveryStatus; attempt_count: number }> {
    const delivery = await this.log.findDelivery(deliveryId);
    if (!delivery) throw notFound('Delivery');
    if (delivery.target_disabled) {
      const what = delivery.target === 'webhook' ? `webhook endpoint ${delivery.endpoint_id}` : `event destination pipeline ${delivery.pipeline_id}`;
      throw conflict(`The ${what} is disabled; enable it before replaying its deliveries.`);
    }
    await this.db.transaction((manager) => this.deliveries.requestManualAttempt(manager, deliveryId));
    return {
      delivery_id: delivery.id,
      event_id: delivery.event_id,
      event_type: delivery.event_type,
      previous_status: delivery.status,
      attempt_count: delivery.attempt_count,
    };
  }

  /** Returns the ids of the orders whose latest event was sent again. */
  async resendLatestOrderEvents(scope: { teamId: string; environment: 'sandbox' | 'production' }, filter: ResendFilter = {}): Promise<{ order_ids: string[] }> {
    return this.db.transaction(async (manager) => {
      const chosen = await this.repo.latestPerSubject(
        manager,
        scope,
        ORDER_EVENT_TYPES,
        { subjectIds: filter.orderIds, startAt: filter.startAt, endAt: filter.endAt },
        RESEND_LIMIT,
      );
      await this.repo.redeliver(
        manager,
        chosen.map((row) => row.id),
      );
      return { order_ids: chosen.map((row) => row.subject_id) };
    });
  }
}
