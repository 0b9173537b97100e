import { Inject, Injectable } from '@nestjs/common';
import { WorkflowNotFoundError } from '@temporalio/client';
import { sandboxLabCompletion } from '../adapters/lab/sandbox-lab.adapter';
import { SANDBOX_CALLBACKS, type SandboxCallbacks } from '../adapters/sandbox-callbacks/sandbox-callbacks';
import { PhiCipher } from '../common/crypto';
import { oncePerEvent, PartnerReceiptsRepository } from '../common/idempotency';
import { notFound } from '../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { courierUpdate, labUpdate } from '../../workflows/contract';
import type { OrderEntity } from './order.entities';
import { OrderWorkflows } from './order-workflows';
import type { CourierTrackingDto, LabEventDto } from './orders.dto';
import { OrdersRepository } from './orders.repository';

/** `accepted`: signalled to the order's workflow; `ignored`: the order's workflow has closed. */
type PartnerWebhookAnswer = { status: 'accepted' | 'ignored'; order_id: string };

/** Partners labflow has an integration for. */
const PARTNERS = { courier: ['sandbox'], lab: ['sandbox'] } as const;

/**
 * Courier tracking and lab events, turned into signals of the order's workflow. A report that
 * carries the partner's `event_id` is applied once per id (partner_webhook_receipts): the
 * partner's resend of a report whose answer it lost gets the same answer and changes nothing. The
 * signal carries the id too, and the workflow takes each id once: the API killed after the signal
 * and before the receipt committed leaves no receipt, so the resend signals again. The sandbox lab
 * (the only lab labflow has) answers a sample delivered to it: for a production-environment
 * order, a `delivered_to_lab` fact schedules the lab's `completed` report (a durable sandbox
 * callback, sandbox-lab.adapter.ts), after the fact was signalled, so it arrives after it.
 */
@Injectable()
export class PartnerWebhooksService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly workflows: OrderWorkflows,
    private readonly cipher: PhiCipher,
    private readonly receipts: PartnerReceiptsRepository,
    @Inject(SANDBOX_CALLBACKS) private readonly callbacks: SandboxCallbacks,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  async courier(partner: string, update: CourierTrackingDto): Promise<PartnerWebhookAnswer> {
    if (!(PARTNERS.courier as readonly string[]).includes(partner)) throw notFound('Courier integration');
    const order = await this.orders.findByTrackingNumber(update.tracking_number);
    if (!order) throw notFound('Shipment with this tracking number');
    return oncePerEvent(this.receipts, { kind: 'courier', partner, eventId: update.event_id }, () => this.applyCourier(order, update));
  }

  private async applyCourier(order: OrderEntity, update: CourierTrackingDto): Promise<PartnerWebhookAnswer> {
    await this.workflows.ensureStarted(order);
    const signalled = await this.signalUnlessClosed(() =>
      this.workflows.handle(order.id).signal(courierUpdate, {
        low: update.status,
        statusDetail: update.status_detail ?? null,
        ...(update.event_id ? { eventId: update.event_id } : {}),
      }),
    );
    if (!signalled) return { status: 'ignored', order_id: order.id };
    if (update.status === 'delivered_to_lab' && order.environment === 'production') {
      await this.callbacks.schedule([sandboxLabCompletion(order.id, this.config.sandboxCallbacks.labResultDelayMs)]);
    }
    return { status: 'accepted', order_id: order.id };
  }

  async lab(partner: string, event: LabEventDto): Promise<PartnerWebhookAnswer> {
    if (!(PARTNERS.lab as readonly string[]).includes(partner)) throw notFound('Lab integration');
    const order = await this.orders.findById(event.order_id);
    if (!order) throw notFound('Order');
    return oncePerEvent(this.receipts, { kind: 'lab', partner, eventId: event.event_id }, () => this.applyLab(order, event));
  }

  private async applyLab(order: OrderEntity, event: LabEventDto): Promise<PartnerWebhookAnswer> {
    // The note is the order's before the event's transition, so that transition's webhook carries
    // it. Kept in Postgres only: free text about a sample stays out of the workflow history.
    if (event.notes) await this.orders.setNotes(order.id, this.cipher.encryptJson(event.notes), { teamId: order.teamId, apiKeyId: null });
    await this.workflows.ensureStarted(order);
    const signalled = await this.signalUnlessClosed(() =>
      this.workflows.handle(order.id).signal(labUpdate, {
        low: event.status,
        statusDetail: event.status_detail ?? null,
        interpretation: event.interpretation ?? undefined,
        hasMissingResults: event.has_missing_results ?? undefined,
        resultTypes: event.result_types ?? undefined,
        ...(event.event_id ? { eventId: event.event_id } : {}),
      }),
    );
    return { status: signalled ? 'accepted' : 'ignored', order_id: order.id };
  }

  /**
   * Signals the order's workflow; false when it has already closed (the order was cancelled or
   * finished), so the event can no longer change it. The partner gets 200 `ignored` rather than
   * an error it would retry, as appointment providers' callbacks do.
   */
  private async signalUnlessClosed(signal: () => Promise<void>): Promise<boolean> {
    try {
      await signal();
      return true;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  }
}
