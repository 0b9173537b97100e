import { Inject, Injectable, Optional } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { LABFLOW_CONFIG, type LabflowConfig } from '../../config/config';
import { SANDBOX_CALLBACKS, type SandboxCallback, type SandboxCallbacks } from '../sandbox-callbacks/sandbox-callbacks';
import type { CourierAdapter, KitShipment, ShipKitRequest } from './courier.adapter';

export const SANDBOX_COURIER = 'sandbox';

/** Where the sandbox courier reports tracking (labflow's courier tracking webhook). */
export const SANDBOX_COURIER_WEBHOOK_PATH = `/v3/webhooks/courier/${SANDBOX_COURIER}`;

/** The tracking updates the sandbox courier reports, in order, and the leg each belongs to. */
export const SANDBOX_COURIER_STEPS = [
  { status: 'out_for_delivery', leg: 'outbound' },
  { status: 'with_customer', leg: 'outbound' },
  { status: 'transit_lab', leg: 'inbound' },
  { status: 'delivered_to_lab', leg: 'inbound' },
] as const;

/**
 * The sandbox courier books nothing: it derives stable tracking numbers from the order id, so
 * shipping the same order twice gives the same shipment. For a sandbox-environment order its
 * tracking updates are simulated by the order workflow (`POST /v3/order/{id}/test`); for a
 * production-environment order it reports them itself, like a real courier: one signed call of
 * the tracking webhook per step, SANDBOX_COURIER_STEP_DELAY apart, scheduled as durable sandbox
 * callbacks whose ids derive from the order and step (booking again schedules nothing new).
 */
@Injectable()
export class SandboxCourierAdapter implements CourierAdapter {
  constructor(
    @Optional() @Inject(SANDBOX_CALLBACKS) private readonly callbacks?: SandboxCallbacks,
    @Optional() @Inject(LABFLOW_CONFIG) private readonly config?: LabflowConfig,
  ) {}

  async shipKit(request: ShipKitRequest): Promise<KitShipment> {
    const shipment = {
      outbound: this.label(request.orderId, 'outbound'),
      inbound: this.label(request.orderId, 'inbound'),
    };
    if (request.environment === 'production' && this.callbacks) {
      await this.callbacks.schedule(this.trackingCallbacks(request.orderId, shipment));
    }
    return shipment;
  }

  /** The tracking updates of one shipment, each a step delay after the previous one. */
  trackingCallbacks(orderId: string, shipment: KitShipment): SandboxCallback[] {
    const stepMs = this.config?.sandboxCallbacks.courierStepDelayMs ?? 5000;
    // The first update waits at least a second: the shipment is stored (and its tracking numbers
    // become known to the webhook) just after this booking returns.
    const firstMs = Math.max(stepMs, 1000);
    return SANDBOX_COURIER_STEPS.map((step, index) => ({
      id: `sandbox-courier:${orderId}:${step.status}`,
      path: SANDBOX_COURIER_WEBHOOK_PATH,
      body: { tracking_number: shipment[step.leg].trackingNumber, status: step.status },
      delayMs: firstMs + stepMs * index,
    }));
  }

  private label(orderId: string, leg: 'outbound' | 'inbound') {
    const digits = BigInt(`0x${createHash('sha256').update(`${orderId}:${leg}`).digest('hex').slice(0, 15)}`)
      .toString()
      .padStart(18, '0')
      .slice(0, 18);
    const trackingNumber = `LF${leg === 'outbound' ? 'O' : 'I'}${digits}`;
    return { courier: SANDBOX_COURIER, trackingNumber, url: `https://courier.sandbox.labflow.invalid/track/${trackingNumber}` };
  }
}
