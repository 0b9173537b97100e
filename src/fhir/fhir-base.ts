import type { FastifyRequest } from 'fastify';
import type { FhirBase } from './fhir.service';

/** The base URLs as the caller reached labflow (behind the proxies the API trusts). */
export function baseOf(request: FastifyRequest): FhirBase {
  const api = `${request.protocol}://${request.host}`;
  return { api, fhir: `${api}/fhir/R4` };
}
