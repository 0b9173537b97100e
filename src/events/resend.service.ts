import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ORDER_EVENT_TYPES } from './catalogue';
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
 * Orders are found by the outbox's subject (the order id; see NewEvent.subjectId).
 */
@Injectable()
export class EventResendService {
  private readonly repo: OutboxRepository;

  constructor(@InjectDataSource() private readonly db: DataSource) {
    this.repo = new OutboxRepository(db);
  }

  /** Returns the ids of the orders whose latest event was sent again. */
  async resendLatestOrderEvents(
    scope: { teamId: string; environment: 'sandbox' | 'production' },
    filter: ResendFilter = {},
  ): Promise<{ order_ids: string[] }> {
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
