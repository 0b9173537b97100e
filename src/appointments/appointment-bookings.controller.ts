import { Controller, Get, Headers, HttpCode, Patch, Post } from '@nestjs/common';
import { Body, Param, Query } from '../common/request-params';
import { ApiHeader, ApiSecurity, ApiTags } from '@nestjs/swagger';
import { CurrentTeam, Public, type TeamPrincipal } from '../auth/principal';
import { LimitedPerAddress } from '../rate-limits/rate-limit-family';
import { PartnerSigned } from '../adapters/partner-signature';
import { AppointmentBookingsService } from './appointment-bookings.service';
import {
  BookAppointmentDto,
  CancelAppointmentDto,
  CancelPscAppointmentDto,
  cancelPscBody,
  OrderAppointmentParams,
  ProviderCallbackDto,
  ProviderParams,
  PscBookingQuery,
  RequestAppointmentDto,
  RescheduleAppointmentDto,
} from './appointments.dto';
import { ZodResponse } from 'nestjs-zod';
import { AppointmentResponse, CancellationReasonListResponse, ProviderCallbackResponse } from './appointment-responses.dto';
import { PostOrderResponse } from '../orders/order-responses.dto';

/** At-home phlebotomy appointments of an order (Junction paths). */
@ApiTags('lab_tests')
@ApiSecurity('team-api-key')
@Controller('v3/order')
export class PhlebotomyAppointmentsController {
  constructor(private readonly bookings: AppointmentBookingsService) {}

  @Get('phlebotomy/appointment/cancellation-reasons')
  @ZodResponse({ status: 200, type: CancellationReasonListResponse })
  cancellationReasons() {
    return this.bookings.cancellationReasons('phlebotomy');
  }

  @Post(':order_id/phlebotomy/appointment/book')
  @HttpCode(200)
  @ZodResponse({ status: 200, type: AppointmentResponse })
  book(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderAppointmentParams, @Body() body: BookAppointmentDto) {
    return this.bookings.book(team, params.order_id, 'phlebotomy', body);
  }

  @Post(':order_id/phlebotomy/appointment/request')
  @HttpCode(200)
  @ZodResponse({ status: 200, type: AppointmentResponse })
  request(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderAppointmentParams, @Body() body: RequestAppointmentDto) {
    return this.bookings.request(team, params.order_id, body);
  }

  @Patch(':order_id/phlebotomy/appointment/reschedule')
  @ZodResponse({ status: 200, type: AppointmentResponse })
  reschedule(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderAppointmentParams, @Body() body: RescheduleAppointmentDto) {
    return this.bookings.reschedule(team, params.order_id, 'phlebotomy', body);
  }

  @Patch(':order_id/phlebotomy/appointment/cancel')
  @ZodResponse({ status: 200, type: AppointmentResponse })
  cancel(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderAppointmentParams, @Body() body: CancelAppointmentDto) {
    return this.bookings.cancel(team, params.order_id, 'phlebotomy', body);
  }

  @Get(':order_id/phlebotomy/appointment')
  @ZodResponse({ status: 200, type: AppointmentResponse })
  get(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderAppointmentParams) {
    return this.bookings.get(team, params.order_id, 'phlebotomy');
  }

  /**
   * The sample is drawn: an on-site collection order (the team's staff drew it) or an at-home
   * order's appointment (its phlebotomist did). The order moves to draw_completed.
   */
  @Patch(':order_id/draw_completed')
  @ZodResponse({ status: 200, type: PostOrderResponse })
  drawCompleted(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderAppointmentParams) {
    return this.bookings.drawCompleted(team, params.order_id);
  }
}

/** Walk-in (patient service center) appointments of an order (Junction paths). */
@ApiTags('lab_tests')
@ApiSecurity('team-api-key')
@Controller('v3/order')
export class PscAppointmentsController {
  constructor(private readonly bookings: AppointmentBookingsService) {}

  @Get('psc/appointment/cancellation-reasons')
  @ZodResponse({ status: 200, type: CancellationReasonListResponse })
  cancellationReasons() {
    return this.bookings.cancellationReasons('psc');
  }

  @Post(':order_id/psc/appointment/book')
  @HttpCode(200)
  @ApiHeader({ name: 'x-idempotency-key', required: false, description: 'Retries with the same key answer with the same appointment (kept 14 days).' })
  @ZodResponse({ status: 200, type: AppointmentResponse })
  book(
    @CurrentTeam() team: TeamPrincipal,
    @Param() params: OrderAppointmentParams,
    @Query() query: PscBookingQuery,
    @Body() body: BookAppointmentDto,
    @Headers('x-idempotency-key') idempotencyKey?: string,
  ) {
    return this.bookings.book(team, params.order_id, 'psc', body, { idempotencyKey, asyncConfirmation: query.async_confirmation });
  }

  @Patch(':order_id/psc/appointment/reschedule')
  @ZodResponse({ status: 200, type: AppointmentResponse })
  reschedule(
    @CurrentTeam() team: TeamPrincipal,
    @Param() params: OrderAppointmentParams,
    @Query() query: PscBookingQuery,
    @Body() body: RescheduleAppointmentDto,
  ) {
    return this.bookings.reschedule(team, params.order_id, 'psc', body, { asyncConfirmation: query.async_confirmation });
  }

  @Patch(':order_id/psc/appointment/cancel')
  @ZodResponse({ status: 200, type: AppointmentResponse })
  cancel(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderAppointmentParams, @Body() body: CancelPscAppointmentDto) {
    return this.bookings.cancel(team, params.order_id, 'psc', cancelPscBody(body));
  }

  @Get(':order_id/psc/appointment')
  @ZodResponse({ status: 200, type: AppointmentResponse })
  get(@CurrentTeam() team: TeamPrincipal, @Param() params: OrderAppointmentParams) {
    return this.bookings.get(team, params.order_id, 'psc');
  }
}

/**
 * Appointment providers' callbacks (no team key: HMAC-signed like the courier and lab webhooks).
 * Each becomes a signal of the appointment's workflow.
 */
@ApiTags('partner webhooks')
@Controller('v3/webhooks/appointments')
@Public()
@LimitedPerAddress('partnerWebhooks')
export class ProviderCallbacksController {
  constructor(private readonly bookings: AppointmentBookingsService) {}

  @Post(':provider')
  @PartnerSigned()
  @HttpCode(200)
  @ZodResponse({ status: 200, type: ProviderCallbackResponse })
  callback(@Param() params: ProviderParams, @Body() body: ProviderCallbackDto) {
    return this.bookings.providerCallback(params.provider, body);
  }
}
