import { Injectable } from '@nestjs/common';
import type { SandboxLabCatalog } from '../adapters/lab/sandbox-hl7-lab';
import type { ResultMarker } from '../results';
import { OrderTransitionsService } from './order-transitions.service';
import { OrdersRepository } from './orders.repository';

/** The biomarkers of an order the sandbox HL7 lab was sent, as the sandbox lab adapter reports them. */
@Injectable()
export class OrderSandboxLabCatalog implements SandboxLabCatalog {
  constructor(
    private readonly orders: OrdersRepository,
    private readonly transitions: OrderTransitionsService,
  ) {}

  async markersOfOrder(orderId: string): Promise<ResultMarker[]> {
    const order = await this.orders.findById(orderId);
    return order ? this.transitions.biomarkersOf(order) : [];
  }
}
