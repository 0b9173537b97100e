import { createHash, randomUUID } from 'node:crypto';
import { PhiCipher } from '../../src/common/crypto';
import { CustomCredentialEntity } from '../../src/management/custom-credentials/custom-credential.entity';
import { EtlPipelineEntity } from '../../src/management/etl-pipelines/etl-pipeline.entity';
import { call, createTenant, type HttpResult, startStack, type Tenant, type TestStack } from '../helpers/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack({ worker: false, management: true });
});
afterAll(async () => stack?.close());

function client(tenant: Tenant, key = tenant.managementKey) {
  return (method: string, path: string, body?: unknown): Promise<HttpResult> =>
    call(stack.managementUrl, method, `/v1/org/${tenant.orgId}${path}`, { headers: { 'X-Management-Key': key }, body });
}
const cipher = () => new PhiCipher(stack.config.phiEncryptionKey);

const rabbit = (teamIds: string[], extra: Record<string, unknown> = {}) => ({
  team_ids: teamIds,
  event_type_prefixes: ['labtest.', 'daily.data.'],
  preferences: { preferred: 'rabbitmq', enabled: ['rabbitmq'] },
  rabbitmq: { uri: 'amqps://labflow:hunter2@mq.example.com:5671/prod', exchange: 'junction.events' },
  ...extra,
});

describe('event destinations (ETL pipelines)', () => {
  test('upsert, list (secrets masked), replace, delete', async () => {
    const tenant = await createTenant(stack.db);
    const api = client(tenant);
    const second = (await api('POST', '/team', { name: 'Second', region: 'us' })).body.id;

    const created = await api('POST', '/team_etl_pipelines/sandbox/us', rabbit([tenant.teamId, second]));
    expect(created.status).toBe(200);
    expect(created.body.pipelines).toHaveLength(2);
    expect(created.body.pipelines[0]).toEqual({
      id: expect.any(String),
      team_id: expect.any(String),
      environment: 'sandbox',
      region: 'us',
      event_type_prefixes: ['labtest.', 'daily.data.'],
      preferences: { preferred: 'rabbitmq', enabled: ['rabbitmq'] },
      rabbitmq: { uri: 'amqps://labflow:****@mq.example.com:5671/prod', exchange: 'junction.events' },
      cloud_pubsub: null,
      azure_amqp: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });

    // Stored encrypted, in full.
    const row = await stack.db.getRepository(EtlPipelineEntity).findOneByOrFail({ teamId: tenant.teamId, environment: 'sandbox', region: 'us' });
    expect(row.destinationsEnc).not.toContain('hunter2');
    expect(cipher().decryptJson(row.destinationsEnc)).toEqual({
      rabbitmq: { uri: 'amqps://labflow:hunter2@mq.example.com:5671/prod', exchange: 'junction.events' },
    });

    // Upsert replaces the team's pipeline (same id), all destinations kinds accepted.
    const replaced = await api('POST', '/team_etl_pipelines/sandbox/us', {
      team_ids: [tenant.teamId],
      event_type_prefixes: [],
      preferences: { preferred: 'azure_amqp', enabled: ['azure_amqp', 'cloud_pubsub'] },
      cloud_pubsub: { project: 'acme-health-01', topic: 'junction-events' },
      azure_amqp: {
        connection_string: 'Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=abc123=',
        default_event_hub: 'events',
        event_hub_matchers: [
          { event_type_prefix: 'labtest.', event_hub: 'labs' },
          { event_type_regex: '^daily\\.data\\.(sleep|activity)\\.', blob_storage: 'archive' },
        ],
      },
    });
    expect(replaced.status).toBe(200);
    const [pipeline] = replaced.body.pipelines;
    expect(pipeline.id).toBe(created.body.pipelines.find((p: { team_id: string }) => p.team_id === tenant.teamId).id);
    expect(pipeline).toMatchObject({
      event_type_prefixes: null,
      preferences: { preferred: 'azure_amqp', enabled: ['azure_amqp', 'cloud_pubsub'] },
      rabbitmq: null,
      cloud_pubsub: { project: 'acme-health-01', topic: 'junction-events', message_ordering: false },
      azure_amqp: {
        connection_string: 'Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=send;SharedAccessKey=****',
        default_event_hub: 'events',
        compression: 'none',
      },
    });

    const listed = await api('GET', '/team_etl_pipelines/sandbox/us');
    expect(listed.body.pipelines).toHaveLength(2);
    expect((await api('GET', `/team_etl_pipelines/sandbox/us?team_id=${second}`)).body.pipelines).toHaveLength(1);
    expect((await api('GET', '/team_etl_pipelines/production/us')).body.pipelines).toEqual([]);

    const unknown = randomUUID();
    const deleted = await api('DELETE', `/team_etl_pipelines/sandbox/us?team_id=${tenant.teamId}&team_id=${unknown}`);
    expect(deleted.body).toEqual({ success: [tenant.teamId], failure: [], not_found: [unknown] });
    const again = await api('DELETE', `/team_etl_pipelines/sandbox/us?team_id=${tenant.teamId}`);
    expect(again.body).toEqual({ success: [], failure: [], not_found: [tenant.teamId] });
    expect((await api('GET', '/team_etl_pipelines/sandbox/us')).body.pipelines.map((p: { team_id: string }) => p.team_id)).toEqual([second]);
  });

  test.each([
    ['an http:// RabbitMQ URI', rabbit(['T'], { rabbitmq: { uri: 'http://mq.example.com', exchange: 'x' } }), ['body', 'rabbitmq', 'uri']],
    ['a RabbitMQ URI without host', rabbit(['T'], { rabbitmq: { uri: 'amqp://', exchange: 'x' } }), ['body', 'rabbitmq', 'uri']],
    ['a bad exchange name', rabbit(['T'], { rabbitmq: { uri: 'amqp://mq', exchange: 'bad exchange!' } }), ['body', 'rabbitmq', 'exchange']],
    ['preferred not enabled', rabbit(['T'], { preferences: { preferred: 'cloud_pubsub', enabled: ['rabbitmq'] } }), ['body', 'preferences', 'preferred']],
    [
      'enabled without configuration',
      rabbit(['T'], { preferences: { preferred: 'rabbitmq', enabled: ['rabbitmq', 'cloud_pubsub'] } }),
      ['body', 'cloud_pubsub'],
    ],
    ['an unknown destination kind', rabbit(['T'], { preferences: { preferred: 'kafka', enabled: ['kafka'] } }), ['body', 'preferences', 'preferred']],
    ['a bad prefix', rabbit(['T'], { event_type_prefixes: ['Lab Test'] }), ['body', 'event_type_prefixes', 0]],
    ['an extra field', rabbit(['T'], { sqs: {} }), ['body', 'sqs']],
    [
      'a matcher with both prefix and regex',
      rabbit(['T'], {
        preferences: { preferred: 'azure_amqp', enabled: ['azure_amqp'] },
        azure_amqp: {
          connection_string: 'Endpoint=sb://a.servicebus.windows.net/;SharedAccessKey=x',
          default_event_hub: 'e',
          event_hub_matchers: [{ event_type_prefix: 'a', event_type_regex: 'b', event_hub: 'h' }],
        },
      }),
      ['body', 'azure_amqp', 'event_hub_matchers', 0],
    ],
    [
      'an invalid matcher regex',
      rabbit(['T'], {
        preferences: { preferred: 'azure_amqp', enabled: ['azure_amqp'] },
        azure_amqp: { connection_string: 'Endpoint=sb://a/;', default_event_hub: 'e', event_hub_matchers: [{ event_type_regex: '(', event_hub: 'h' }] },
      }),
      ['body', 'azure_amqp', 'event_hub_matchers', 0, 'event_type_regex'],
    ],
  ])('refuses %s', async (_name, body, loc) => {
    const tenant = await createTenant(stack.db);
    const payload = { ...body, team_ids: [tenant.teamId] };
    const result = await client(tenant)('POST', '/team_etl_pipelines/sandbox/us', payload);
    expect(result.status).toBe(422);
    expect(result.body.detail.map((issue: { loc: unknown }) => issue.loc)).toContainEqual(loc);
  });

  test('teams must be of the org and in the path region; all or none', async () => {
    const tenant = await createTenant(stack.db);
    const other = await createTenant(stack.db);
    const api = client(tenant);
    const eu = (await api('POST', '/team', { name: 'EU', region: 'eu' })).body.id;
    const wrongRegion = await api('POST', '/team_etl_pipelines/sandbox/us', rabbit([tenant.teamId, eu]));
    expect(wrongRegion.status).toBe(422);
    expect(wrongRegion.body.detail[0].loc).toEqual(['body', 'team_ids', 1]);
    expect((await api('POST', '/team_etl_pipelines/sandbox/us', rabbit([tenant.teamId, other.teamId]))).status).toBe(404);
    expect((await api('GET', '/team_etl_pipelines/sandbox/us')).body.pipelines).toEqual([]);
    expect((await api('POST', '/team_etl_pipelines/sandbox/eu', rabbit([eu]))).status).toBe(200);
  });
});

describe('team custom credentials', () => {
  test('upsert keeps one row per team and provider; the secret never comes back', async () => {
    const tenant = await createTenant(stack.db);
    const api = client(tenant);
    const created = await api('POST', '/team_custom_credentials/sandbox/us', {
      team_id: tenant.teamId,
      provider: 'fitbit',
      client_id: 'client-1',
      client_secret: 'very-secret-value',
      redirect_url_override: 'https://app.example.com/callback',
      details: { scope: 'activity sleep' },
    });
    expect(created.status).toBe(200);
    const hash = createHash('sha256').update('very-secret-value').digest('hex');
    expect(created.body).toEqual({
      id: expect.any(String),
      team_id: tenant.teamId,
      provider: 'fitbit',
      client_id: 'client-1',
      client_secret_hash: hash,
      redirect_url_override: 'https://app.example.com/callback',
      source: 'custom',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(JSON.stringify(created.body)).not.toContain('very-secret-value');

    const row = await stack.db.getRepository(CustomCredentialEntity).findOneByOrFail({ id: created.body.id });
    expect(row.clientSecretEnc).not.toContain('very-secret-value');
    expect(cipher().decrypt(row.clientSecretEnc!)).toBe('very-secret-value');
    expect(cipher().decryptJson(row.detailsEnc!)).toEqual({ scope: 'activity sleep' });

    // Upsert: same row; omitted fields kept, null clears.
    const updated = await api('POST', '/team_custom_credentials/sandbox/us', {
      team_id: tenant.teamId,
      provider: 'fitbit',
      client_id: 'client-2',
      redirect_url_override: null,
    });
    expect(updated.body).toMatchObject({ id: created.body.id, client_id: 'client-2', client_secret_hash: hash, redirect_url_override: null });

    const other = await api('POST', '/team_custom_credentials/sandbox/us', { team_id: tenant.teamId, provider: 'oura', client_id: 'o' });
    const listed = await api('GET', '/team_custom_credentials/sandbox/us');
    expect(listed.body.credentials.map((c: { id: string }) => c.id)).toEqual([created.body.id, other.body.id]);
    expect(JSON.stringify(listed.body)).not.toContain('very-secret-value');
    const byProvider = await api('GET', `/team_custom_credentials/sandbox/us?provider=oura&team_id=${tenant.teamId}`);
    expect(byProvider.body.credentials.map((c: { id: string }) => c.id)).toEqual([other.body.id]);
    expect((await api('GET', '/team_custom_credentials/production/us')).body.credentials).toEqual([]);

    const unknown = randomUUID();
    const deleted = await api('DELETE', `/team_custom_credentials/sandbox/us?credential_id=${created.body.id}&credential_id=${unknown}`);
    expect(deleted.body).toEqual({ success: [created.body.id], failure: [], not_found: [unknown] });
    expect((await api('GET', '/team_custom_credentials/sandbox/us')).body.credentials).toHaveLength(1);
  });

  test('concurrent first upserts of the same provider make one row', async () => {
    const tenant = await createTenant(stack.db);
    const api = client(tenant);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        api('POST', '/team_custom_credentials/sandbox/us', { team_id: tenant.teamId, provider: 'garmin', client_id: `c${i}` }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(200));
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
  });

  test('validation', async () => {
    const tenant = await createTenant(stack.db);
    const api = client(tenant);
    const badProvider = await api('POST', '/team_custom_credentials/sandbox/us', { team_id: tenant.teamId, provider: 'Fit Bit' });
    expect(badProvider.body.detail[0].loc).toEqual(['body', 'provider']);
    const missingTeam = await api('POST', '/team_custom_credentials/sandbox/us', { provider: 'fitbit' });
    expect(missingTeam.body.detail[0]).toMatchObject({ loc: ['body', 'team_id'], type: 'missing' });
    const wrongRegion = await api('POST', '/team_custom_credentials/sandbox/eu', { team_id: tenant.teamId, provider: 'fitbit' });
    expect(wrongRegion.status).toBe(422);
    const noIds = await api('DELETE', '/team_custom_credentials/sandbox/us');
    expect(noIds.body.detail[0].loc).toEqual(['query', 'credential_id']);
  });
});
