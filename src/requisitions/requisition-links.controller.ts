import { Controller, Get, Param, Query, StreamableFile } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { Public, type TeamPrincipal } from '../auth/principal';
import { ApiError, notFound } from '../common/errors';
import { OrderIdParams } from '../orders/orders.dto';
import { OrdersRepository } from '../orders/orders.repository';
import { OrdersService } from '../orders/orders.service';
import { RequisitionLinks } from './requisition-links';

export class SignedRequisitionQuery extends createZodDto(
  z.object({
    expires: z.string().max(20).describe('Unix seconds after which the link no longer works.'),
    signature: z.string().max(200).describe('The link\'s signature (as issued in requisition_form_url).'),
  }),
) {}

/**
 * The requisition form behind `requisition_form_url`: no API key, the link's signature instead.
 * A tampered link answers 403, an expired one 410 (both {detail}); read the order again for a
 * fresh link. The same form is served with the team key at `/v3/order/{id}/requisition/pdf`.
 */
@ApiTags('order')
@Controller('v3/order')
@Public()
export class RequisitionLinksController {
  constructor(
    private readonly links: RequisitionLinks,
    private readonly orders: OrdersRepository,
    private readonly ordersService: OrdersService,
  ) {}

  @Get(':order_id/requisition/pdf/signed')
  async signed(@Param() params: OrderIdParams, @Query() query: SignedRequisitionQuery) {
    const check = this.links.verify(params.order_id, query.expires, query.signature);
    if (check === 'invalid') throw new ApiError(403, 'Invalid requisition link signature.');
    if (check === 'expired') throw new ApiError(410, 'This requisition link has expired; read the order again for a fresh requisition_form_url.');
    const order = await this.orders.findById(params.order_id);
    if (!order) throw notFound('Order');
    // The link stands in for the order's team (PHI access is logged without an API key).
    const scope = { teamId: order.teamId, environment: order.environment, apiKeyId: null } as unknown as TeamPrincipal;
    const pdf = await this.ordersService.requisitionPdf(scope, order.id);
    return new StreamableFile(pdf, { type: 'application/pdf', disposition: `inline; filename="requisition-${order.id}.pdf"` });
  }
}
