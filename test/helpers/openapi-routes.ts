import { randomUUID } from 'node:crypto';

/**
 * The routes of a served OpenAPI 3.0 document, and request values shaped after its schemas, for
 * property tests that must reach every route (a route added later is covered without editing the
 * test). Values are plausible, not valid: a schema's pattern or a service's rule may still refuse
 * them, which is fine for tests that only ask how the server answers.
 */

export type Schema = Record<string, unknown> & { $ref?: string };
export interface OpenApiDocument {
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema> };
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

export interface DocumentedRoute {
  method: string;
  /** The path template, e.g. `/v2/user/{user_id}`. */
  template: string;
  parameters: Parameter[];
  /** The JSON request body's schema, when the route takes one. */
  body?: Schema;
}

/** One step into a value: an object key or an array index. */
export type PathPart = string | number;

export function documentedRoutes(document: OpenApiDocument): DocumentedRoute[] {
  const routes: DocumentedRoute[] = [];
  for (const [template, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const content = (operation.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)?.content;
      routes.push({
        method: method.toUpperCase(),
        template,
        parameters: (operation.parameters as Parameter[] | undefined) ?? [],
        body: content?.['application/json']?.schema,
      });
    }
  }
  return routes;
}

export function resolve(document: OpenApiDocument, schema: Schema | undefined): Schema | undefined {
  let current = schema;
  for (let hops = 0; current?.$ref && hops < 20; hops++) current = document.components.schemas[current.$ref.split('/').pop()!];
  return current;
}

/** The alternatives of a schema (anyOf/oneOf), else the schema itself; null-only ones last. */
function alternatives(document: OpenApiDocument, schema: Schema): Schema[] {
  const parts = ((schema.anyOf ?? schema.oneOf) as Schema[] | undefined)?.map((part) => resolve(document, part)!).filter(Boolean);
  if (!parts?.length) return [schema];
  return [...parts.filter((part) => part.type !== 'null'), ...parts.filter((part) => part.type === 'null')];
}

/**
 * A plausible value for `schema`: required properties and every other one, the first enum value,
 * well-formed uuids, dates and e-mails, one item per array. `known` supplies values by property name
 * (a real user id, so that a request can get past "not found").
 */
export function sampleValue(document: OpenApiDocument, node: Schema | undefined, known: Record<string, unknown> = {}, name = '', depth = 0): unknown {
  const schema = resolve(document, node);
  if (!schema || depth > 8) return null;
  if (name in known) return known[name];
  if (schema.default !== undefined && schema.type !== 'object') return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.allOf) && schema.allOf.length) {
    return Object.assign({}, ...(schema.allOf as Schema[]).map((part) => sampleValue(document, part, known, name, depth + 1)));
  }
  const [chosen] = alternatives(document, schema);
  if (chosen !== schema) return sampleValue(document, chosen, known, name, depth + 1);
  switch (schema.type) {
    case 'object': {
      const value: Record<string, unknown> = {};
      for (const [key, property] of Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {})) {
        value[key] = sampleValue(document, property, known, key, depth + 1);
      }
      return value;
    }
    case 'array': {
      const min = typeof schema.minItems === 'number' ? Math.max(1, schema.minItems) : 1;
      return Array.from({ length: min }, () => sampleValue(document, schema.items as Schema, known, name, depth + 1));
    }
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return false;
    case 'string':
      return sampleString(schema);
    default:
      return null;
  }
}

function sampleString(schema: Schema): string {
  switch (schema.format) {
    case 'uuid':
      return randomUUID();
    case 'date':
      return '2024-01-15';
    case 'date-time':
      return '2024-01-15T10:00:00Z';
    case 'email':
      return 'someone@example.com';
    case 'uri':
    case 'url':
      return 'https://example.com/x';
    default:
      return 'sample';
  }
}

/** Every place in `value` that holds a string, an object or an array (where a string can go). */
export function slots(value: unknown, at: PathPart[] = []): PathPart[][] {
  const found: PathPart[][] = [];
  if (typeof value === 'string') found.push(at);
  else if (Array.isArray(value)) {
    found.push(at);
    value.forEach((item, index) => found.push(...slots(item, [...at, index])));
  } else if (value !== null && typeof value === 'object') {
    found.push(at);
    for (const [key, item] of Object.entries(value)) found.push(...slots(item, [...at, key]));
  }
  return found;
}

/**
 * A copy of `value` with `text` put at `at`: in place of a string; as an extra key of an object
 * (`asKey`: the text is the key's name), or as an extra item of an array.
 */
export function withText(value: unknown, at: PathPart[], text: string, asKey = false): unknown {
  const copy = structuredClone(value);
  if (at.length === 0) return typeof copy === 'string' ? text : placeInto(copy, text, asKey);
  let parent = copy as Record<PathPart, unknown>;
  for (const part of at.slice(0, -1)) parent = parent[part] as Record<PathPart, unknown>;
  const last = at[at.length - 1];
  const current = parent[last];
  parent[last] = typeof current === 'string' ? text : placeInto(current, text, asKey);
  return copy;
}

function placeInto(container: unknown, text: string, asKey: boolean): unknown {
  if (Array.isArray(container)) return [...container, text];
  if (container !== null && typeof container === 'object') return asKey ? { ...container, [text]: 'x' } : { ...container, note: text };
  return text;
}
