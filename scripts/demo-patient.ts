/**
 * `npm run up`'s demo patient, so that the patient portal has something to show: a user of the
 * demo team (client_user_id `demo-patient`) with a test-kit order, made through the API as a
 * team's backend would make them, and a fresh communications link to that order. Prints the link.
 *
 *   node dist/scripts/demo-patient.js http://127.0.0.1:8000   (after scripts/seed.ts, with the API up)
 *
 * Later runs reuse the user and its order (the order id is kept in .labflow/demo-patient.json;
 * without that file, the user's newest order, found through the API) and mint a new link each
 * time. The link asks for a one-time code on a new device; in development the API sends it to its
 * own outbox, `GET /portal/dev/outbox`. Docker Compose runs the same through
 * scripts/compose-demo-patient.ts.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { demoKeysPath, readKeysFile } from './seed';
import { stateDir } from './state-dir';

export const DEMO_PATIENT_CLIENT_USER_ID = 'demo-patient';
/** The catalogue's global lipid panel test kit (migration 1763790002001-lab-catalog-seed). */
const DEMO_LAB_TEST_ID = '1ab7e570-0000-4000-8000-000000000001';
const DEMO_PATIENT = {
  first_name: 'Dana',
  last_name: 'Demo',
  dob: '1985-04-12',
  gender: 'female',
  phone_number: '+14155550100',
  email: 'dana.demo@example.com',
};
const DEMO_ADDRESS = {
  receiver_name: 'Dana Demo',
  first_line: '1 Market St',
  city: 'San Francisco',
  state: 'CA',
  zip: '94105',
  country: 'US',
  phone_number: '+14155550100',
};

export interface DemoPatient {
  userId: string;
  orderId: string;
  /** A communications link to the order (`/p/<code>`), valid PORTAL_COMMUNICATIONS_TTL. */
  portalUrl: string;
  user: 'created now' | 'reused';
  order: 'created now' | 'reused';
}

/**
 * Makes (or finds) the demo patient through the API at `apiUrl` with a team key. `statePath`
 * keeps its order id; null (a container with nothing to write to) finds the order through the API.
 */
export async function ensureDemoPatient(apiUrl: string, teamApiKey: string, statePath: string | null): Promise<DemoPatient> {
  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { 'x-service-api-key': teamApiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const answered = (answer: { status: number; body: Record<string, unknown> }, what: string) => {
    if (answer.status !== 200) throw new Error(`${what}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };

  let user: DemoPatient['user'] = 'reused';
  const found = await api('GET', `/v2/user/resolve/${DEMO_PATIENT_CLIENT_USER_ID}`);
  let userId = found.status === 200 ? (found.body.user_id as string) : undefined;
  if (!userId) {
    userId = answered(await api('POST', '/v2/user', { client_user_id: DEMO_PATIENT_CLIENT_USER_ID }), 'creating the demo patient').user_id as string;
    user = 'created now';
  }

  let order: DemoPatient['order'] = 'reused';
  const saved = statePath ? readOrderId(statePath) : undefined;
  const existing = saved ? await api('GET', `/v3/order/${saved}`) : undefined;
  let orderId = existing?.status === 200 && existing.body.user_id === userId ? saved : undefined;
  if (!orderId && user === 'reused') {
    // No (usable) state file: the user's newest order, if any.
    const newest = answered(await api('GET', `/v3/orders?user_id=${userId}&size=1`), "finding the demo patient's order");
    orderId = (newest.orders as Array<{ id: string }>)[0]?.id;
  }
  if (!orderId) {
    const created = answered(
      await api('POST', '/v3/order', { user_id: userId, lab_test_id: DEMO_LAB_TEST_ID, patient_details: DEMO_PATIENT, patient_address: DEMO_ADDRESS }),
      "ordering the demo patient's test kit",
    );
    orderId = (created.order as { id: string }).id;
    order = 'created now';
  }
  if (statePath && orderId !== saved) writeFileSync(statePath, `${JSON.stringify({ user_id: userId, order_id: orderId }, null, 2)}\n`);

  const link = answered(await api('POST', `/v2/user/${userId}/create_portal_url`, { context: 'communications', order_id: orderId }), 'making a portal link');
  return { userId, orderId, portalUrl: link.url as string, user, order };
}

function readOrderId(path: string): string | undefined {
  if (!existsSync(path)) return undefined;
  try {
    const value = (JSON.parse(readFileSync(path, 'utf8')) as { order_id?: unknown }).order_id;
    return typeof value === 'string' && /^[0-9a-f-]{36}$/.test(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const apiUrl = process.argv[2];
  if (!apiUrl) throw new Error('usage: node dist/scripts/demo-patient.js <API URL>');
  const key = readKeysFile().team_api_key;
  if (!key) throw new Error(`no team API key in ${demoKeysPath()}: npm run seed makes one`);
  const patient = await ensureDemoPatient(apiUrl, key, join(stateDir(), 'demo-patient.json'));
  console.error(`[labflow] demo patient:    ${patient.userId} (client_user_id ${DEMO_PATIENT_CLIENT_USER_ID}; ${patient.user})`);
  console.error(`[labflow] demo order:      ${patient.orderId} (test kit; ${patient.order})`);
  // stdout: the link alone, for scripts/up.sh to print with the other URLs.
  console.log(patient.portalUrl);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(`[labflow] demo patient: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
