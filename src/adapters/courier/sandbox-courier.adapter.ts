import { createHash } from 'node:crypto';
import type { CourierAdapter, KitShipment, ShipKitRequest } from './courier.adapter';

export const SANDBOX_COURIER = 'sandbox';

/**
 * The sandbox courier books nothing: it derives stable tracking numbers from the order id, so
 * shipping the same order twice gives the same shipment. Its tracking updates are simulated by
 * the order workflow (`POST /v3/order/{id}/test`) or posted by hand to the tracking webhook.
 */
export class SandboxCourierAdapter implements CourierAdapter {
  async shipKit(request: ShipKitRequest): Promise<KitShipment> {
    return {
      outbound: this.label(request.orderId, 'outbound'),
      inbound: this.label(request.orderId, 'inbound'),
    };
  }

  private label(orderId: string, leg: 'outbound' | 'inbound') {
    const digits = BigInt(`0x${createHash('sha256').update(`${orderId}:${leg}`).digest('hex').slice(0, 15)}`).toString().padStart(18, '0').slice(0, 18);
    const trackingNumber = `LF${leg === 'outbound' ? 'O' : 'I'}${digits}`;
    return { courier: SANDBOX_COURIER, trackingNumber, url: `https://courier.sandbox.labflow.invalid/track/${trackingNumber}` };
  }
}
