import { randomUUID } from 'node:crypto';
import { RetentionSweeper } from '../../src/retention/retention-sweeper';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * Health-data partitions: ingestion makes the month a sample needs; the retention sweep makes
 * the coming months ahead and drops whole months past HEALTH_DATA_RETENTION.
 */
describe('health data: partitions and retention', () => {
  let stack: TestStack;
  let tenant: Tenant;
  const YEAR_MS = 365 * 86_400_000;
  const partitionExists = async (name: string) => (await stack.db.query(`SELECT to_regclass($1) IS NOT NULL AS present`, [name]))[0].present as boolean;

  beforeAll(async () => {
    stack = await startStack({ worker: false });
    tenant = await createTenant(stack.db);
  });
  afterAll(() => stack.close());

  it('creates the partition of an old month on ingestion and drops it as a whole when retention passes it', async () => {
    const user = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: `hd-${randomUUID()}` } });
    const userId = user.body.user_id as string;
    const stored = await call(stack.apiUrl, 'POST', `/v2/timeseries/${userId}/heartrate`, {
      key: tenant.apiKey,
      body: { data: [{ timestamp: '2019-03-10T08:00:00Z', value: 61 }] },
    });
    expect(stored.status).toBe(200);
    expect(await partitionExists('health_samples_p201903')).toBe(true);

    // Events are kept (a century); health data kept for five years: March 2019 is past it.
    const report = await new RetentionSweeper(stack.db, {
      eventRetentionMs: 100 * YEAR_MS,
      linkBulkOpRetentionMs: 100 * YEAR_MS,
      orderIdempotencyKeyTtlMs: 100 * YEAR_MS,
      appointmentIdempotencyKeyTtlMs: 100 * YEAR_MS,
      batchSize: 100,
      healthDataRetentionMs: 5 * YEAR_MS,
    }).sweepOnce();
    expect(report?.healthDataPartitions).toBeGreaterThanOrEqual(1);
    expect(await partitionExists('health_samples_p201903')).toBe(false);
    const read = await call(stack.apiUrl, 'GET', `/v2/timeseries/${userId}/heartrate?start_date=2019-03-10`, { key: tenant.apiKey });
    expect(read.body).toEqual([]);

    const ahead = new Date();
    ahead.setUTCMonth(ahead.getUTCMonth() + 3, 1);
    expect(await partitionExists(`health_samples_p${ahead.toISOString().slice(0, 7).replace('-', '')}`)).toBe(true);
  });
});
