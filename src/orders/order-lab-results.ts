import { Injectable } from '@nestjs/common';
import { Hl7LabAdapter } from '../adapters/lab/hl7-lab.adapter';
import type { LabResults } from '../adapters/lab/lab.adapter';
import { PhiCipher } from '../common/crypto';
import { type NewEvent, OutboxService } from '../events/outbox.service';
import { Hl7Repository } from '../hl7/hl7.repository';
import { LabCatalogRepository } from '../lab-tests/lab-catalog.repository';
import { LabTestsRepository } from '../lab-tests/lab-tests.repository';
import { UsersRepository } from '../users/users.repository';
import { eventStatus, parseEventStatus } from '../../workflows/order/order-statuses';
import type { OrderEntity } from './order.entities';
import { biomarkersOfOrder } from './order-biomarkers';
import { orderMetrics } from './order-metrics';
import { OrderViews } from './order-views';
import { OrdersRepository } from './orders.repository';

/** Statuses whose results are stored (the order completed) and which a lab may still correct. */
const RESULTED = ['completed', 'corrected'];

export type CorrectionOutcome = 'corrected' | 'repeat' | 'not_resulted';

/**
 * Results an HL7 lab reports outside the order workflow's collection at completion: the partial
 * results of an order in `partial_results` (read from the lab's messages as they stand), and a
 * correction (OBX-11/OBR-25 `C`) that arrives after the order completed, when its workflow has
 * closed. A correction replaces the stored results and records the order's `corrected` status
 * (`completed.<method>.corrected`) with its `labtest.order.updated` event, and
 * `labtest.result.critical` if the corrected results are critical and none was sent: all in one
 * transaction, once per correcting message.
 */
@Injectable()
export class OrderLabResults {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly users: UsersRepository,
    private readonly views: OrderViews,
    private readonly outbox: OutboxService,
    private readonly cipher: PhiCipher,
    private readonly tests: LabTestsRepository,
    private readonly catalog: LabCatalogRepository,
    private readonly hl7: Hl7Repository,
    private readonly hl7Lab: Hl7LabAdapter,
  ) {}

  static isResulted(order: Pick<OrderEntity, 'lowLevelStatus'>): boolean {
    return RESULTED.includes(order.lowLevelStatus);
  }

  /** The lab's results so far for an order in `partial_results` at an HL7 lab; null otherwise. */
  async partial(order: OrderEntity): Promise<LabResults | null> {
    if (order.lowLevelStatus !== 'partial_results') return null;
    const mapped = await this.fromLabMessages(order);
    return mapped && mapped.results.length + mapped.missingResults.length > 0 ? { ...mapped, status: 'partial' } : null;
  }

  /** Applies the correcting message `reportId` to a completed order's results (see the class). */
  async correct(orderId: string, reportId: string): Promise<CorrectionOutcome> {
    const found = await this.orders.findById(orderId);
    if (!found || !OrderLabResults.isResulted(found)) return 'not_resulted';
    const report = await this.fromLabMessages(found);
    if (!report) return 'not_resulted';
    const outcome = await this.orders.transaction(async (manager): Promise<CorrectionOutcome> => {
      const order = await this.orders.lockById(manager, orderId);
      if (!order || !OrderLabResults.isResulted(order)) return 'not_resulted';
      const before = await this.orders.resultsOf(order.id, manager);
      if (!before) return 'not_resulted';
      const applied = await this.orders.correctResults(manager, order.id, reportId, {
        status: report.status,
        interpretation: report.interpretation,
        resultsEnc: this.cipher.encryptJson(report.results),
        missingResults: report.missingResults as unknown as Array<Record<string, unknown>>,
      });
      if (!applied) return 'repeat';
      await this.orders.update(manager, order.id, { interpretation: report.interpretation, hasMissingResults: report.missingResults.length > 0 });
      const seq = (await this.orders.latestSeq(order.id, manager)) + 1;
      const status = eventStatus(order.flow, 'corrected');
      const parsed = parseEventStatus(status)!;
      await this.orders.recordTransition(manager, { orderId: order.id, seq, status, statusDetail: null, top: parsed.top, low: parsed.low });
      const updated = (await this.orders.findById(order.id, manager)) as OrderEntity;
      const clientUserId = (await this.users.clientUserIdOf(order.userId, manager)) ?? '';
      const subject = { teamId: order.teamId, environment: order.environment, userId: order.userId, clientUserId };
      const events: NewEvent[] = [
        { ...subject, eventType: 'labtest.order.updated', idempotencyKey: `order:${order.id}:${seq}`, data: await this.views.one(updated, manager) },
      ];
      if (report.interpretation === 'critical' && before.interpretation !== 'critical') {
        const now = new Date().toISOString();
        events.push({
          ...subject,
          eventType: 'labtest.result.critical',
          idempotencyKey: `order:${order.id}:result.critical`,
          data: {
            order_id: order.id,
            sample_id: order.sampleId,
            status: report.status,
            interpretation: report.interpretation,
            team_id: order.teamId,
            user_id: order.userId,
            created_at: now,
            updated_at: now,
          },
        });
      }
      await this.outbox.record(manager, events);
      orderMetrics.transitionRecorded(parsed);
      return 'corrected';
    });
    return outcome;
  }

  /** The order's results mapped from every message its HL7 lab sent for it; null when its lab is not an HL7 lab. */
  private async fromLabMessages(order: OrderEntity): Promise<LabResults | null> {
    const lab = await this.hl7.interfaceOf(order.labAccountId);
    if (!lab) return null;
    const [labRow] = await this.catalog.labsByIds([order.labId]);
    return this.hl7Lab.results(
      {
        orderId: order.id,
        labAccountId: order.labAccountId,
        labName: labRow?.name ?? String(order.labId),
        sampleId: order.sampleId,
        markers: await biomarkersOfOrder(this.tests, this.catalog, order),
        sex: null,
        collectedAt: order.createdAt,
      },
      lab,
    );
  }
}
