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
 * URL parameters (path or query) by exact name: credentials of the portal, the webhook portal, Link and OAuth
 * (`/portal/launch/:token`, `/webhook-portal/launch/:token`, `/p/:code`, `?state=&code=` of a provider's callback) and what
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
const SENSITIVE_WORDS = new Set([
  'sig',
  'signature',
  'token',
  'secret',
  'code',
  'pass',
  'password',
  'passcode',
  'otp',
  'session',
  'state',
  'name',
  'email',
  'phone',
  'dob',
  'birth',
  'address',
  'search',
]);

/** Whether the value of a path or query parameter of this name is kept out of logs and spans. */
function isSensitiveParameter(name: string): boolean {
  let sensitive = judged.get(name);
  if (sensitive === undefined) {
    sensitive = judge(name);
    // Names come from clients too: remember a bounded number (real ones are a few dozen).
    if (judged.size >= 1000) judged.clear();
    judged.set(name, sensitive);
  }
  return sensitive;
}

/** Parameter names already judged: the request line asks for every query parameter of every request. */
const judged = new Map<string, boolean>();

function judge(name: string): boolean {
  const lower = name.toLowerCase();
  if (SENSITIVE_PARAMETERS.has(lower)) return true;
  const words = lower.split(/[^a-z0-9]+/).filter(Boolean);
  return words.some((word) => SENSITIVE_WORDS.has(word)) || words[words.length - 1] === 'key' || lower === 'authorization';
}

/**
 * A route pattern with sensitive parameters, as a regular expression over a path's segments up to
 * the last sensitive one (more may follow: a longer path of the same family), each segment
 * captured; `hidden` says which captures to replace.
 */
interface SensitiveRoute {
  match: RegExp;
  hidden: boolean[];
  /** Slashes a path needs to reach the last sensitive segment: fewer, and the regular expression is not tried. */
  slashes: number;
}

/**
 * Route patterns with at least one sensitive path parameter, by their first segment (lower case),
 * then by pattern. Filled as the apps register their routes (http-app.ts), so a path is redacted
 * whether it matched its route or not (a 404 for `/portal/launch/<token>/x` must not log the token
 * either). A path whose first segment starts no such pattern (most) costs one lookup.
 */
const sensitiveRoutes = new Map<string, Map<string, SensitiveRoute>>();

/**
 * Notes a route pattern (`/portal/launch/:token`); a pattern without sensitive parameters is
 * ignored. Called for every route an app registers.
 */
export function noteRoute(pattern: string): void {
  const segments = pattern.split('/').slice(1);
  const hidden = segments.map((segment) => segment.startsWith(':') && isSensitiveParameter(segment.slice(1).replace(/[?(].*$/, '')));
  const last = hidden.lastIndexOf(true);
  if (last < 0) return;
  const source = segments
    .slice(0, last + 1)
    .map((segment) => (segment.startsWith(':') ? '/([^/]*)' : `/(${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})`))
    .join('');
  // A pattern starting with a parameter is filed under '' and tried for every path.
  const key = segments[0].startsWith(':') ? '' : segments[0].toLowerCase();
  let routes = sensitiveRoutes.get(key);
  if (!routes) sensitiveRoutes.set(key, (routes = new Map()));
  routes.set(pattern, { match: new RegExp(`^${source}(?=/|$)`, 'i'), hidden: hidden.slice(0, last + 1), slashes: last + 1 });
}

/** The path with the values of sensitive path parameters of any noted route replaced. */
function redactPath(path: string): string {
  if (sensitiveRoutes.size === 0) return path;
  const end = path.indexOf('/', 1);
  const first = (end < 0 ? path.slice(1) : path.slice(1, end)).toLowerCase();
  let redacted = path;
  let slashes = -1;
  for (const routes of [sensitiveRoutes.get(first), sensitiveRoutes.get('')]) {
    if (!routes) continue;
    if (slashes < 0) slashes = slashesIn(path);
    for (const route of routes.values()) {
      // GET /v2/user/{id}, the hottest read, is of the family of /v2/user/{id}/portal_url/{code}.
      if (slashes < route.slashes) continue;
      const found = route.match.exec(redacted);
      if (!found) continue;
      const kept = found.slice(1).map((segment, index) => (route.hidden[index] && segment !== '' ? REDACTED : segment));
      redacted = `/${kept.join('/')}${redacted.slice(found[0].length)}`;
    }
  }
  return redacted;
}

/** How many `/` the path has (its segments, counting the empty one before the first slash out). */
function slashesIn(path: string): number {
  let count = 0;
  for (let index = path.indexOf('/'); index >= 0; index = path.indexOf('/', index + 1)) count += 1;
  return count;
}

/** The query string (without `?`) with the values of sensitive parameters replaced. */
function redactQuery(query: string): string {
  return query
    .split('&')
    .map((pair) => {
      const separator = pair.indexOf('=');
      if (separator < 0) return pair;
      const rawKey = pair.slice(0, separator);
      // `status[]=…`, `filter[email]=…`: judged by the words of the whole key.
      return isSensitiveParameter(decodedKey(rawKey)) ? `${rawKey}=${REDACTED}` : pair;
    })
    .join('&');
}

/** A query parameter's name as the application reads it (`%73ignature` is `signature`). */
function decodedKey(rawKey: string): string {
  if (!rawKey.includes('%') && !rawKey.includes('+')) return rawKey;
  try {
    return decodeURIComponent(rawKey.replace(/\+/g, ' '));
  } catch {
    // a malformed escape: judge the raw key
    return rawKey;
  }
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
