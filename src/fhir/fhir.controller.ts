import { Controller, Get, Header, Req, UseFilters } from '@nestjs/common';
import { Param, Query } from '../common/request-params';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyRequest } from 'fastify';
import { CurrentTeam, Public, type TeamPrincipal } from '../auth/principal';
import { capabilityStatement } from './capability-statement';
import { FHIR_JSON, resourceJson } from './fhir-bundle';
import { FhirError } from './fhir-errors';
import { type FhirResourceType, SEARCH_PARAMETERS } from './fhir-search';
import { baseOf } from './fhir-base';
import { FhirService } from './fhir.service';
import { OperationOutcomeFilter } from './operation-outcome.filter';

type RawQuery = Record<string, string | string[] | undefined>;

const ID = /^[A-Za-z0-9\-.]{1,64}$/;
const SOFTWARE = { name: 'labflow', version: '0.1.0' };
const STARTED = new Date().toISOString();

/**
 * FHIR R4 read API (`/fhir/R4`), documented by its CapabilityStatement and docs/fhir.md rather
 * than the OpenAPI document: team API key as on /v2 and /v3, answers in application/fhir+json,
 * errors as OperationOutcome (OperationOutcomeFilter).
 */
@ApiExcludeController()
@UseFilters(OperationOutcomeFilter)
@Controller('fhir/R4')
export class FhirController {
  constructor(private readonly fhir: FhirService) {}

  /** What is served; public, as FHIR clients read it before they authenticate. */
  @Public()
  @Get('metadata')
  @Header('content-type', FHIR_JSON)
  metadata(@Req() request: FastifyRequest) {
    return capabilityStatement(baseOf(request).fhir, SOFTWARE, STARTED);
  }

  @Get('Patient/:id/$everything')
  @Header('content-type', FHIR_JSON)
  everything(@CurrentTeam() team: TeamPrincipal, @Param('id') id: string, @Query() query: RawQuery, @Req() request: FastifyRequest) {
    return this.fhir.everything(team, checkedId('Patient', id), query, baseOf(request));
  }

  @Get(':type')
  @Header('content-type', FHIR_JSON)
  search(@CurrentTeam() team: TeamPrincipal, @Param('type') type: string, @Query() query: RawQuery, @Req() request: FastifyRequest) {
    return this.fhir.search(team, servedType(type), query, baseOf(request));
  }

  @Get(':type/:id')
  @Header('content-type', FHIR_JSON)
  async read(@CurrentTeam() team: TeamPrincipal, @Param('type') type: string, @Param('id') id: string, @Req() request: FastifyRequest) {
    const served = servedType(type);
    return resourceJson(await this.fhir.read(team, served, checkedId(served, id), baseOf(request)));
  }
}

function servedType(type: string): FhirResourceType {
  if (!Object.hasOwn(SEARCH_PARAMETERS, type)) {
    throw new FhirError(404, 'not-supported', `Resource type "${type}" is not served; see /fhir/R4/metadata.`);
  }
  return type as FhirResourceType;
}

function checkedId(type: string, id: string): string {
  if (!ID.test(id)) throw FhirError.notFound(type, id);
  return id;
}
