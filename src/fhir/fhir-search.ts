/**
 * FHIR search parameters as labflow serves them, parsed from the query string into plain
 * filters (no I/O): date prefixes, tokens, references, `_count` and the paging cursor. A
 * parameter a resource type does not serve is refused (400 OperationOutcome) rather than ignored,
 * so a consumer never mistakes an unfiltered page for a filtered one; the CapabilityStatement
 * lists the same parameters (SEARCH_PARAMETERS).
 */
import { FhirError } from './fhir-errors';

export type FhirResourceType = 'Patient' | 'Practitioner' | 'Coverage' | 'ServiceRequest' | 'Specimen' | 'Appointment' | 'DiagnosticReport' | 'Observation';

export type ParamType = 'token' | 'reference' | 'date' | 'number' | 'string' | 'special';

export interface SearchParameterSpec {
  name: string;
  type: ParamType;
  documentation: string;
}

const common: SearchParameterSpec[] = [
  { name: '_id', type: 'token', documentation: 'The resource id (comma separated for several).' },
  { name: '_lastUpdated', type: 'date', documentation: 'When the resource last changed; prefixes eq, gt, ge, lt, le.' },
];
const patientRef = (what: string): SearchParameterSpec[] => [
  { name: 'patient', type: 'reference', documentation: `The patient (Patient/{id} or {id}) ${what}.` },
  { name: 'subject', type: 'reference', documentation: 'Same as patient (Patient/{id} or {id}).' },
];

/** Every search parameter served, per resource type (besides _count, _cursor and, where said, _include). */
export const SEARCH_PARAMETERS: Record<FhirResourceType, SearchParameterSpec[]> = {
  Patient: [...common, { name: 'identifier', type: 'token', documentation: "The team's client_user_id (system https://labflow.dev/fhir/client-user-id)." }],
  Practitioner: [
    { name: '_id', type: 'token', documentation: 'The NPI.' },
    { name: 'identifier', type: 'token', documentation: 'The NPI (system http://hl7.org/fhir/sid/us-npi).' },
  ],
  Coverage: [
    ...common,
    { name: 'patient', type: 'reference', documentation: 'The beneficiary.' },
    { name: 'beneficiary', type: 'reference', documentation: 'Same as patient.' },
  ],
  ServiceRequest: [
    ...common,
    ...patientRef('the order is for'),
    { name: 'status', type: 'token', documentation: 'active | completed | revoked.' },
    { name: 'code', type: 'token', documentation: 'The lab test ([system|]code, system https://labflow.dev/fhir/lab-test).' },
    { name: 'authored', type: 'date', documentation: 'When the order was placed; prefixes eq, gt, ge, lt, le.' },
  ],
  Specimen: [...common, ...patientRef('the sample is from'), { name: 'accession', type: 'token', documentation: 'The sample id.' }],
  Appointment: [
    ...common,
    { name: 'patient', type: 'reference', documentation: 'The patient (Patient/{id} or {id}).' },
    { name: 'actor', type: 'reference', documentation: 'Same as patient.' },
    { name: 'status', type: 'token', documentation: 'proposed | pending | booked | checked-in | fulfilled | cancelled.' },
    { name: 'date', type: 'date', documentation: 'The appointment start; prefixes eq, gt, ge, lt, le.' },
  ],
  DiagnosticReport: [
    ...common,
    ...patientRef('the report is about'),
    { name: 'status', type: 'token', documentation: 'final | partial.' },
    { name: 'category', type: 'token', documentation: 'LAB (http://terminology.hl7.org/CodeSystem/v2-0074).' },
    { name: 'code', type: 'token', documentation: "LOINC 11502-2 (every report, parsed lab reports included), or an order's lab test ([system|]code)." },
    { name: 'date', type: 'date', documentation: 'The effective time (collection, else report); prefixes eq, gt, ge, lt, le.' },
  ],
  Observation: [
    ...common,
    ...patientRef('the observation is about'),
    { name: 'status', type: 'token', documentation: 'final | preliminary.' },
    { name: 'category', type: 'token', documentation: 'laboratory | vital-signs | activity (http://terminology.hl7.org/CodeSystem/observation-category).' },
    { name: 'code', type: 'token', documentation: 'LOINC ([http://loinc.org|]code), or a marker slug (https://labflow.dev/fhir/biomarker).' },
    { name: 'date', type: 'date', documentation: 'The effective time; prefixes eq, gt, ge, lt, le.' },
  ],
};

/** A bound of a date parameter: `>= at` (inclusive) or `< at` (exclusive). */
export interface DateBound {
  op: '>=' | '<';
  at: Date;
}

export interface Token {
  system?: string;
  code: string;
}

/** The paging position: the sort key of the last entry returned, its id, and its index within a group (lab results of one order). */
export interface Cursor {
  /** The part of a two-part search the position is in (Observation: lab results, then wearables). */
  part: string;
  at: string;
  id: string;
  n: number;
}

export interface SearchQuery {
  ids?: string[];
  patient?: string;
  status?: string[];
  category?: Token[];
  code?: Token[];
  identifier?: Token[];
  date: DateBound[];
  lastUpdated: DateBound[];
  count: number;
  cursor?: Cursor;
  includeResults: boolean;
  /** `_revinclude`: a patient's Observations (Patient), an Observation's lab report (Observation). */
  revInclude?: RevInclude;
}

/** The `_revinclude`s served, per type (bounded: see REVINCLUDED_PER_PATIENT). */
export const REV_INCLUDES = {
  Patient: ['Observation:subject', 'Observation:patient'],
  Observation: ['DiagnosticReport:result'],
} as const;
export type RevInclude = (typeof REV_INCLUDES)[keyof typeof REV_INCLUDES][number];
/** A Patient page with `_revinclude` holds at most this many patients, each with at most this many Observations. */
export const REVINCLUDE_MAX_PATIENTS = 20;
export const REVINCLUDED_PER_PATIENT = 100;

export const DEFAULT_COUNT = 50;
export const MAX_COUNT = 1000;

type RawQuery = Record<string, string | string[] | undefined>;

const DATE = /^(eq|ne|gt|lt|ge|le|sa|eb|ap)?(\d{4})(?:-(\d{2})(?:-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?)?)?$/;
const ID = /^[A-Za-z0-9\-.]{1,64}$/;

/** Parses the query string of a search on `type`; throws FhirError (400) on an unknown or malformed parameter. */
export function parseSearch(type: FhirResourceType, raw: RawQuery): SearchQuery {
  const served = new Set(SEARCH_PARAMETERS[type].map((parameter) => parameter.name));
  const query: SearchQuery = { date: [], lastUpdated: [], count: DEFAULT_COUNT, includeResults: false };
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    if (name === '_format') continue;
    if (name === '_count') {
      query.count = parseCount(last(values));
      continue;
    }
    if (name === '_cursor') {
      query.cursor = decodeFhirCursor(last(values));
      continue;
    }
    if (name === '_include') {
      if (type !== 'DiagnosticReport' || values.some((include) => include !== 'DiagnosticReport:result')) {
        throw FhirError.invalid(`_include: only DiagnosticReport:result is served.`, '_include');
      }
      query.includeResults = true;
      continue;
    }
    if (name === '_revinclude') {
      const allowed: readonly string[] = type === 'Patient' || type === 'Observation' ? REV_INCLUDES[type] : [];
      if (values.length !== 1 || !allowed.includes(values[0])) {
        throw FhirError.invalid(
          `_revinclude: served only as Patient?_revinclude=Observation:subject (or :patient) and Observation?_revinclude=DiagnosticReport:result, one at a time.`,
          '_revinclude',
        );
      }
      query.revInclude = values[0] as RevInclude;
      continue;
    }
    if (!served.has(name)) {
      const extra = [...(type === 'DiagnosticReport' ? ['_include'] : []), ...(type === 'Patient' || type === 'Observation' ? ['_revinclude'] : [])];
      const list = [...served, '_count', '_cursor', ...extra].join(', ');
      throw FhirError.notSupported(`Search parameter "${name}" is not served for ${type}; served: ${list}.`, name);
    }
    const items = values
      .flatMap((entry) => entry.split(','))
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    switch (name) {
      case '_id':
        query.ids = items.map((id) => checkedId(id, name));
        break;
      case 'patient':
      case 'subject':
      case 'beneficiary':
      case 'actor':
        query.patient = patientId(last(values), name);
        break;
      case 'status':
        query.status = items;
        break;
      case 'category':
        query.category = items.map(parseToken);
        break;
      case 'code':
        query.code = items.map(parseToken);
        break;
      case 'identifier':
      case 'accession':
        query.identifier = items.map(parseToken);
        break;
      case 'date':
      case 'authored':
        query.date.push(...values.map((entry) => parseDate(entry, name)).flat());
        break;
      case '_lastUpdated':
        query.lastUpdated.push(...values.map((entry) => parseDate(entry, name)).flat());
        break;
    }
  }
  if (query.revInclude && type === 'Patient') query.count = Math.min(query.count, REVINCLUDE_MAX_PATIENTS);
  return query;
}

function last(values: string[]): string {
  return values[values.length - 1];
}

function parseCount(value: string): number {
  if (!/^\d{1,6}$/.test(value)) throw FhirError.invalid(`_count must be a whole number (1 to ${MAX_COUNT}).`, '_count');
  const count = Number(value);
  if (count < 1) throw FhirError.invalid(`_count must be at least 1.`, '_count');
  return Math.min(count, MAX_COUNT);
}

function checkedId(id: string, parameter: string): string {
  if (!ID.test(id)) throw FhirError.invalid(`${parameter}: "${id}" is not a FHIR id.`, parameter);
  return id;
}

/** `Patient/{id}`, a full URL ending so, or a bare id. */
function patientId(value: string, parameter: string): string {
  const match = /^(?:.*\/)?(?:Patient\/)?([^/]+)$/.exec(value.trim());
  const typed = /(^|\/)([A-Z][A-Za-z]+)\/[^/]+$/.exec(value.trim());
  if (typed && typed[2] !== 'Patient') throw FhirError.invalid(`${parameter}: only Patient references are served.`, parameter);
  if (!match) throw FhirError.invalid(`${parameter}: expected Patient/{id}.`, parameter);
  return checkedId(match[1], parameter);
}

export function parseToken(value: string): Token {
  const bar = value.indexOf('|');
  if (bar < 0) return { code: value };
  const system = value.slice(0, bar);
  return system === '' ? { code: value.slice(bar + 1) } : { system, code: value.slice(bar + 1) };
}

/** Whether a coding matches one of the tokens (no tokens: everything matches). */
export function tokenMatches(tokens: Token[] | undefined, codings: Array<{ system?: string; code?: string }>): boolean {
  if (!tokens) return true;
  return tokens.some((token) => codings.some((coding) => coding.code === token.code && (token.system === undefined || coding.system === token.system)));
}

/**
 * A date parameter as bounds over the instant range its precision names: `2026-11` is the whole
 * month, `ge2026-11` from its start, `gt2026-11` from the next month, `lt` before its start, `le`
 * before its end, `eq` (or no prefix) within it. Without an offset, a time is UTC.
 */
export function parseDate(value: string, parameter: string): DateBound[] {
  const match = DATE.exec(value);
  if (!match) throw FhirError.invalid(`${parameter}: "${value}" is not a FHIR date (e.g. ge2026-11-01 or lt2026-11-23T08:00:00Z).`, parameter);
  const [, prefix = 'eq', year, month, day, hour, minute, second, fraction, zone] = match;
  if (!['eq', 'gt', 'lt', 'ge', 'le'].includes(prefix))
    throw FhirError.notSupported(`${parameter}: prefix "${prefix}" is not served; use eq, gt, ge, lt or le.`, parameter);
  const y = Number(year);
  // Date.UTC rolls an impossible month or day over (2026-13-45 into 2027); refuse it instead.
  const calendar =
    month === undefined ||
    (day === undefined
      ? Number(month) >= 1 && Number(month) <= 12
      : new Date(Date.UTC(y, Number(month) - 1, Number(day))).toISOString().slice(0, 10) === `${year}-${month}-${day}`);
  if (!calendar) throw FhirError.invalid(`${parameter}: "${value}" is not a valid date.`, parameter);
  let start: number;
  let end: number;
  if (hour !== undefined) {
    const text = `${year}-${month}-${day}T${hour}:${minute}:${second ?? '00'}${fraction ?? ''}${zone ?? 'Z'}`;
    start = Date.parse(text);
    end = start + (second === undefined ? 60_000 : fraction === undefined ? 1000 : 1);
  } else if (day !== undefined) {
    start = Date.UTC(y, Number(month) - 1, Number(day));
    end = Date.UTC(y, Number(month) - 1, Number(day) + 1);
  } else if (month !== undefined) {
    start = Date.UTC(y, Number(month) - 1, 1);
    end = Date.UTC(y, Number(month), 1);
  } else {
    start = Date.UTC(y, 0, 1);
    end = Date.UTC(y + 1, 0, 1);
  }
  if (Number.isNaN(start) || Number.isNaN(end)) throw FhirError.invalid(`${parameter}: "${value}" is not a valid date.`, parameter);
  const at = (ms: number) => new Date(ms);
  switch (prefix) {
    case 'ge':
      return [{ op: '>=', at: at(start) }];
    case 'gt':
      return [{ op: '>=', at: at(end) }];
    case 'lt':
      return [{ op: '<', at: at(start) }];
    case 'le':
      return [{ op: '<', at: at(end) }];
    default:
      return [
        { op: '>=', at: at(start) },
        { op: '<', at: at(end) },
      ];
  }
}

/** Whether an instant is within every bound. */
export function withinBounds(bounds: DateBound[], instant: Date): boolean {
  return bounds.every((bound) => (bound.op === '>=' ? instant >= bound.at : instant < bound.at));
}

export function encodeFhirCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify([cursor.part, cursor.at, cursor.id, cursor.n]), 'utf8').toString('base64url');
}

function decodeFhirCursor(value: string): Cursor {
  const refuse = () => FhirError.invalid('_cursor: pass it exactly as a next link gave it.', '_cursor');
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(value)) throw refuse();
  try {
    const decoded: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    if (!Array.isArray(decoded) || decoded.length !== 4) throw refuse();
    const [part, at, id, n] = decoded as unknown[];
    if (typeof part !== 'string' || typeof at !== 'string' || typeof id !== 'string' || typeof n !== 'number' || !Number.isInteger(n)) throw refuse();
    if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}$/.test(at) || !/^[A-Za-z0-9-]{1,64}$/.test(id)) throw refuse();
    return { part, at, id, n };
  } catch {
    throw refuse();
  }
}
