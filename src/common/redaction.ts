/**
 * What never leaves a labflow process in a log line, an error log or a span: the one list of
 * sensitive names, and the functions that apply it. The request logger (logger.ts), the error
 * logger (exception-filter.ts) and the HTTP spans (tracing/http-spans.ts) all redact through here,
 * so a name added below is hidden from all of them at once.
 */

export const REDACTED = '[redacted]';

/** Headers that carry credentials: never logged, whatever object they appear in. */
const SECRET_HEADERS = [
  'authorization',
  'cookie',
  'set-cookie',
  'proxy-authorization',
  'x-service-api-key',
  'x-vital-api-key',
  'x-vital-link-token',
  'x-vital-link-client-region',
  'x-management-key',
  'x-labflow-signature',
];

/**
 * Fields of a logged object that hold PHI or secrets, redacted at the first levels of the object
 * (request and response bodies are never logged in the first place).
 */
const SECRET_FIELDS = [
  'patient_details',
  'patient_address',
  'patient_name',
  'first_name',
  'last_name',
  'dob',
  'date_of_birth',
  'email',
  'phone_number',
  'address',
  'secret',
  'previous_secret',
  'webhook_secret',
  'signature',
  'api_key',
  'password',
  'token',
];

/** Lower-case keys whose values are never logged, at any of the first REDACT_DEPTH levels of an object. */
const SECRET_KEYS = new Set([...SECRET_HEADERS, ...SECRET_FIELDS]);

/**
 * URL parameters (path or query) by exact name: credentials of the portal, Link and OAuth
 * (`/portal/launch/:token`, `/p/:code`, `?state=&code=` of a provider's callback) and what
 * names a patient or user (`?patient_name=`, `?search_input=`, `/v2/user/resolve/:client_user_id`,
 * `?query_id=` of the team's user search, which takes a client_user_id).
 */
const SENSITIVE_PARAMETERS = new Set([
  'token',
  'code',
  'state',
  'signature',
  'client_user_id',
  'query_id',
  'search_input',
  'patient_name',
  'shipping_recipient_name',
  'first_name',
  'last_name',
  'email',
  'phone',
  'phone_number',
  'dob',
  'date_of_birth',
  'birth_date',
]);

/**
 * Words that make any other parameter name sensitive (`link_token`, `access_token`,
 * `recipient_email`, `api_key`): parameters added later are covered without a change here.
 * `key` only as the last word, so ids of keys (`key_id`) stay readable.
 */
const SENSITIVE_WORDS = new Set(['sig', 'signature', 'token', 'secret', 'code', 'pass', 'password', 'passcode', 'otp', 'session', 'state', 'name', 'email', 'phone', 'dob', 'birth', 'address', 'search']);

/** Whether the value of a path or query parameter of this name is kept out of logs and spans. */
export function isSensitiveParameter(name: string): boolean {
  const lower = name.toLowerCase();
  if (SENSITIVE_PARAMETERS.has(lower)) return true;
  const words = lower.split(/[^a-z0-9]+/).filter(Boolean);
  return words.some((word) => SENSITIVE_WORDS.has(word)) || words[words.length - 1] === 'key' || lower === 'authorization';
}

/** A route pattern with sensitive parameters: its segments, and which of them to hide. */
interface SensitiveRoute {
  segments: string[];
  hidden: boolean[];
}

/**
 * Route patterns with at least one sensitive path parameter, by pattern. Filled as the apps
 * register their routes (http-app.ts), so a path is redacted whether it matched its route or
 * not (a 404 for `/portal/launch/<token>/x` must not log the token either).
 */
const sensitiveRoutes = new Map<string, SensitiveRoute>();

/**
 * Notes a route pattern (`/portal/launch/:token`); a pattern without sensitive parameters is
 * ignored. Called for every route an app registers.
 */
export function noteRoute(pattern: string): void {
  if (sensitiveRoutes.has(pattern)) return;
  const segments = pattern.split('/');
  const hidden = segments.map((segment) => segment.startsWith(':') && isSensitiveParameter(segment.slice(1).replace(/[?(].*$/, '')));
  if (hidden.some(Boolean)) sensitiveRoutes.set(pattern, { segments, hidden });
}

/** The path with the values of sensitive path parameters of any noted route replaced. */
function redactPath(path: string): string {
  if (sensitiveRoutes.size === 0) return path;
  const segments = path.split('/');
  let redacted: string[] | undefined;
  for (const route of sensitiveRoutes.values()) {
    if (!prefixMatches(route, segments)) continue;
    redacted ??= [...segments];
    route.hidden.forEach((hide, index) => {
      if (hide && index < segments.length && segments[index] !== '') redacted![index] = REDACTED;
    });
  }
  return redacted ? redacted.join('/') : path;
}

/**
 * Whether the path's segments follow the route's for as far as both go, up to the first
 * sensitive parameter at least (a shorter or longer path of the same route family counts).
 */
function prefixMatches(route: SensitiveRoute, segments: string[]): boolean {
  const firstHidden = route.hidden.indexOf(true);
  if (segments.length <= firstHidden) return false;
  const length = Math.min(route.segments.length, segments.length);
  for (let index = 0; index < length; index += 1) {
    const expected = route.segments[index];
    if (expected.startsWith(':')) continue;
    if (expected.toLowerCase() !== segments[index].toLowerCase()) return false;
  }
  return true;
}

/** The query string (without `?`) with the values of sensitive parameters replaced. */
function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const separator = pair.indexOf('=');
      const rawKey = separator < 0 ? pair : pair.slice(0, separator);
      let key = rawKey;
      try {
        key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
      } catch {
        // a malformed escape: judge the raw key
      }
      // `status[]=…`, `filter[email]=…`: judged by the words of the whole key.
      return separator >= 0 && isSensitiveParameter(key) ? `${rawKey}=${REDACTED}` : pair;
    })
    .join('&');
}

/**
 * The URL as logged or traced: the values of sensitive path parameters and query parameters
 * replaced by `[redacted]`, everything else kept.
 */
export function redactUrl(url: string): string;
export function redactUrl(url: string | undefined): string | undefined;
export function redactUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  const { path, query } = splitUrl(url);
  const safePath = redactPath(path);
  return query === undefined ? safePath : `${safePath}?${redactQuery(query)}`;
}

/** The path and query of a request URL, each redacted (the query undefined when there is none): for span attributes. */
export function redactedUrlParts(url: string): { path: string; query: string | undefined } {
  const { path, query } = splitUrl(url);
  return { path: redactPath(path), query: query === undefined ? undefined : redactQuery(query) };
}

function splitUrl(url: string): { path: string; query: string | undefined } {
  const queryStart = url.indexOf('?');
  return queryStart < 0 ? { path: url, query: undefined } : { path: url.slice(0, queryStart), query: url.slice(queryStart + 1) };
}

/** Top level, one level down, and headers one level below that (`{webhook: {headers: {...}}}`). */
const REDACT_DEPTH = 3;

/**
 * `value` with the values of secret keys replaced by `[redacted]` down to REDACT_DEPTH levels;
 * copy-on-write, so an object with nothing to hide is returned as it is (the common case costs
 * one key lookup per field). This replaces pino's `redact` option: its wildcard paths
 * (`*.first_name` for every field and header) cost about 28 µs a line against 3 µs for this walk,
 * measured on the request line, which every request writes.
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (depth >= REDACT_DEPTH || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, index) => {
      const redacted = redactSecrets(item, depth + 1);
      if (redacted !== item) (copy ??= [...value])[index] = redacted;
    });
    return copy ?? value;
  }
  if (value instanceof Error || value instanceof Date || Buffer.isBuffer(value)) return value;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const field = (value as Record<string, unknown>)[key];
    const redacted = isSecretKey(key) ? REDACTED : redactSecrets(field, depth + 1);
    if (redacted !== field) (copy ??= { ...(value as Record<string, unknown>) })[key] = redacted;
  }
  return copy ?? value;
}

/** Whether a field or header of this name is never logged. */
export function isSecretKey(key: string): boolean {
  return SECRET_KEYS.has(key.toLowerCase());
}
