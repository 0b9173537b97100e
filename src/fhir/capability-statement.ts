import type { CapabilityStatement, CapabilityStatementRestResource } from '@medplum/fhirtypes';
import { US_CORE } from './clinical-mapping';
import { type FhirResourceType, REV_INCLUDES, SEARCH_PARAMETERS } from './fhir-search';

/** The profiles each served type follows (docs/fhir.md says where labflow falls short of them). */
const PROFILES: Record<FhirResourceType, string[]> = {
  Patient: [US_CORE.patient],
  Practitioner: [US_CORE.practitioner],
  Coverage: [US_CORE.coverage],
  ServiceRequest: [US_CORE.serviceRequest],
  Specimen: [US_CORE.specimen],
  Appointment: [],
  DiagnosticReport: [US_CORE.diagnosticReportLab],
  Observation: [
    US_CORE.observationLab,
    ...['vitalsigns', 'heartrate', 'bp', 'bodyweight', 'oxygensat', 'resprate', 'bodytemp', 'bmi'].map(
      (name) => `http://hl7.org/fhir/StructureDefinition/${name}`,
    ),
  ],
};

const BULK_DATA = 'http://hl7.org/fhir/uv/bulkdata';

/**
 * `GET /fhir/R4/metadata`: exactly what is served: read and search-type of each type, their
 * search parameters (SEARCH_PARAMETERS, which the search refuses anything beyond), the one
 * _include, the _revincludes, Patient/$everything, and the Bulk Data kick-offs Patient/$export
 * and Group/{team}/$export. Read-only: no write interaction is listed.
 */
export function capabilityStatement(base: string, software: { name: string; version: string }, date: string): CapabilityStatement {
  const resource = (type: FhirResourceType): CapabilityStatementRestResource => ({
    type,
    ...(PROFILES[type].length ? { supportedProfile: PROFILES[type] } : {}),
    interaction: [{ code: 'read' }, { code: 'search-type' }],
    versioning: 'no-version',
    readHistory: false,
    updateCreate: false,
    searchParam: [
      ...SEARCH_PARAMETERS[type].map((parameter) => ({ name: parameter.name, type: parameter.type, documentation: parameter.documentation })),
      { name: '_count', type: 'number', documentation: 'Page size (default 50, at most 1000).' },
    ],
    ...(type === 'DiagnosticReport' ? { searchInclude: ['DiagnosticReport:result'] } : {}),
    ...(type === 'Patient' || type === 'Observation' ? { searchRevInclude: [...REV_INCLUDES[type]] } : {}),
    ...(type === 'Patient'
      ? {
          operation: [
            { name: 'everything', definition: 'http://hl7.org/fhir/OperationDefinition/Patient-everything' },
            { name: 'export', definition: `${BULK_DATA}/OperationDefinition/patient-export` },
          ],
        }
      : {}),
  });
  // Group/{team id}/$export alone: the team is the one group, neither read nor searched.
  const group: CapabilityStatementRestResource = {
    type: 'Group',
    documentation: 'The team (its id is the team id), only for $export.',
    operation: [{ name: 'export', definition: `${BULK_DATA}/OperationDefinition/group-export` }],
  };
  return {
    resourceType: 'CapabilityStatement',
    status: 'active',
    date,
    kind: 'instance',
    software,
    implementation: { description: 'labflow FHIR R4 read API', url: base },
    instantiates: [`${BULK_DATA}/CapabilityStatement/bulk-data`],
    fhirVersion: '4.0.1',
    format: ['application/fhir+json'],
    rest: [
      {
        mode: 'server',
        documentation: 'Authenticate with the team API key in the x-service-api-key header.',
        security: { description: "A team API key in the x-service-api-key header; another team's resources are not found." },
        resource: [...(Object.keys(SEARCH_PARAMETERS) as FhirResourceType[]).map(resource), group],
      },
    ],
  };
}
