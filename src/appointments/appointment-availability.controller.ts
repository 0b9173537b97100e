import { Controller, HttpCode, Post, Res } from '@nestjs/common';
import { Body, Query } from '../common/request-params';
import { ApiSecurity, ApiTags } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { CurrentTeam, type TeamPrincipal } from '../auth/principal';
import { PhlebotomyAvailabilityBody, PhlebotomyAvailabilityQuery, PscAvailabilityQuery } from './appointments.dto';
import { AppointmentAvailabilityService } from './appointment-availability.service';
import { ZodResponse } from 'nestjs-zod';
import { AvailabilityResponse } from './appointment-responses.dto';

/**
 * Appointment availability (Junction: 14 days of slots from start_date). Four-segment paths, so
 * they never meet the orders controller's `v3/order/:order_id/...` routes.
 */
@ApiTags('lab_tests')
@ApiSecurity('team-api-key')
@Controller('v3/order')
export class AppointmentAvailabilityController {
  constructor(private readonly availability: AppointmentAvailabilityService) {}

  @Post('phlebotomy/appointment/availability')
  @HttpCode(200)
  @ZodResponse({ status: 200, type: AvailabilityResponse })
  async phlebotomyAvailability(
    @CurrentTeam() team: TeamPrincipal,
    @Query() query: PhlebotomyAvailabilityQuery,
    @Body() body: PhlebotomyAvailabilityBody,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    const { body: answer, cache } = await this.availability.phlebotomyAvailability(team.teamId, body, {
      startDate: query.start_date,
      allowStale: query.allow_stale,
    });
    void reply.header('x-labflow-cache', cache);
    return answer;
  }

  @Post('psc/appointment/availability')
  @HttpCode(200)
  @ZodResponse({ status: 200, type: AvailabilityResponse })
  async pscAvailability(@CurrentTeam() team: TeamPrincipal, @Query() query: PscAvailabilityQuery, @Res({ passthrough: true }) reply: FastifyReply) {
    const { body: answer, cache } = await this.availability.pscAvailability(team.teamId, {
      lab: query.lab,
      startDate: query.start_date,
      zipCode: query.zip_code,
      radius: Number(query.radius),
      siteCodes: query.site_codes,
      allowStale: query.allow_stale,
    });
    void reply.header('x-labflow-cache', cache);
    return answer;
  }
}
