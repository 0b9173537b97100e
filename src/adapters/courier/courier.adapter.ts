/**
 * A courier that ships test kits: outbound to the customer, with a prepaid return label
 * (inbound) for the sample's way to the lab. Tracking updates come back asynchronously, through
 * the courier tracking webhook (`POST /v3/webhooks/courier/<courier>`), as `courierUpdate` signals.
 */
export interface KitShippingAddress {
  receiver_name: string;
  first_line: string;
  second_line?: string | null;
  city: string;
  state: string;
  zip: string;
  country: string;
  phone_number: string;
}

export interface ShipKitRequest {
  orderId: string;
  /** The order's environment: sandbox partners only report back on production-environment orders. */
  environment?: 'sandbox' | 'production';
  sampleId: string | null;
  shippingAddress: KitShippingAddress | null;
}

export interface TrackingLabel {
  courier: string;
  trackingNumber: string;
  url: string;
}

export interface KitShipment {
  outbound: TrackingLabel;
  inbound: TrackingLabel;
}

export interface CourierAdapter {
  /** Books the shipment. Must be idempotent per order: asking twice books one shipment. */
  shipKit(request: ShipKitRequest): Promise<KitShipment>;
}

export const COURIER_ADAPTER = Symbol('COURIER_ADAPTER');
