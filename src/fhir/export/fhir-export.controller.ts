import { Controller, Delete, Get, Headers, HttpCode, Req, Res, UseFilters } from '@nestjs/common';
import { Param, Query } from '../../common/request-params';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Readable } from 'node:stream';
import { CurrentTeam, type TeamPrincipal } from '../../auth/principal';
import { FHIR_JSON } from '../fhir-bundle';
import { FhirError } from '../fhir-errors';
import { baseOf } from '../fhir-base';
import { OperationOutcomeFilter } from '../operation-outcome.filter';
import { parseExportRequest } from './fhir-export-request';
import { FhirExportsService } from './fhir-exports.service';

type RawQuery = Record<string, string | string[] | undefined>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FILE = /^([A-Za-z]+)\.ndjson$/;
/** How long a client polling an export in progress is asked to wait. */
const RETRY_AFTER_SECONDS = '2';

/**
 * FHIR Bulk Data export (docs/fhir.md "Bulk export"): kick-off at `Patient/$export` and
 * `Group/{team id}/$export`, the status at `$export-status/{id}` (GET polls, DELETE cancels), the
 * files at `$export-file/{id}/{type}.ndjson`; all with the team API key.
 */
@ApiExcludeController()
@UseFilters(OperationOutcomeFilter)
@Controller('fhir/R4')
export class FhirExportController {
  constructor(private readonly exports: FhirExportsService) {}

  @Get('Patient/$export')
  patientExport(
    @CurrentTeam() team: TeamPrincipal,
    @Query() query: RawQuery,
    @Headers('prefer') prefer: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    return this.kickOff(team, query, prefer, request, reply);
  }

  /** The group is the team: every patient of it. */
  @Get('Group/:id/$export')
  groupExport(
    @CurrentTeam() team: TeamPrincipal,
    @Param('id') id: string,
    @Query() query: RawQuery,
    @Headers('prefer') prefer: string | undefined,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ) {
    if (id !== team.teamId) throw FhirError.notFound('Group', id);
    return this.kickOff(team, query, prefer, request, reply);
  }

  @Get('$export-status/:id')
  async status(@CurrentTeam() team: TeamPrincipal, @Param('id') id: string, @Res({ passthrough: true }) reply: FastifyReply) {
    const status = await this.exports.status(team, exportId(id));
    if (status.state === 'in_progress') {
      reply.status(202).header('x-progress', status.progress).header('retry-after', RETRY_AFTER_SECONDS);
      return undefined;
    }
    reply.status(200).header('content-type', 'application/json; charset=utf-8').header('expires', status.expires.toUTCString());
    return status.manifest;
  }

  @Delete('$export-status/:id')
  @HttpCode(202)
  async cancel(@CurrentTeam() team: TeamPrincipal, @Param('id') id: string, @Res({ passthrough: true }) reply: FastifyReply) {
    reply.header('content-type', FHIR_JSON);
    return this.exports.cancel(team, exportId(id));
  }

  @Get('$export-file/:id/:file')
  async file(@CurrentTeam() team: TeamPrincipal, @Param('id') id: string, @Param('file') file: string, @Res() reply: FastifyReply) {
    const type = FILE.exec(file)?.[1];
    if (!type) throw new FhirError(404, 'not-found', `No file ${file} in export ${id}.`);
    const parts = await this.exports.file(team, exportId(id), type);
    return reply.status(200).header('content-type', 'application/fhir+ndjson').send(Readable.from(parts));
  }

  private async kickOff(team: TeamPrincipal, query: RawQuery, prefer: string | undefined, request: FastifyRequest, reply: FastifyReply) {
    const parsed = parseExportRequest(query, prefer);
    const base = baseOf(request);
    const id = await this.exports.kickOff(team, parsed, base, `${base.api}${request.url}`);
    reply.status(202).header('content-location', `${base.fhir}/$export-status/${id}`).header('content-type', FHIR_JSON);
    return {
      resourceType: 'OperationOutcome',
      issue: [{ severity: 'information', code: 'informational', details: { text: `Export ${id} started; poll its Content-Location.` } }],
    };
  }
}

function exportId(id: string): string {
  if (!UUID.test(id)) throw new FhirError(404, 'not-found', `Export ${id} not found.`);
  return id.toLowerCase();
}
