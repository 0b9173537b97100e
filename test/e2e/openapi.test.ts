import { call, startStack, type TestStack } from '../helpers/stack';

/** Every `type` in an OpenAPI 3.0 document must be a single string (3.0 has no type arrays). */
function typeArrays(node: unknown, path = '$'): string[] {
  if (Array.isArray(node)) return node.flatMap((item, index) => typeArrays(item, `${path}[${index}]`));
  if (node === null || typeof node !== 'object') return [];
  const found: string[] = [];
  for (const [key, value] of Object.entries(node)) {
    if (key === 'type' && typeof value !== 'string' && !(path.endsWith('.properties'))) found.push(`${path}.type`);
    found.push(...typeArrays(value, `${path}.${key}`));
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

  it('serves the management API document on its own port', async () => {
    const document = await call(stack.managementUrl, 'GET', '/openapi.json');
    expect(document.status).toBe(200);
    expect(Object.keys(document.body.paths)).toEqual(expect.arrayContaining(['/v1/org/{org_id}']));
    expect(document.body.paths['/v2/user']).toBeUndefined();
  });
});
