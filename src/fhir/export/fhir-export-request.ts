import { FhirError } from '../fhir-errors';
import { type FhirResourceType, SEARCH_PARAMETERS } from '../fhir-search';

type RawQuery = Record<string, string | string[] | undefined>;

/** What a kick-off asks for: the types to write (in the served order) and `_since`. */
export interface ExportRequest {
  types: FhirResourceType[];
  since: Date | null;
}

/** The NDJSON `_outputFormat` values the IG names (every one means the same file). */
const OUTPUT_FORMATS = ['application/fhir+ndjson', 'application/ndjson', 'ndjson'];
const SERVED_PARAMETERS = ['_type', '_since', '_outputFormat', '_format'];
/** A FHIR instant: a full date-time with seconds and a zone. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * The kick-off request of `$export` (Bulk Data Access IG): `Prefer: respond-async` is required,
 * `_type` (comma-separated, repeatable) narrows the served types, `_since` is an instant, and any
 * other parameter (`_typeFilter`, `_elements`, `patient`, …) is refused rather than ignored.
 */
export function parseExportRequest(raw: RawQuery, prefer: string | undefined): ExportRequest {
  if (!prefer || !prefer.split(',').some((part) => part.trim().toLowerCase() === 'respond-async')) {
    throw FhirError.invalid('$export runs asynchronously: send the header "Prefer: respond-async".');
  }
  const unserved = Object.keys(raw).find((name) => raw[name] !== undefined && !SERVED_PARAMETERS.includes(name));
  if (unserved) throw FhirError.notSupported(`Parameter "${unserved}" is not served for $export; served: _type, _since, _outputFormat.`, unserved);
  const values = (name: string) => {
    const value = raw[name];
    return value === undefined ? [] : Array.isArray(value) ? value : [value];
  };
  for (const format of values('_outputFormat')) {
    if (!OUTPUT_FORMATS.includes(format))
      throw FhirError.notSupported(`_outputFormat "${format}" is not served; served: ${OUTPUT_FORMATS.join(', ')}.`, '_outputFormat');
  }
  const served = Object.keys(SEARCH_PARAMETERS) as FhirResourceType[];
  let types = served;
  const asked = values('_type').flatMap((value) => value.split(',').map((type) => type.trim()));
  if (asked.length > 0) {
    const unknown = asked.find((type) => !served.includes(type as FhirResourceType));
    if (unknown !== undefined) throw FhirError.notSupported(`_type: "${unknown}" is not served; served: ${served.join(', ')}.`, '_type');
    types = served.filter((type) => asked.includes(type));
  }
  const since = values('_since');
  if (since.length > 1) throw FhirError.invalid('_since: give one instant.', '_since');
  if (since.length === 1 && (!INSTANT.test(since[0]) || Number.isNaN(Date.parse(since[0])))) {
    throw FhirError.invalid(`_since: "${since[0]}" is not a FHIR instant (e.g. 2026-11-20T10:00:00Z).`, '_since');
  }
  return { types, since: since.length ? new Date(since[0]) : null };
}
