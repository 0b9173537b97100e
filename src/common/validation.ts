import { type ArgumentMetadata, Injectable, type PipeTransform } from '@nestjs/common';
import type { z } from 'zod';
import { RequestValidationError, type ValidationIssue } from './errors';

const LOCATION: Record<ArgumentMetadata['type'], string> = {
  body: 'body',
  query: 'query',
  param: 'path',
  custom: 'body',
};

/**
 * Validates every argument typed with a nestjs-zod DTO and answers 422 in the FastAPI shape
 * (loc starts with body|query|path). The same schemas generate the OpenAPI document.
 */
@Injectable()
export class ZodRequestPipe implements PipeTransform {
  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const where = LOCATION[metadata.type];
    const root = metadata.data ? [where, metadata.data] : [where];
    // Every string the client sent (body, query, path), typed by a DTO or not, before any schema
    // trims or strips it: what Postgres cannot store is refused here, for text and json columns
    // alike, rather than failing at the database.
    if (metadata.type !== 'custom') refuseUnstorable(value, root);
    const metatype = metadata.metatype as { isZodDto?: boolean; schema?: z.ZodType } | undefined;
    if (!metatype?.isZodDto || !metatype.schema) return value;
    const input = metadata.type === 'body' && value === undefined ? undefined : value;
    const result = metatype.schema.safeParse(input);
    if (!result.success) throw new RequestValidationError(zodIssues(result.error, input, root));
    if (metadata.type === 'custom') refuseUnstorable(result.data, root);
    return result.data;
  }
}

const UNSTORABLE_WORDING: Record<Unstorable['problem'], { msg: string; type: string }> = {
  nul: { msg: 'Text must not contain NUL (\\u0000) characters.', type: 'string_nul' },
  lone_surrogate: {
    msg: 'Text must be valid Unicode: a UTF-16 surrogate (\\ud800-\\udfff) must be part of a pair.',
    type: 'string_unpaired_surrogate',
  },
};

function refuseUnstorable(value: unknown, root: Array<string | number>): void {
  const found = findUnstorableString(value);
  if (!found) return;
  const { msg, type } = UNSTORABLE_WORDING[found.problem];
  throw new RequestValidationError([{ loc: [...root, ...found.path], msg, type, input: echo(found.value) }]);
}

/** Translates zod issues into FastAPI/pydantic-style entries. */
export function zodIssues(error: z.ZodError, input: unknown, root: Array<string | number>): ValidationIssue[] {
  return error.issues.map((issue) => {
    const path = issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part));
    const value = valueAt(input, path);
    const issueAny = issue as unknown as Record<string, unknown>;
    if (issue.code === 'unrecognized_keys') {
      const keys = (issueAny.keys as string[]) ?? [];
      return {
        loc: [...root, ...path, keys[0] ?? ''],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
        input: echo(valueAt(value, [keys[0] ?? ''])),
      };
    }
    const { type, ctx, msg } = describe(issueAny, value);
    return { loc: [...root, ...path], msg, type, input: echo(value), ...(ctx ? { ctx } : {}) };
  });
}

function describe(issue: Record<string, unknown>, value: unknown): { type: string; msg: string; ctx?: Record<string, unknown> } {
  const message = String(issue.message ?? 'Invalid value');
  switch (issue.code) {
    case 'invalid_type':
      if (value === undefined) return { type: 'missing', msg: 'Field required' };
      return { type: `${String(issue.expected)}_type`, msg: `Input should be a valid ${String(issue.expected)}` };
    case 'too_small':
      if (issue.origin === 'string') return { type: 'string_too_short', msg: message, ctx: { min_length: issue.minimum } };
      if (issue.origin === 'array') return { type: 'too_short', msg: message, ctx: { min_length: issue.minimum } };
      return { type: 'greater_than_equal', msg: message, ctx: { ge: issue.minimum } };
    case 'too_big':
      if (issue.origin === 'string') return { type: 'string_too_long', msg: message, ctx: { max_length: issue.maximum } };
      if (issue.origin === 'array') return { type: 'too_long', msg: message, ctx: { max_length: issue.maximum } };
      return { type: 'less_than_equal', msg: message, ctx: { le: issue.maximum } };
    case 'invalid_format':
      if (issue.format === 'regex') return { type: 'string_pattern_mismatch', msg: message, ctx: { pattern: String(issue.pattern) } };
      return { type: `${String(issue.format)}_parsing`, msg: message, ctx: { format: issue.format } };
    case 'invalid_value':
      return { type: 'enum', msg: message, ctx: { expected: (issue.values as unknown[] | undefined)?.map(String).join(', ') } };
    default:
      return { type: 'value_error', msg: message };
  }
}

function valueAt(input: unknown, path: Array<string | number>): unknown {
  let current: unknown = input;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[part];
  }
  return current;
}

const ECHO_LIMIT = 2_000;

/**
 * The offending input, as FastAPI echoes it, unless it is too large or too deeply nested to
 * serialise safely (a 5,000-level array would overflow JSON.stringify): then a short note.
 */
function echo(value: unknown): unknown {
  if (value === null || typeof value !== 'object') {
    return typeof value === 'string' && value.length > ECHO_LIMIT ? `${value.slice(0, ECHO_LIMIT)}…` : value;
  }
  try {
    const text = JSON.stringify(value);
    if (text.length <= ECHO_LIMIT) return value;
  } catch {
    // too deep to serialise
  }
  return Array.isArray(value) ? '[array omitted: too large to echo]' : '{object omitted: too large to echo}';
}

/** A container being searched by findUnstorableString, and how it was reached (its path is built only on a hit). */
interface Visit {
  node: object;
  parent: Visit | null;
  key: string | number | null;
}

/** A string Postgres cannot store, where it is and why. */
export interface Unstorable {
  path: Array<string | number>;
  value: string;
  problem: 'nul' | 'lone_surrogate';
}

/** Cheap first test: NUL or any surrogate at all (pairs are then told apart by LONE_SURROGATE). */
// eslint-disable-next-line no-control-regex -- NUL is the point
const SUSPECT = /[\u0000\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why Postgres would refuse this string: NUL (text and jsonb both refuse it), or a UTF-16
 * surrogate that is not half of a pair (not encodable as UTF-8; jsonb refuses its `\\ud800`
 * escape). Null when it can be stored.
 */
export function unstorableProblem(value: string): Unstorable['problem'] | null {
  if (!SUSPECT.test(value)) return null;
  if (value.includes('\u0000')) return 'nul';
  return LONE_SURROGATE.test(value) ? 'lone_surrogate' : null;
}

/**
 * The first string (key or value) Postgres cannot store, with its path; iterative, so depth is no
 * risk. Strings are checked where they are met and only containers are queued, each with a link
 * to its parent instead of a copy of its path: an ingestion request holds tens of thousands of
 * values. Binary bodies (Buffers, typed arrays) hold no strings and are not walked.
 */
export function findUnstorableString(data: unknown): Unstorable | null {
  if (typeof data === 'string') {
    const problem = unstorableProblem(data);
    return problem ? { path: [], value: data, problem } : null;
  }
  if (data === null || typeof data !== 'object' || ArrayBuffer.isView(data)) return null;
  const stack: Visit[] = [{ node: data, parent: null, key: null }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const node = visit.node as Record<string, unknown>;
    const keys = Array.isArray(node) ? null : Object.keys(node);
    const count = keys ? keys.length : (node as unknown as unknown[]).length;
    for (let index = 0; index < count; index++) {
      const key = keys ? keys[index] : index;
      if (typeof key === 'string') {
        const problem = unstorableProblem(key);
        if (problem) return { path: [...pathOf(visit), key], value: key, problem };
      }
      const child = node[key];
      if (typeof child === 'string') {
        const problem = unstorableProblem(child);
        if (problem) return { path: [...pathOf(visit), key], value: child, problem };
      } else if (child !== null && typeof child === 'object' && !ArrayBuffer.isView(child)) {
        stack.push({ node: child, parent: visit, key });
      }
    }
  }
  return null;
}

function pathOf(visit: Visit): Array<string | number> {
  const path: Array<string | number> = [];
  for (let at: Visit | null = visit; at && at.key !== null; at = at.parent) path.unshift(at.key);
  return path;
}
