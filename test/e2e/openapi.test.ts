import { call, startStack, type TestStack } from '../helpers/stack';

/** Every `type` in an OpenAPI 3.0 document must be a single string (3.0 has no type arrays). */
function typeArrays(node: unknown, path = '$'): string[] {
  if (Array.isArray(node)) return node.flatMap((item, index) => typeArrays(item, `${path}[${index}]`));
  if (node === null || typeof node !== 'object') return [];
  const found: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'type' && typeof value !== 'string' && !path.endsWith('.properties')) found.push(`${path}.type`);
    found.push(...typeArrays(value, `${path}.${key}`));
  }
  return found;
}

type Schema = Record<string, unknown> & { $ref?: string };

/** Whether a pattern alone bounds a string's length: anchored, no `*`, `+` or `{n,}` outside a character class. */
function patternBounds(pattern: unknown): boolean {
  if (typeof pattern !== 'string' || !pattern.startsWith('^') || !pattern.endsWith('$')) return false;
  const outsideClasses = pattern.replace(/\\./g, 'x').replace(/\[[^\]]*\]/g, 'x');
  return !/[*+]|\{\d+,\}/.test(outsideClasses);
}

/**
 * Every string a request can carry in its body, query or path, by where it is, that has no length
 * bound: no maxLength, enum, const, fixed format (uuid, date, date-time, binary) or bounding
 * pattern. Headers are left out: Node refuses any over 16 KiB, and the ones labflow keeps (the
 * idempotency key) are bounded by the code that reads them.
 */
function unboundedRequestStrings(document: { paths: Record<string, Record<string, Schema>>; components: { schemas: Record<string, Schema> } }): string[] {
  const resolve = (schema: Schema | undefined) => (schema?.$ref ? document.components.schemas[schema.$ref.split('/').pop()!] : schema);
  const found: string[] = [];
  const walk = (node: Schema | undefined, where: string, seen: Set<Schema>) => {
    const schema = resolve(node);
    if (!schema || typeof schema !== 'object' || seen.has(schema)) return;
    const inner = new Set(seen).add(schema);
    for (const key of ['allOf', 'anyOf', 'oneOf']) for (const part of (schema[key] as Schema[] | undefined) ?? []) walk(part, where, inner);
    const bounded =
      schema.maxLength !== undefined ||
      schema.enum !== undefined ||
      schema.const !== undefined ||
      ['uuid', 'date', 'date-time', 'binary'].includes(schema.format as string) ||
      patternBounds(schema.pattern);
    if (schema.type === 'string' && !bounded) found.push(where);
    if (schema.items) walk(schema.items as Schema, `${where}[]`, inner);
    for (const [name, property] of Object.entries((schema.properties as Record<string, Schema> | undefined) ?? {})) walk(property, `${where}.${name}`, inner);
    if (schema.additionalProperties && typeof schema.additionalProperties === 'object') walk(schema.additionalProperties as Schema, `${where}.*`, inner);
  };
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const route = `${method.toUpperCase()} ${path}`;
      for (const parameter of (operation.parameters as Array<{ in: string; name: string; schema?: Schema }> | undefined) ?? []) {
        if (parameter.in !== 'header') walk(parameter.schema, `${route} ${parameter.in}.${parameter.name}`, new Set());
      }
      const content = (operation.requestBody as { content?: Record<string, { schema?: Schema }> } | undefined)?.content ?? {};
      for (const [type, body] of Object.entries(content)) walk(body.schema, `${route} body(${type})`, new Set());
    }
  }
  return found;
}

describe('OpenAPI documents', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startStack({ worker: false, management: true });
  });
  afterAll(() => stack.close());

  it('serves the main API document at /openapi.json and Swagger UI at /docs, without a key', async () => {
    const document = await call(stack.apiUrl, 'GET', '/openapi.json');
    expect(document.status).toBe(200);
    expect(document.body.openapi).toMatch(/^3\./);
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining(['/v2/user', '/v2/user/{user_id}', '/v2/user/undo_delete', '/v2/user/{user_id}/insurance']),
    );
    expect(document.body.components.securitySchemes['team-api-key']).toMatchObject({ in: 'header', name: 'x-service-api-key' });
    const docs = await fetch(`${stack.apiUrl}/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('swagger');
  });

  it('documents request schemas from the same zod schemas that validate requests', async () => {
    const { body } = await call(stack.apiUrl, 'GET', '/openapi.json');
    const createUser = body.components.schemas.CreateUserDto;
    expect(createUser.required).toContain('client_user_id');
    expect(Object.keys(createUser.properties)).toEqual(
      expect.arrayContaining(['client_user_id', 'fallback_time_zone', 'fallback_birth_date', 'ingestion_start', 'ingestion_end']),
    );
  });

  it('writes nullable fields the OpenAPI 3.0 way', async () => {
    for (const url of [stack.apiUrl, stack.managementUrl]) {
      const { body } = await call(url, 'GET', '/openapi.json');
      expect(typeArrays(body)).toEqual([]);
    }
  });

  it('bounds the length of every string a request can carry, on both APIs (the schemas that validate are the ones documented)', async () => {
    for (const url of [stack.apiUrl, stack.managementUrl]) {
      const { body } = await call(url, 'GET', '/openapi.json');
      expect(unboundedRequestStrings(body)).toEqual([]);
    }
  });

  it('serves the management API document on its own port', async () => {
    const document = await call(stack.managementUrl, 'GET', '/openapi.json');
    expect(document.status).toBe(200);
    expect(Object.keys(document.body.paths)).toEqual(expect.arrayContaining(['/v1/org/{org_id}']));
    expect(document.body.paths['/v2/user']).toBeUndefined();
  });
});
