import { Controller, Get, Headers, HttpCode, Patch, Post } from '@nestjs/common';
import { Body, Param, Query } from '../common/request-params';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { RequestValidationError } from '../common/errors';
import { zodIssues } from '../common/validation';
import { RequisitionFormsService } from '../requisitions/requisition-forms.service';
import type { IdempotencyOptions } from '../common/idempotency';
import {
  CreateOrderDto,
  CreateTestkitOrderDto,
  ImportOrderDto,
  LabelsQuery,
  ListOrdersQuery,
  OrderIdParams,
  PatchOrderDto,
  RecreateOrderDto,
  RegisterTestkitDto,
  ResendEventsDto,
  simulateBody,
  SimulateQuery,
} from './orders.dto';
import { OrderRecreationService } from './order-recreation.service';
import { OrderCommandsService } from './order-commands.service';
import { OrderCreationService } from './order-creation.service';
import { OrderQueriesService } from './order-queries.service';
import { inlinePdf } from '../common/pdf-response';
import { ZodResponse } from 'nestjs-zod';
import { PdfResponse } from '../common/openapi';
import { OrderPageResponse, OrderResponse, PostOrderResponse, ResendEventsResponse } from './order-responses.dto';
import { LabResultsMetadataResponse, LabResultsResponse } from '../results/result-responses.dto';

function idempotency(key: string | undefined, errorMode: string | undefined): IdempotencyOptions {
  return { key, cacheErrors: errorMode?.toLowerCase() !== 'no-cache' };
}

@ApiTags('order')
@ApiSecurity('team-api-key')
@Controller('v3/order')
export class OrdersController {
  constructor(
    private readonly creation: OrderCreationService,
    private readonly commands: OrderCommandsService,
    private readonly queries: OrderQueriesService,
    private readonly recreation: OrderRecreationService,
    private readonly requisitions: RequisitionFormsService,
  ) {}

  @Post()
  @HttpCode(200)
  @ZodResponse({ status: 200, type: PostOrderResponse })
  create(
    @CurrentTeam() team: TeamPrincipal,
    @Body() body: CreateOrderDto,
    @Headers('x-idempotency-key') key?: string,
    @Headers('x-idempotency-error') errorMode?: string,
  ) {
    return this.creation.create(team, body, idempotency(key, errorMode));
  }

  @Post('create')
  @HttpCode(200)
  @ZodResponse({ status: 200, type: PostOrderResponse })
  createAlias(
    @CurrentTeam() team: TeamPrincipal,
    @Body() body: CreateOrderDto,
    @Headers('x-idempotency-key') key?: string,
    @Headers('x-idempotency-error') errorMode?: string,
  ) {
    return this.creation.create(team, body, idempotency(key, errorMode));
  }

  /** Sends each matched order's latest event again (same webhook id, so receivers de-duplicate). */
  @Post('resend_events')
  @HttpCode(200)
  @ZodResponse({ status: 200, type: ResendEventsResponse })
  resendEvents(@CurrentTeam() team: TeamPrincipal, @Body() body: ResendEventsDto) {
    return this.commands.resendEvents(team, body);
  }

  @Post('testkit')
  @HttpCode(200)
  @ZodResponse({ status: 200, type: PostOrderResponse })
  createTestkit(
    @CurrentTeam() team: TeamPrincipal,
    @Body() body: CreateTestkitOrderDto,
    @Headers('x-idempotency-key') key?: string,
    @Headers('x-idempotency-error') errorMode?: string,
  ) {
    return this.creation.createTestkit(team, body, idempotency(key, errorMode));
  }

  @Post('testkit/register')
  @HttpCode(200)
  @ZodResponse({ status: 200, type: PostOrderResponse })
  register(@CurrentTeam() team: TeamPrincipal, @Body() body: RegisterTestkitDto) {
    return this.commands.register(team, body);
  }

  @Post('import')
  @HttpCode(200)
  @ZodResponse({ status: 200, type: PostOrderResponse })
  import(
    @CurrentTeam() team: TeamPrincipal,
    @Body() body: ImportOrderDto,
    @Headers('x-idempotency-key') key?: string,
    @Headers('x-idempotency-error') errorMode?: string,
  ) {
    return this.creation.import(team, body, idempotency(key, errorMode));
  }

  @Get(':order_id')
  @ZodResponse({ status: 200, type: OrderResponse })
  get(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderIdParams) {
    return this.queries.get(team, params.order_id);
  }

  @Get(':order_id/result')
  @ZodResponse({ status: 200, type: LabResultsResponse })
  results(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderIdParams) {
    return this.queries.results(team, params.order_id);
  }

  @Get(':order_id/result/metadata')
  @ZodResponse({ status: 200, type: LabResultsMetadataResponse })
  resultMetadata(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderIdParams) {
    return this.queries.resultMetadata(team, params.order_id);
  }

  /** The lab's report as a PDF (the same report `GET /v3/order/{id}/result` answers). */
  @Get(':order_id/result/pdf')
  @PdfResponse()
  async resultPdf(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderIdParams) {
    const pdf = await this.queries.resultPdf(team, params.order_id);
    return inlinePdf(pdf, `lab-report-${params.order_id}.pdf`);
  }

  /** How the order's sample is collected (for the patient; on site, for the staff). */
  @Get(':order_id/collection_instruction_pdf')
  @PdfResponse()
  async collectionInstructionsPdf(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderIdParams) {
    const pdf = await this.queries.collectionInstructionsPdf(team, params.order_id);
    return inlinePdf(pdf, `collection-instructions-${params.order_id}.pdf`);
  }

  /** The order's Advance Beneficiary Notice, when it has one (`has_abn`). */
  @Get(':order_id/abn_pdf')
  @PdfResponse()
  abnPdf(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderIdParams) {
    return this.queries.abnPdf(team, params.order_id);
  }

  /** Specimen labels for the order's tubes (2 × 1 inch pages). */
  @Get(':order_id/labels/pdf')
  @PdfResponse()
  async labelsPdf(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderIdParams, @Query() query: LabelsQuery) {
    const pdf = await this.requisitions.renderLabels(team, params.order_id, { count: query.number_of_labels, collectedAt: query.collection_date });
    return inlinePdf(pdf, `labels-${params.order_id}.pdf`);
  }

  /** The order's requisition form (`requisition_form_url`). */
  @Get(':order_id/requisition/pdf')
  @PdfResponse()
  async requisitionPdf(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderIdParams) {
    const pdf = await this.requisitions.render(team, params.order_id);
    return inlinePdf(pdf, `requisition-${params.order_id}.pdf`);
  }

  @Patch(':order_id')
  @ZodResponse({ status: 200, type: PostOrderResponse })
  patch(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderIdParams, @Body() body: PatchOrderDto) {
    return this.commands.patch(team, params.order_id, body);
  }

  @Post(':order_id/cancel')
  @HttpCode(200)
  @ZodResponse({ status: 200, type: PostOrderResponse })
  cancel(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderIdParams) {
    return this.commands.cancel(team, params.order_id);
  }

  /** labflow: recreate an order in its order transaction (origin `recreation`), e.g. at another lab account. */
  @Post(':order_id/recreate')
  @HttpCode(200)
  @ZodResponse({ status: 200, type: PostOrderResponse })
  recreate(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderIdParams, @Body() body: RecreateOrderDto) {
    return this.recreation.recreate(team, params.order_id, body);
  }

  /** Sandbox: drive the order through its lifecycle (SimulationFlags body optional). */
  @Post(':order_id/test')
  @HttpCode(200)
  @ZodResponse({ status: 200, type: PostOrderResponse })
  simulate(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderIdParams, @Query() query: SimulateQuery, @Body() raw: unknown) {
    const parsed = simulateBody.safeParse(raw ?? {});
    if (!parsed.success) throw new RequestValidationError(zodIssues(parsed.error, raw, ['body']));
    return this.commands.simulate(team, params.order_id, query, parsed.data);
  }
}

@ApiTags('order')
@ApiSecurity('team-api-key')
@Controller('v3/orders')
export class OrdersListController {
  constructor(private readonly queries: OrderQueriesService) {}

  @Get()
  @ZodResponse({ status: 200, type: OrderPageResponse })
  list(@CurrentTeam() team: TeamPrincipal, @Query() query: ListOrdersQuery) {
    return this.queries.list(team, query);
  }
}
