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
    const metatype = metadata.metatype as { isZodDto?: boolean; schema?: z.ZodType } | undefined;
    if (!metatype?.isZodDto || !metatype.schema) return value;
    const schema = metatype.schema;
    const input = metadata.type === 'body' && value === undefined ? undefined : value;
    const result = schema.safeParse(input);
    if (result.success) return result.data;
    const where = LOCATION[metadata.type];
    const root = metadata.data ? [where, metadata.data] : [where];
    throw new RequestValidationError(zodIssues(result.error, input, root));
  }
}

/** Translates zod issues into FastAPI/pydantic-style entries. */
export function zodIssues(error: z.ZodError, input: unknown, root: Array<string | number>): ValidationIssue[] {
  return error.issues.map((issue) => {
    const path = issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part));
    const value = valueAt(input, path);
    const issueAny = issue as unknown as Record<string, unknown>;
    if (issue.code === 'unrecognized_keys') {
      const keys = (issueAny.keys as string[]) ?? [];
      return { loc: [...root, ...path, keys[0] ?? ''], msg: 'Extra inputs are not permitted', type: 'extra_forbidden', input: valueAt(value, [keys[0] ?? '']) };
    }
    const { type, ctx, msg } = describe(issueAny, value);
    return { loc: [...root, ...path], msg, type, input: value, ...(ctx ? { ctx } : {}) };
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
