import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ORDER_EVENT_TYPES } from './catalogue';
import { EventsRepository } from './events.repository';

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
  private readonly repo: EventsRepository;

  constructor(@InjectDataSource() private readonly db: DataSource) {
    this.repo = new EventsRepository(db);
  }

  /** Returns the ids of the orders whose latest event was sent again. */
  async resendLatestOrderEvents(
    scope: { teamId: string; environment: 'sandbox' | 'production' },
    filter: ResendFilter = {},
  ): Promise<{ order_ids: string[] }> {
    const params: unknown[] = [scope.teamId, scope.environment, [...ORDER_EVENT_TYPES], RESEND_LIMIT];
    const conditions: string[] = [];
    let subjects = '';
    if (filter.orderIds) {
      params.push(filter.orderIds);
      subjects = `AND subject_id = ANY($${params.length}::text[])`;
    }
    if (filter.startAt) {
      params.push(filter.startAt);
      conditions.push(`created_at >= $${params.length}`);
    }
    if (filter.endAt) {
      params.push(filter.endAt);
      conditions.push(`created_at <= $${params.length}`);
    }
    return this.db.transaction(async (manager) => {
      const chosen: Array<{ id: string; subject_id: string }> = await manager.query(
        `SELECT id, subject_id FROM (
           SELECT DISTINCT ON (subject_id) id, subject_id, created_at
             FROM event_outbox
            WHERE team_id = $1 AND environment = $2 AND event_type = ANY($3::text[]) AND subject_id IS NOT NULL ${subjects}
            ORDER BY subject_id, created_at DESC, id DESC
         ) latest
         ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''}
         ORDER BY created_at, id LIMIT $4`,
        params,
      );
      await this.repo.redeliver(
        manager,
        chosen.map((row) => row.id),
      );
      return { order_ids: chosen.map((row) => row.subject_id) };
    });
  }
}
