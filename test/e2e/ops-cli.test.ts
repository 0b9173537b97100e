import { randomUUID } from 'node:crypto';
import { type CliRun, runCli, spawnCli } from '../helpers/cli';
import { orderBody, startOrderStack } from '../helpers/orders';
import { call, type Tenant, type TestStack, teamManagementApi } from '../helpers/stack';
import { WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

/**
 * The ops CLI (src/cli.ts) against this stack's database, checked by its stdout, stderr and exit
 * code, and by what the APIs do afterwards. The commands run in this process (src/cli.ts's
 * runCli: the same command line, services and exit codes as the binary, without a Node start per
 * command); the usage test also runs the built binary (dist/src/cli.js, as `npm run labflow` and
 * the `labflow` bin run it) to show the process starts and exits with those codes.
 */
const EXIT = { ok: 0, usage: 2, notFound: 3, refused: 4 };

// Each command starts a Nest application context; the spawned ones a Node process too.
jest.setTimeout(300_000);

let stack: TestStack;
let tenant: Tenant;
let userId: string;
let receiver: WebhookReceiver;

/** The stack's settings for the CLI. */
const cliEnv = () => ({
  TEMPORAL_TASK_QUEUE: stack.taskQueue,
  TEMPORAL_UI_URL: 'http://temporal-ui.example:8233',
  EVENTS_QUEUE: stack.config.events.queueName,
  SANDBOX_CALLBACKS: 'false',
});

/** Runs the CLI in-process with the stack's settings; `json` is stdout parsed when it is JSON. */
function cli(...args: string[]): Promise<CliRun> {
  return runCli(args, cliEnv());
}

/** Runs the built CLI as a child process with the stack's settings. */
function spawned(...args: string[]): Promise<CliRun> {
  return spawnCli(args, cliEnv());
}

beforeAll(async () => {
  ({ stack, tenant, userId } = await startOrderStack({
    management: true,
    events: true,
    // One attempt and one retry, at once: a failing receiver exhausts a delivery in moments.
    env: { WEBHOOK_RETRY_SCHEDULE: '0s', EVENTS_RELAY_POLL_INTERVAL: '200ms' },
  }));
  receiver = await WebhookReceiver.start();
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

const management = (key: string, path: string) => call(stack.managementUrl, 'GET', path, { headers: { 'X-Management-Key': key } });
const api = (key: string, path: string) => call(stack.apiUrl, 'GET', path, { key });

describe('org, team and keys', () => {
  test('creates an org, a team and their keys; the keys work once, and are printed once', async () => {
    const org = await cli('org', 'create', '--name', 'Ops Org', '--json');
    expect(org).toMatchObject({ code: EXIT.ok, stderr: '' });
    expect(org.json).toMatchObject({ name: 'Ops Org', plan: 'scale' });
    const orgId: string = org.json.id;
    expect(await stack.db.query(`SELECT name, plan FROM orgs WHERE id = $1`, [orgId])).toEqual([{ name: 'Ops Org', plan: 'scale' }]);

    const team = await cli('team', 'create', '--org', orgId, '--name', 'Ops Team', '--region', 'eu', '--json');
    expect(team.code).toBe(EXIT.ok);
    expect(team.json).toMatchObject({ name: 'Ops Team', region: 'eu' });
    const teamId: string = team.json.id;

    const orgKey = await cli('key', 'create', '--org', orgId, '--label', 'first admin', '--json');
    expect(orgKey.code).toBe(EXIT.ok);
    expect(orgKey.json).toMatchObject({ kind: 'management_key', org_id: orgId, role: 'org_admin', label: 'first admin' });
    expect(orgKey.json.key).toMatch(/^mg_/);
    const listed = await management(orgKey.json.key, `/v1/org/${orgId}/team/${teamId}`);
    expect(listed.status).toBe(200);
    expect(listed.body.name).toBe('Ops Team');

    const teamKey = await cli('key', 'create', '--team', teamId, '--environment', 'sandbox');
    expect(teamKey.code).toBe(EXIT.ok);
    const printed = /^\s+(sk_eu_\S+)$/m.exec(teamKey.stdout)?.[1];
    expect(printed).toBeDefined();
    expect((await api(printed!, '/v2/user')).status).toBe(200);
    // Only hashes are stored: the value is nowhere in the database.
    const stored = await stack.db.query(`SELECT count(*)::int AS n FROM team_api_keys WHERE team_id = $1 AND key_prefix = $2`, [teamId, printed!.slice(0, 10)]);
    expect(stored).toEqual([{ n: 1 }]);
  });

  test('a revoked team API key is refused by the API (401); revoking it again is "not found"', async () => {
    const created = await cli('key', 'create', '--team', tenant.teamId, '--json');
    expect(created.code).toBe(EXIT.ok);
    expect((await api(created.json.key, '/v2/user')).status).toBe(200);

    const revoked = await cli('key', 'revoke', created.json.id);
    expect(revoked.code).toBe(EXIT.ok);
    expect(revoked.stdout).toContain(`revoked team api key ${created.json.id}`);
    expect(revoked.stdout).not.toContain(created.json.key);
    expect((await api(created.json.key, '/v2/user')).status).toBe(401);

    const again = await cli('key', 'revoke', created.json.id, '--json');
    expect(again.code).toBe(EXIT.notFound);
    expect(again.stdout).toBe('');
    expect(JSON.parse(again.stderr)).toEqual({ error: `No unrevoked management key or team API key has id ${created.json.id}.`, exit_code: EXIT.notFound });
  });

  test('rotating a management key: the new one works, the old one is refused; the last org key cannot be revoked', async () => {
    const org = (await cli('org', 'create', '--name', 'Rotation Org', '--json')).json;
    const first = (await cli('key', 'create', '--org', org.id, '--json')).json;
    expect((await management(first.key, `/v1/org/${org.id}`)).status).toBe(200);

    const rotated = await cli('key', 'rotate', first.id, '--json');
    expect(rotated.code).toBe(EXIT.ok);
    expect(rotated.json.revoked).toMatchObject({ id: first.id, kind: 'management_key' });
    expect(rotated.json.revoked.key).toBeUndefined();
    expect(rotated.json.created).toMatchObject({ kind: 'management_key', org_id: org.id, role: 'org_admin', label: first.label });
    expect((await management(first.key, `/v1/org/${org.id}`)).status).toBe(401);
    expect((await management(rotated.json.created.key, `/v1/org/${org.id}`)).status).toBe(200);

    const refused = await cli('key', 'revoke', rotated.json.created.id);
    expect(refused.code).toBe(EXIT.refused);
    expect(refused.stderr).toMatch(/^labflow: This is the org's last org_admin key/);
    expect((await management(rotated.json.created.key, `/v1/org/${org.id}`)).status).toBe(200);
  });

  test('usage errors, unknown ids and refusals have their own exit codes and say why on stderr', async () => {
    const [neither, badId, unknownCommand, badPlan, noTeamOrg, taken, help] = await Promise.all([
      cli('key', 'create'),
      cli('order', 'story', 'not-a-uuid'),
      spawned('no-such-command'),
      cli('org', 'create', '--name', 'x', '--plan', 'gold'),
      cli('team', 'create', '--org', randomUUID(), '--name', 'Nowhere'),
      cli('org', 'create', '--name', 'Twice', '--id', tenant.orgId),
      spawned('--help'),
    ]);
    expect(neither.code).toBe(EXIT.usage);
    expect(neither.stderr).toContain('give exactly one of --org <uuid> or --team <uuid>');
    expect(badId.code).toBe(EXIT.usage);
    expect(badId.stderr).toContain('must be a UUID');
    expect(unknownCommand.code).toBe(EXIT.usage);
    expect(unknownCommand.stderr).toContain("unknown command 'no-such-command'");
    expect(badPlan.code).toBe(EXIT.usage);
    expect(noTeamOrg.code).toBe(EXIT.notFound);
    expect(noTeamOrg.stderr).toBe('labflow: Org not found.\n');
    expect(taken.code).toBe(EXIT.refused);
    expect(taken.stderr).toBe(`labflow: An org with id ${tenant.orgId} already exists.\n`);
    expect(help.code).toBe(EXIT.ok);
    expect(help.stdout).toContain('phi-log');
    expect(await stack.db.query(`SELECT count(*)::int AS n FROM orgs WHERE name IN ('x', 'Twice')`)).toEqual([{ n: 0 }]);
  });
});

describe('orders: story, PHI access log, delivery replay', () => {
  let orderId: string;
  let endpointId: string;

  beforeAll(async () => {
    // The receiver refuses everything until told otherwise: the order's deliveries exhaust.
    receiver.respond('/ops', () => ({ status: 500 }));
    const webhooks = teamManagementApi(stack, tenant, 'sandbox');
    const endpoint = await webhooks('POST', '/webhook', { url: receiver.url('/ops'), filter_types: ['labtest.order.created'] });
    expect(endpoint.status).toBe(200);
    endpointId = endpoint.body.id;
    receiver.secret('/ops', (await webhooks('GET', `/webhook/${endpointId}/secret`)).body.key);

    const created = await call(stack.apiUrl, 'POST', '/v3/order', { key: tenant.apiKey, body: orderBody(userId) });
    expect(created.status).toBe(200);
    orderId = created.body.order.id;
  });

  /** The status of the order's labtest.order.created delivery, from the database. */
  async function createdDeliveryStatus(): Promise<string | undefined> {
    const rows: Array<{ status: string }> = await stack.db.query(
      `SELECT d.status FROM event_deliveries d JOIN event_outbox o ON o.id = d.event_id
        WHERE o.subject_id = $1 AND o.event_type = 'labtest.order.created'`,
      [orderId],
    );
    return rows[0]?.status;
  }

  test('order story --json lists the order, its events, deliveries with attempts and the workflow link; no PHI', async () => {
    await waitFor(async () => (await createdDeliveryStatus()) === 'exhausted');
    const [story, human, missing] = await Promise.all([
      cli('order', 'story', orderId, '--json'),
      cli('order', 'story', orderId),
      cli('order', 'story', randomUUID()),
    ]);
    expect(story.code).toBe(EXIT.ok);
    expect(story.json.order).toMatchObject({ id: orderId, team_id: tenant.teamId, user_id: userId, environment: 'sandbox' });
    expect(story.json.events.length).toBeGreaterThanOrEqual(1);
    expect(story.json.events[0]).toMatchObject({ seq: 1 });
    expect(story.json.outbox.map((event: any) => event.event_type)).toContain('labtest.order.created');
    const delivery = story.json.outbox.find((event: any) => event.event_type === 'labtest.order.created').deliveries[0];
    expect(delivery).toMatchObject({ target: 'webhook', endpoint_id: endpointId, status: 'exhausted', attempt_count: 2 });
    expect(delivery.attempts.map((attempt: any) => [attempt.attempt_number, attempt.status, attempt.response_status_code])).toEqual([
      [1, 'failed', 500],
      [2, 'failed', 500],
    ]);
    expect(story.json.workflow).toEqual({
      id: `order:${orderId}`,
      namespace: stack.config.temporal.namespace,
      ui_url: `http://temporal-ui.example:8233/namespaces/${stack.config.temporal.namespace}/workflows/order:${orderId}`,
    });
    expect(story.stdout).not.toContain('Marguerite');

    expect(human.code).toBe(EXIT.ok);
    expect(human.stdout).toContain(`delivery ${delivery.id} to webhook endpoint ${endpointId}: exhausted`);
    expect(human.stdout).toContain(`/workflows/order:${orderId}`);
    expect(human.stdout).not.toContain('Marguerite');

    expect(missing.code).toBe(EXIT.notFound);
  });

  test('delivery replay sends an exhausted delivery again; the receiver gets it with the same webhook id', async () => {
    const story = (await cli('order', 'story', orderId, '--json')).json;
    const event = story.outbox.find((row: any) => row.event_type === 'labtest.order.created');
    const delivery = event.deliveries[0];
    expect(delivery.status).toBe('exhausted');
    receiver.respond('/ops', () => ({ status: 200 }));

    const replayed = await cli('delivery', 'replay', delivery.id, '--json');
    expect(replayed.code).toBe(EXIT.ok);
    expect(replayed.json).toMatchObject({ delivery_id: delivery.id, event_id: event.id, previous_status: 'exhausted', attempt_count: 2 });

    const [received] = await waitFor(() => receiver.accepted('/ops').length > 0 && receiver.accepted('/ops'));
    expect(received.webhookId).toBe(event.id);
    expect(received.verified).toBe(true);
    await waitFor(async () => (await createdDeliveryStatus()) === 'succeeded');
    const after = (await cli('order', 'story', orderId, '--json')).json.outbox.find((row: any) => row.id === event.id).deliveries[0];
    expect(after).toMatchObject({ status: 'succeeded', attempt_count: 3 });
    expect(after.attempts[2]).toMatchObject({ attempt_number: 3, trigger: 'manual', status: 'succeeded', response_status_code: 200 });

    expect((await cli('delivery', 'replay', randomUUID())).code).toBe(EXIT.notFound);
  });

  test('phi-log shows who read the order, with which key, by order and by user', async () => {
    expect((await call(stack.apiUrl, 'GET', `/v3/order/${orderId}`, { key: tenant.apiKey })).status).toBe(200);
    const before = await cli('phi-log', 'user', userId, '--json');
    const info = {
      first_name: 'Ann',
      last_name: 'Lee',
      email: 'ann@example.com',
      phone_number: '+14155550123',
      gender: 'female',
      dob: '1990-01-01',
      address: { first_line: '1 A St', country: 'US', zip: '94105', city: 'SF', state: 'CA' },
    };
    expect((await call(stack.apiUrl, 'PATCH', `/v2/user/${userId}/info`, { key: tenant.apiKey, body: info })).status).toBe(200);
    const withInfo = await cli('phi-log', 'user', userId, '--json');
    expect(withInfo.json).toEqual([
      ...before.json,
      expect.objectContaining({ action: 'write', resource: 'user_info', resource_id: userId, api_key: expect.objectContaining({ id: tenant.apiKeyId }) }),
    ]);
    const [byOrder, byUser, human, unknownUser] = await Promise.all([
      cli('phi-log', 'order', orderId, '--json'),
      cli('phi-log', 'user', userId, '--json'),
      cli('phi-log', 'user', userId),
      cli('phi-log', 'user', randomUUID()),
    ]);
    expect(byOrder.code).toBe(EXIT.ok);
    expect(byOrder.json).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ action: 'write', resource: 'order', resource_id: orderId, team_id: tenant.teamId }),
        expect.objectContaining({ action: 'read', resource: 'order', resource_id: orderId, api_key: expect.objectContaining({ id: tenant.apiKeyId }) }),
      ]),
    );
    expect(byUser.code).toBe(EXIT.ok);
    expect(byUser.json.filter((row: { resource: string }) => row.resource === 'order')).toEqual(byOrder.json);
    expect(human.stdout).toMatch(new RegExp(`read\\s+order ${orderId}\\s+team ${tenant.teamId}\\s+key ${tenant.apiKeyId}`));
    expect(unknownUser.code).toBe(EXIT.notFound);
  });
});
