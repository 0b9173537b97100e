import { randomBytes, randomUUID } from 'node:crypto';
import { PhiCipher } from '../../src/common/crypto';
import { createDataSource } from '../../src/db/data-source';
import { PhiRekeyRepository, SEALED_COLUMNS } from '../../src/ops/phi-rekey.repository';
import { PhiRekeyService } from '../../src/ops/phi-rekey.service';
import { VitalClient } from '@tryvital/vital-node';
import { runCli, spawnCli } from '../helpers/cli';
import { eventually } from '../helpers/eventually';
import { textReportPdf } from '../helpers/lab-report-files';
import { ORDER_TEST_ENV, orderBody, patientDetails } from '../helpers/orders';
import { createScratchDatabase } from '../helpers/scratch-database';
import { call, createTenant, startStack, type TestStack } from '../helpers/stack';
import { orderWorkflowId } from '../../workflows/contract';

/**
 * Rotating the PHI key (README "Rotating the PHI key"), on a database of this file's own (the
 * rekey rewrites every sealed value in the database it is pointed at): PHI written under key A
 * is read by processes given key B with A as an earlier key, an order workflow begun under A
 * goes on under B (its history's payloads open with the key derived from A), `labflow phi rekey`
 * seals every value again with B, and then B alone reads everything. A rekey without the key
 * that sealed the values changes nothing and exits 1.
 */
jest.setTimeout(300_000);

let scratch: Awaited<ReturnType<typeof createScratchDatabase>>;
let stack: TestStack | undefined;

beforeAll(async () => {
  scratch = await createScratchDatabase('labflow_phi_rotation');
  const db = createDataSource(scratch.url, 2);
  await db.initialize();
  await db.runMigrations();
  await db.destroy();
});

afterAll(async () => {
  await stack?.close();
  await scratch?.drop();
});

const newKey = () => randomBytes(32).toString('base64');
const sdk = (apiKey: string) => new VitalClient({ baseUrl: stack!.apiUrl, apiKey, maxRetries: 0 });

/** Every sealed value of the database, by column: whether `cipher` opens it. */
async function openedBy(cipher: PhiCipher): Promise<{ opened: number; refused: string[] }> {
  const db = createDataSource(scratch.url, 2);
  await db.initialize();
  try {
    const repository = new PhiRekeyRepository(db);
    let opened = 0;
    const refused: string[] = [];
    for (const column of SEALED_COLUMNS) {
      for (const { value } of await repository.batch(column, null, 100_000)) {
        try {
          if (typeof value === 'string') cipher.decrypt(value);
          else cipher.decryptBytes(value);
          opened++;
        } catch {
          refused.push(`${column.table}.${column.column}`);
        }
      }
    }
    return { opened, refused };
  } finally {
    await db.destroy();
  }
}

test('PHI sealed under the old key is read after a rotation, sealed again by `labflow phi rekey`, then read with the new key alone', async () => {
  const keyA = newKey();
  const keyB = newKey();
  // Every stack continues the workflows of the one before it, on the same queue.
  const env = { ...ORDER_TEST_ENV, DATABASE_URL: scratch.url, TEMPORAL_TASK_QUEUE: `test-${randomUUID()}` };

  // Under key A: a user's details and an order (patient details and address, the workflow's input).
  stack = await startStack({ labReportWorker: true, env: { ...env, PHI_ENCRYPTION_KEY: keyA } });
  const tenant = await createTenant(stack.db);
  const api = (method: string, path: string, body?: object) => call(stack!.apiUrl, method, path, { key: tenant.apiKey, body });
  const user = await api('POST', '/v2/user', { client_user_id: `rotation-${randomUUID()}` });
  expect(user.status).toBe(200);
  const userId = user.body.user_id as string;
  const info = { first_name: 'Ann', last_name: 'Okafor', email: 'ann@example.com', phone_number: '+14155550100', gender: 'female', dob: '1980-02-03' };
  const address = { first_line: '1 Market St', city: 'San Francisco', state: 'CA', zip: '94105', country: 'US' };
  expect((await api('PATCH', `/v2/user/${userId}/info`, { ...info, address })).status).toBe(200);
  // Held in ordered by activate_by: nothing else moves it while the key changes.
  const created = await api('POST', '/v3/order', orderBody(userId, { activate_by: '2030-01-01' }));
  expect(created.status).toBe(200);
  const orderId = created.body.order.id as string;
  // A lab report (binary PHI, sealed as bytes) of this user (its name and birth date match, so
  // it is filed without review), parsed to the end.
  const report = await sdk(tenant.apiKey).labReport.parserCreateJob(
    { data: await textReportPdf({ patient: 'Okafor, Ann', dob: info.dob }), filename: 'report.pdf' },
    { userId },
  );
  await eventually(
    async () => {
      const job = await call(stack!.apiUrl, 'GET', `/lab_report/v1/parser/job/${report.id}`, { key: tenant.apiKey });
      return job.body.status === 'completed' ? job.body : undefined;
    },
    'the lab report parsed',
    120_000,
    250,
  );
  await stack.close();
  stack = undefined;
  expect((await openedBy(new PhiCipher(Buffer.from(keyB, 'base64')))).opened).toBe(0);

  // Rotated: key B seals, A still opens.
  stack = await startStack({ labReportWorker: true, env: { ...env, PHI_ENCRYPTION_KEY: keyB, PHI_ENCRYPTION_PREVIOUS_KEYS: keyA } });
  const order = await api('GET', `/v3/order/${orderId}`);
  expect(order.status).toBe(200);
  expect(order.body.patient_details).toMatchObject({ first_name: patientDetails().first_name, email: patientDetails().email });
  expect((await api('GET', `/v2/user/${userId}/info/latest`)).body).toMatchObject({ first_name: 'Ann', email: 'ann@example.com' });
  // The order's workflow goes on: a new worker replays its history, sealed with the key derived from A.
  const cancelled = await api('POST', `/v3/order/${orderId}/cancel`);
  expect(cancelled.status).toBe(200);
  expect(cancelled.body.order.status).toBe('cancelled');
  expect(await stack.temporal.workflow.getHandle(orderWorkflowId(orderId)).result()).toEqual({ status: 'cancelled.testkit.cancelled' });
  // What is written now is sealed with B.
  const second = await api('POST', '/v3/order', orderBody(userId, { activate_by: '2030-01-01' }));
  expect(second.status).toBe(200);
  const mixed = await openedBy(new PhiCipher(Buffer.from(keyB, 'base64')));
  expect(mixed.opened).toBeGreaterThan(0);
  expect(mixed.refused).toEqual(expect.arrayContaining(['orders.patient_details_enc', 'lab_report_files.content_enc', 'lab_report_artifacts.content_enc']));

  // A rekey that lacks key A opens none of A's values: it changes nothing and exits 1 (the built
  // binary's process: its exit code is the command's).
  const withoutA = await spawnCli(['--json', 'phi', 'rekey'], { DATABASE_URL: scratch.url, PHI_ENCRYPTION_KEY: keyB, PHI_ENCRYPTION_PREVIOUS_KEYS: '' });
  expect(withoutA.code).toBe(1);
  expect(withoutA.json).toMatchObject({ resealed: 0, complete: false });
  expect(withoutA.json.unreadable).toBe(mixed.refused.length);

  const rekeyed = await runCli(['--json', 'phi', 'rekey', '--batch-size', '2'], {
    DATABASE_URL: scratch.url,
    PHI_ENCRYPTION_KEY: keyB,
    PHI_ENCRYPTION_PREVIOUS_KEYS: keyA,
  });
  expect(rekeyed.code).toBe(0);
  expect(rekeyed.json).toMatchObject({ resealed: mixed.refused.length, unreadable: 0, complete: true });
  const afterRekey = await openedBy(new PhiCipher(Buffer.from(keyB, 'base64')));
  expect(afterRekey).toEqual({ opened: mixed.opened + mixed.refused.length, refused: [] });
  // Again: nothing left to do.
  const again = await runCli(['--json', 'phi', 'rekey'], { DATABASE_URL: scratch.url, PHI_ENCRYPTION_KEY: keyB, PHI_ENCRYPTION_PREVIOUS_KEYS: keyA });
  expect(again.json).toMatchObject({ resealed: 0, unreadable: 0, complete: true });

  // Every column of the database that looks sealed is one the rekey knows.
  const service = new PhiRekeyService(new PhiRekeyRepository(stack.db), new PhiCipher(Buffer.from(keyB, 'base64')));
  expect(await service.unlistedColumns()).toEqual([]);
  await stack.close();
  stack = undefined;

  // B alone reads it all (no workflow runs here: histories keep A's payloads until they close).
  stack = await startStack({ worker: false, env: { ...env, PHI_ENCRYPTION_KEY: keyB } });
  const read = await api('GET', `/v3/order/${orderId}`);
  expect(read.body).toMatchObject({ status: 'cancelled', patient_details: { first_name: patientDetails().first_name } });
  expect((await api('GET', `/v2/user/${userId}/info/latest`)).body).toMatchObject({ first_name: 'Ann' });
  const parsed = await call(stack.apiUrl, 'GET', `/lab_report/v1/parser/job/${report.id}`, { key: tenant.apiKey });
  expect(parsed.body).toMatchObject({ status: 'completed' });
  expect(parsed.body.data.results.length).toBeGreaterThan(0);
});
