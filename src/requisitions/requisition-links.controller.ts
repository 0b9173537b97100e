import { Controller, Get } from '@nestjs/common';
import { Param, Query } from '../common/request-params';
import { ApiTags } from '@nestjs/swagger';
import { createZodDto } from 'nestjs-zod';
import { z } from 'zod';
import { Public } from '../auth/principal';
import { ApiError, notFound } from '../common/errors';
import { RequisitionFormsService } from './requisition-forms.service';
import { RequisitionLinks } from './requisition-links';
import { inlinePdf } from '../common/pdf-response';
import { PdfResponse } from '../common/openapi';

export class SignedRequisitionQuery extends createZodDto(
  z.object({
    expires: z.string().max(20).describe('Unix seconds after which the link no longer works.'),
    signature: z.string().max(200).describe("The link's signature (as issued in requisition_form_url)."),
  }),
) {}

/** The order whose requisition form a signed link serves. */
export class RequisitionOrderParams extends createZodDto(z.object({ order_id: z.uuid() })) {}

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
    private readonly forms: RequisitionFormsService,
  ) {}

  @Get(':order_id/requisition/pdf/signed')
  @PdfResponse()
  async signed(@Param() params: RequisitionOrderParams, @Query() query: SignedRequisitionQuery) {
    const check = this.links.verify(params.order_id, query.expires, query.signature);
    if (check === 'invalid') throw new ApiError(403, 'Invalid requisition link signature.');
    if (check === 'expired') throw new ApiError(410, 'This requisition link has expired; read the order again for a fresh requisition_form_url.');
    // The link stands in for the order's team (PHI access is logged without an API key).
    const pdf = await this.forms.renderForLink(params.order_id);
    if (!pdf) throw notFound('Order');
    return inlinePdf(pdf, `requisition-${params.order_id}.pdf`);
  }
}
