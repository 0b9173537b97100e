import { z } from 'zod';

/**
 * Length limits of free text in requests where neither the SDK nor the spec gives one: generous
 * for any real value, and a 422 naming the field rather than a megabyte stored, sealed and echoed
 * back. `code`: identifiers a partner or card carries (member ids, zip codes); `name`: a person's or
 * an organisation's name, a city; `line`: an address line; `note`: free-form notes.
 */
export const TEXT_LIMITS = { code: 100, name: 200, line: 500, note: 5000 } as const;

/** The message of a `.max()` length check, the same everywhere. */
export const atMost = (max: number) => ({ message: `Must be at most ${max} characters.` });

/**
 * A real calendar date as `YYYY-MM-DD` (2023-02-30 is refused), in years 0001–9999: Postgres
 * has no year 0, so "0000-01-01" is refused here rather than at the database.
 */
/** A partner's id of one report it sends to a partner webhook (courier, lab, appointment provider), in the signed body. */
export const partnerEventId = z
  .string()
  .regex(/^[\x21-\x7e]{1,200}$/)
  .nullish()
  .describe(
    "The sender's id of this report (signed with the body): a resent report with an id labflow already took is answered as before and changes nothing.",
  );

export const isoDate = z.iso.date().refine((value) => !value.startsWith('0000'), { message: 'Year must be 0001 or later.' });

/** A time zone id from the IANA database (e.g. `Europe/London`), as the runtime's ICU knows it. */
export const ianaTimeZone = z.string().max(64, atMost(64)).refine(isIanaTimeZone, {
  message: 'Must be an IANA time zone id such as "America/New_York".',
});

export function isIanaTimeZone(value: string): boolean {
  // Offsets such as "+01:00" are accepted by newer ICU builds but are not IANA ids.
  if (!/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/.test(value)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

/**
 * `schema.nullable()`, documented the OpenAPI 3.0 way. zod 4 writes a nullable primitive as
 * `type: ["string", "null"]`; nestjs-zod passes that on and @nestjs/swagger then documents a
 * top-level property as an *array*. Spelling `{type, nullable: true}` in the metadata keeps the
 * document right; validation is unchanged.
 */
export function nullable<T extends z.ZodType>(schema: T) {
  const type = openApiTypeOf(schema);
  return type ? schema.nullable().meta({ type, nullable: true }) : schema.nullable();
}

/**
 * A response object with its top-level nullable primitives documented as `nullable()` does: for
 * response DTOs (`createZodDto(documentedNullables(z.object({...})))`), whose fields are written
 * with plain `.nullable()` / `.nullish()`. Validation and types are unchanged.
 */
export function documentedNullables<T extends z.ZodObject>(schema: T): T {
  const shape: Record<string, z.ZodType> = {};
  for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) shape[key] = documentedNullable(field);
  return schema.extend(shape) as unknown as T;
}

function documentedNullable(field: z.ZodType): z.ZodType {
  if (field instanceof z.ZodOptional) return documentedNullable(field.unwrap() as z.ZodType).optional();
  if (!(field instanceof z.ZodNullable)) return field;
  const type = openApiTypeOf(field.unwrap() as z.ZodType);
  return type ? field.meta({ type, nullable: true }) : field;
}

function openApiTypeOf(schema: z.ZodType): string | undefined {
  if (schema instanceof z.ZodString || schema instanceof z.ZodStringFormat || schema instanceof z.ZodEnum) return 'string';
  if (schema instanceof z.ZodNumber) return schema.isInt ? 'integer' : 'number';
  if (schema instanceof z.ZodBoolean) return 'boolean';
  return undefined;
}

/**
 * Rewrites any JSON-Schema `type: [T, "null"]` left in a generated document (nested properties,
 * record values) as OpenAPI 3.0's `type: T, nullable: true`.
 */
export function toOpenApi30Nullables<T>(node: T): T {
  if (Array.isArray(node)) return node.map((item) => toOpenApi30Nullables(item)) as T;
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = toOpenApi30Nullables(value);
  // zod's z.null(): OpenAPI 3.0 has no null type (a nullable type that allows only null).
  if (out.type === 'null') return { ...out, type: 'string', nullable: true, enum: [null] } as T;
  if (Array.isArray(out.type)) {
    const declared = out.type as string[];
    const types = declared.filter((type) => type !== 'null');
    if (types.length === 1) {
      out.type = types[0];
      if (types.length < declared.length) out.nullable = true;
    }
  }
  return out as T;
}

/**
 * A repeatable query parameter (`?lab_id=1&lab_id=2`, as the Junction SDK sends arrays). Fastify's
 * parser gives a string for one occurrence and an array for several; both become an array here.
 * `commaSeparated`: each occurrence may also list several values (`?site_codes=a,b`), trimmed,
 * empty ones dropped.
 */
export function repeatable<T extends z.ZodType>(item: T, options: { min?: number; max?: number; commaSeparated?: boolean } = {}) {
  const values = z.array(item).max(options.max ?? 100);
  const split = (entry: unknown) =>
    typeof entry === 'string'
      ? entry
          .split(',')
          .map((part) => part.trim())
          .filter(Boolean)
      : [entry];
  return z.preprocess(
    (value) => {
      if (value === undefined) return value;
      const occurrences = Array.isArray(value) ? value : [value];
      return options.commaSeparated ? occurrences.flatMap(split) : occurrences;
    },
    options.min ? values.min(options.min) : values,
  );
}

/**
 * The values of a repeatable query parameter sent under either of its spellings (`status=a` and
 * `status[]=b`, as Junction's docs write arrays; Junction's SDK sends the plain one): all of them,
 * or undefined when neither was sent.
 */
export function eitherSpelling<T>(plain: T[] | undefined, bracketed: T[] | undefined): T[] | undefined {
  const all = [...(plain ?? []), ...(bracketed ?? [])];
  return all.length > 0 ? all : undefined;
}
