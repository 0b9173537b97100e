import type { Observation, OperationOutcome, Resource } from '@medplum/fhirtypes';
import { bulkClient, type ExportManifest } from '../helpers/fhir-export';
import { fhirErrors } from '../helpers/fhir-validator';
import { createUser, orderBody, orderReaches, startOrderStack } from '../helpers/orders';
import { call, createTenant, type Tenant, type TestStack } from '../helpers/stack';

/**
 * FHIR Bulk Data export (Bulk Data Access IG) as a client uses it: kick-off with
 * `Prefer: respond-async`, the status URL polled to completion, every NDJSON file downloaded and
 * each line validated with the FHIR validator of the read API's tests. Pages of two resources
 * (FHIR_EXPORT_PAGE_SIZE=2), so every file is written in several parts.
 */
describe('FHIR Bulk Data export (/fhir/R4/$export)', () => {
  let stack: TestStack;
  let tenant: Tenant;
  let other: Tenant;
  let userId: string;
  let laterUserId: string;
  let orderId: string;
  let since: string;
  let bulk: ReturnType<typeof bulkClient>;
  const day = '2026-11-20';
  const later = ['2026-11-21T08:00:00Z', '2026-11-21T08:01:00Z', '2026-11-21T08:02:00Z'];

  const ingest = async (user: string, resource: string, body: object) => {
    const response = await call(stack.apiUrl, 'POST', `/v2/timeseries/${user}/${resource}`, { key: tenant.apiKey, body });
    expect(response.status).toBe(200);
  };
  /** Kicks off, polls to completion and downloads every file: the manifest and the resources by type. */
  const exported = async (path: string) => {
    const kickOff = await bulk.kickOff(path);
    expect(kickOff.status).toBe(202);
    const location = kickOff.headers.get('content-location')!;
    expect(location).toMatch(new RegExp(`^${stack.apiUrl}/fhir/R4/\\$export-status/[0-9a-f-]{36}$`));
    const done = await bulk.completed(location);
    expect(done.status).toBe(200);
    const files: Record<string, Resource[]> = {};
    for (const output of done.body.output) {
      const file = await bulk.download(output.url);
      expect(file).toMatchObject({ status: 200, contentType: 'application/fhir+ndjson' });
      expect(file.resources).toHaveLength(output.count);
      files[output.type] = file.resources;
    }
    return { location, manifest: done.body, files, headers: done.headers };
  };

  beforeAll(async () => {
    ({ stack, tenant, userId } = await startOrderStack({ env: { FHIR_EXPORT_PAGE_SIZE: '2', FHIR_EXPORT_RETENTION: '1h' } }));
    other = await createTenant(stack.db);
    bulk = bulkClient(stack, tenant.apiKey);
    const info = await call(stack.apiUrl, 'PATCH', `/v2/user/${userId}/info`, {
      key: tenant.apiKey,
      body: {
        first_name: 'Marguerite',
        last_name: 'Okonkwo',
        gender: 'female',
        dob: '1986-04-12',
        email: 'marguerite@example.com',
        phone_number: '+14155550123',
        address: { first_line: '1 Market St', city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' },
      },
    });
    expect(info.status).toBe(200);
    const created = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) });
    expect(created.status).toBe(200);
    orderId = created.body.order.id;
    await call(stack.apiUrl, 'POST', `/v3/order/${orderId}/test`, { key: tenant.apiKey, body: {} });
    await orderReaches(stack, tenant, orderId, 'completed');
    await ingest(userId, 'heartrate', {
      provider: 'oura',
      source_type: 'ring',
      data: [0, 1, 2, 3, 4].map((m) => ({ timestamp: `${day}T08:0${m}:00Z`, value: 60 + m })),
    });
    await ingest(userId, 'blood_pressure', { provider: 'withings', data: [{ timestamp: `${day}T09:00:00Z`, systolic: 121, diastolic: 79 }] });
    // What changes after `since`: three more heart rate samples, and a new patient with steps.
    await new Promise((resolve) => setTimeout(resolve, 50));
    since = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 50));
    await ingest(userId, 'heartrate', { provider: 'oura', source_type: 'ring', data: later.map((timestamp, n) => ({ timestamp, value: 70 + n })) });
    laterUserId = await createUser(stack, tenant);
    await ingest(laterUserId, 'steps', { provider: 'oura', data: [{ start: `${day}T12:00:00Z`, end: `${day}T13:00:00Z`, value: 4200 }] });
  }, 120_000);
  afterAll(() => stack?.close());

  it('exports the whole team (Group/{team}/$export): a manifest, and NDJSON files whose every line is a valid resource of its type', async () => {
    const auditedBefore = await stack.db.query(
      `SELECT count(*)::int AS n FROM phi_access_log WHERE action = 'read' AND resource = 'user_info' AND resource_id = $1`,
      [userId],
    );
    const { manifest, files, headers } = await exported(`Group/${tenant.teamId}/$export?_outputFormat=application/fhir%2Bndjson`);
    expect(manifest).toMatchObject<Partial<ExportManifest>>({
      request: `${stack.apiUrl}/fhir/R4/Group/${tenant.teamId}/$export?_outputFormat=application/fhir%2Bndjson`,
      requiresAccessToken: true,
      error: [],
    });
    expect(Date.parse(manifest.transactionTime)).toBeGreaterThan(Date.parse(since));
    expect(headers.get('expires')).toBeTruthy();
    expect(manifest.output.map((output) => output.type)).toEqual(['Patient', 'ServiceRequest', 'Specimen', 'DiagnosticReport', 'Observation']);
    for (const [type, resources] of Object.entries(files)) {
      for (const resource of resources) {
        expect(resource.resourceType).toBe(type);
        expect({ id: resource.id, errors: fhirErrors(resource) }).toEqual({ id: resource.id, errors: [] });
      }
      // Written a page at a time: each resource once.
      expect(new Set(resources.map((resource) => resource.id)).size).toBe(resources.length);
    }
    expect(files.Patient.map((patient) => patient.id).sort()).toEqual([userId, laterUserId].sort());
    const observations = files.Observation as Observation[];
    const vitals = observations.filter((observation) => observation.category?.[0]?.coding?.[0]?.code !== 'laboratory');
    expect(vitals).toHaveLength(5 + 1 + 3 + 1);
    expect(observations.filter((observation) => observation.category?.[0]?.coding?.[0]?.code === 'laboratory').length).toBeGreaterThan(0);
    expect(files.DiagnosticReport.map((report) => report.id)).toEqual([orderId]);
    // Read as a search reads: the patients' demographics were audited under the key that asked.
    const auditedAfter = await stack.db.query(
      `SELECT count(*)::int AS n FROM phi_access_log WHERE action = 'read' AND resource = 'user_info' AND resource_id = $1 AND api_key_id = $2`,
      [userId, tenant.apiKeyId],
    );
    expect(auditedAfter[0].n).toBeGreaterThan(auditedBefore[0].n);
  });

  it('honours _type and _since (Patient/$export): only those types, only what changed since', async () => {
    const { manifest, files } = await exported(`Patient/$export?_type=Observation,Patient&_since=${encodeURIComponent(since)}`);
    expect(manifest.output.map((output) => output.type)).toEqual(['Patient', 'Observation']);
    expect(files.Patient.map((patient) => patient.id)).toEqual([laterUserId]);
    const observations = files.Observation as Observation[];
    expect(observations.map((observation) => observation.effectiveDateTime ?? observation.effectivePeriod?.start).sort()).toEqual(
      [...later.map((at) => at.replace('Z', '.000Z')), `${day}T12:00:00.000Z`].sort(),
    );
    for (const observation of observations) expect(fhirErrors(observation)).toEqual([]);
  });

  it('refuses what it does not serve with an OperationOutcome: no Prefer, unknown types, parameters and formats, a malformed _since, another group', async () => {
    const refusals: Array<[string, Record<string, string> | undefined, number, string]> = [
      ['Patient/$export', { accept: 'application/fhir+json' }, 400, 'Prefer: respond-async'],
      ['Patient/$export?_type=Medication', undefined, 400, 'Medication'],
      ['Patient/$export?_typeFilter=Observation%3Fcode%3D1', undefined, 400, '_typeFilter'],
      ['Patient/$export?_outputFormat=text/csv', undefined, 400, 'text/csv'],
      ['Patient/$export?_since=yesterday', undefined, 400, 'not a FHIR instant'],
      [`Group/${other.teamId}/$export`, undefined, 404, 'not found'],
    ];
    for (const [path, headers, status, text] of refusals) {
      const response = await bulk.kickOff(path, headers);
      expect({ path, status: response.status }).toEqual({ path, status });
      expect((response.body as OperationOutcome).resourceType).toBe('OperationOutcome');
      expect(JSON.stringify(response.body)).toContain(text);
    }
  });

  it("answers another team's export id with 404, on its status, its files and its cancellation", async () => {
    const { location, manifest } = await exported('Patient/$export?_type=Patient');
    const theirs = bulkClient(stack, other.apiKey);
    expect((await theirs.status(location)).status).toBe(404);
    expect((await theirs.download(manifest.output[0].url, other.apiKey)).status).toBe(404);
    expect((await theirs.cancel(location)).status).toBe(404);
    // Still there for its own team; without a key, 401.
    expect((await bulk.status(location)).status).toBe(200);
    expect((await bulk.download(manifest.output[0].url, 'not-a-key')).status).toBe(401);
  });

  it('cancels with DELETE on the status URL: 202, the files deleted, the status then 404, the workflow ended', async () => {
    const kickOff = await bulk.kickOff(`Group/${tenant.teamId}/$export`);
    expect(kickOff.status).toBe(202);
    const location = kickOff.headers.get('content-location')!;
    const exportId = location.split('/').pop()!;
    const cancelled = await bulk.cancel(location);
    expect(cancelled.status).toBe(202);
    expect(cancelled.body.resourceType).toBe('OperationOutcome');
    expect((await bulk.status(location)).status).toBe(404);
    expect((await bulk.cancel(location)).status).toBe(404);
    const handle = stack.temporal.workflow.getHandle(`fhir-export:${exportId}`);
    // Cancelled by Temporal, or ended by a step that found its export gone first.
    const outcome = await handle.result().then(
      (value) => value,
      () => 'cancelled by Temporal',
    );
    expect(['cancelled', 'cancelled by Temporal']).toContain(outcome);
    const parts = await stack.db.query(`SELECT count(*)::int AS n FROM fhir_export_parts WHERE export_id = $1`, [exportId]);
    expect(parts[0].n).toBe(0);
  });
});
