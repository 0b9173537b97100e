import { type CanActivate, type ExecutionContext, Inject, Injectable } from '@nestjs/common';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { sandboxLabCompletion } from '../adapters/lab/sandbox-lab.adapter';
import { SANDBOX_CALLBACKS, type SandboxCallbacks } from '../adapters/sandbox-callbacks/sandbox-callbacks';
import { ApiError, notFound, unauthorized } from '../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { courierUpdate, labUpdate } from '../../workflows/contract';
import { sourceOf } from '../../workflows/order-lifecycle';
import { OrderWorkflows } from './order-workflows';
import type { CourierTrackingDto, LabEventDto } from './orders.dto';
import { OrdersRepository } from './orders.repository';

export const SIGNATURE_HEADER = 'x-labflow-signature';
export const TIMESTAMP_HEADER = 'x-labflow-timestamp';
/** A signed request older or newer than this is refused (replay protection). */
const TOLERANCE_SECONDS = 300;
/** Partners labflow has an integration for. */
const PARTNERS = { courier: ['sandbox'], lab: ['sandbox'] } as const;

/**
 * `v1=<hex HMAC-SHA256(secret, "<timestamp>.<body>")>`, where body is the compact JSON of the
 * request (JSON.stringify of what was sent). Partners and tests sign with this.
 */
export function signPartnerWebhook(secret: string, timestamp: number, body: unknown): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${JSON.stringify(body)}`).digest('hex')}`;
}

/** Verifies the HMAC signature of courier and lab webhooks before anything else runs. */
@Injectable()
export class PartnerSignatureGuard implements CanActivate {
  constructor(@Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const secret = this.config.orders.partnerWebhookSecret;
    if (!secret) throw new ApiError(503, 'Partner webhooks are not configured (PARTNER_WEBHOOK_SECRET).');
    const request = context.switchToHttp().getRequest<{ headers: Record<string, string | string[] | undefined>; body: unknown }>();
    const header = (name: string) => {
      const value = request.headers[name];
      return Array.isArray(value) ? value[0] : value;
    };
    const timestamp = Number(header(TIMESTAMP_HEADER));
    const signature = header(SIGNATURE_HEADER) ?? '';
    if (!Number.isInteger(timestamp) || Math.abs(Date.now() / 1000 - timestamp) > TOLERANCE_SECONDS) {
      throw unauthorized(`Missing or stale ${TIMESTAMP_HEADER}.`);
    }
    const expected = Buffer.from(signPartnerWebhook(secret, timestamp, request.body ?? null));
    const presented = Buffer.from(signature);
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected)) throw unauthorized('Invalid webhook signature.');
    return true;
  }
}

/**
 * Courier tracking and lab events, turned into signals of the order's workflow. The sandbox lab
 * (the only lab labflow has) answers a sample delivered to it: for a production-environment
 * order, a `delivered_to_lab` fact schedules the lab's `completed` report (a durable sandbox
 * callback, sandbox-lab.adapter.ts), after the fact was signalled, so it arrives after it.
 */
@Injectable()
export class PartnerWebhooksService {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly workflows: OrderWorkflows,
    @Inject(SANDBOX_CALLBACKS) private readonly callbacks: SandboxCallbacks,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  async courier(partner: string, update: CourierTrackingDto): Promise<{ status: 'accepted'; order_id: string }> {
    if (!(PARTNERS.courier as readonly string[]).includes(partner)) throw notFound('Courier integration');
    if (sourceOf(update.status) !== 'courier') throw new ApiError(422, `${update.status} is not a courier tracking status.`);
    const order = await this.orders.findByTrackingNumber(update.tracking_number);
    if (!order) throw notFound('Shipment with this tracking number');
    await this.workflows.ensureStarted(order);
    await this.workflows.handle(order.id).signal(courierUpdate, { low: update.status, statusDetail: update.status_detail ?? null });
    if (update.status === 'delivered_to_lab' && order.environment === 'production') {
      await this.callbacks.schedule([sandboxLabCompletion(order.id, this.config.sandboxCallbacks.labResultDelayMs)]);
    }
    return { status: 'accepted', order_id: order.id };
  }

  async lab(partner: string, event: LabEventDto): Promise<{ status: 'accepted'; order_id: string }> {
    if (!(PARTNERS.lab as readonly string[]).includes(partner)) throw notFound('Lab integration');
    if (sourceOf(event.status) === 'workflow') throw new ApiError(422, `${event.status} is not a lab event status.`);
    const order = await this.orders.findById(event.order_id);
    if (!order) throw notFound('Order');
    await this.workflows.ensureStarted(order);
    await this.workflows.handle(order.id).signal(labUpdate, {
      low: event.status,
      statusDetail: event.status_detail ?? null,
      interpretation: event.interpretation ?? undefined,
      hasMissingResults: event.has_missing_results ?? undefined,
    });
    return { status: 'accepted', order_id: order.id };
  }
}
