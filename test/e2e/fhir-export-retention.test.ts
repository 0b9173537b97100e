import type { OperationOutcome } from '@medplum/fhirtypes';
import { eventually } from '../helpers/eventually';
import { bulkClient } from '../helpers/fhir-export';
import { createUser } from '../helpers/orders';
import { createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * A completed export's files are kept FHIR_EXPORT_RETENTION (here 8 s), then the export
 * workflow's timer deletes them: the files and the status URL answer 404, the parts are gone.
 */
describe('FHIR Bulk Data export retention', () => {
  let stack: TestStack;
  let tenant: Tenant;

  beforeAll(async () => {
    stack = await startStack({ env: { FHIR_EXPORT_RETENTION: '8s' } });
    tenant = await createTenant(stack.db);
    await createUser(stack, tenant);
  });
  afterAll(() => stack?.close());

  it('deletes the files once the retention has passed', async () => {
    const bulk = bulkClient(stack, tenant.apiKey);
    const kickOff = await bulk.kickOff('Patient/$export?_type=Patient');
    expect(kickOff.status).toBe(202);
    const location = kickOff.headers.get('content-location')!;
    const exportId = location.split('/').pop()!;
    const done = await bulk.completed(location);
    expect(done.status).toBe(200);
    const [output] = done.body.output;
    expect(output).toMatchObject({ type: 'Patient', count: 1 });
    expect(new Date(done.headers.get('expires')!).getTime()).toBeGreaterThan(Date.now() - 1000);
    expect((await bulk.download(output.url)).resources).toHaveLength(1);

    const expired = await eventually(
      async () => {
        const status = await bulk.status(location);
        return status.status === 404 ? status : undefined;
      },
      'the export expired',
      60_000,
      500,
    );
    expect(JSON.stringify(expired.body as OperationOutcome)).toContain('expired');
    expect((await bulk.download(output.url)).status).toBe(404);
    const parts = await stack.db.query(`SELECT count(*)::int AS n FROM fhir_export_parts WHERE export_id = $1`, [exportId]);
    expect(parts[0].n).toBe(0);
    expect(await stack.temporal.workflow.getHandle(`fhir-export:${exportId}`).result()).toBe('completed');
  });
});
