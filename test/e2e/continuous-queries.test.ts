import { VitalClient } from '@tryvital/vital-node';
import { randomUUID } from 'node:crypto';
import { ContinuousQueryRunner, startContinuousQueries } from '../../src/health-data/continuous-queries/continuous-query-runner';
import { call, createTenant, startStack, subscribeWebhooks, teamManagementApi, type TeamManagementApi, type Tenant, type TestStack } from '../helpers/stack';
import { type ReceivedRequest, WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

/**
 * Continuous queries: a team defines an aggregation query once (management API); each time a
 * user's data that the query reads changes, labflow evaluates it again for that user (after
 * CONTINUOUS_QUERY_DEBOUNCE) and sends `continuous_query.result_table.changed` when the answer
 * differs from the last one. The API reads the table and the evaluations through the SDK's
 * `client.aggregate.getResultTableForContinuousQuery` / `getTaskHistoryForContinuousQuery`.
 *
 * The debounce is long here (60 s) so that every request of a test surely falls into it however
 * slow the machine; the tests then let it pass by making the waiting task due (`dueNow`), which
 * is what the end of the debounce amounts to.
 */
let stack: TestStack;
let tenant: Tenant;
let client: VitalClient;
let receiver: WebhookReceiver;
let runner: { stop(): Promise<void> };
let management: TeamManagementApi;

/** Yesterday (UTC): inside a 7-day window ending today, and never in the future. */
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
const heartrate = { timeseries: 'heartrate', field: 'value' } as const;
const meanAndCount = {
  slug: 'resting-hr-7d',
  query: {
    select: [
      { arg: heartrate, func: 'mean' },
      { arg: heartrate, func: 'count' },
    ],
  },
  past: { value: 7, unit: 'day' },
};

beforeAll(async () => {
  stack = await startStack({
    worker: false,
    management: true,
    events: true,
    env: { CONTINUOUS_QUERY_DEBOUNCE: '60s', HEALTH_DATA_EVENT_WINDOW: '60s', EVENTS_RELAY_POLL_INTERVAL: '200ms' },
  });
  tenant = await createTenant(stack.db);
  client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, headers: { 'x-service-api-key': tenant.apiKey }, maxRetries: 0 });
  management = teamManagementApi(stack, tenant, 'sandbox');
  receiver = await WebhookReceiver.start();
  await subscribeWebhooks(stack, tenant, 'sandbox', receiver, '/cq', ['continuous_query.result_table.changed']);
  runner = startContinuousQueries(stack.api.get(ContinuousQueryRunner), 100, (message) => console.warn(message));
}, 120_000);
afterAll(async () => {
  await runner?.stop();
  await stack?.close();
  await receiver?.close();
});

const api = (method: string, path: string, body?: object, key = tenant.apiKey) => call(stack.apiUrl, method, path, { key, body });

async function createUser(): Promise<string> {
  const response = await api('POST', '/v2/user', { client_user_id: `cq-${randomUUID()}` });
  expect(response.status).toBe(200);
  return response.body.user_id as string;
}

async function heartRate(userId: string, values: number[], fromMinute = 0): Promise<void> {
  const data = values.map((value, i) => ({ timestamp: new Date(Date.parse(`${yesterday}T08:00:00Z`) + (fromMinute + i) * 60_000).toISOString(), value }));
  expect((await api('POST', `/v2/timeseries/${userId}/heartrate`, { data })).status).toBe(200);
}

/** Lets the user's waiting evaluations' debounce pass (the runner takes them at its next pass). */
async function dueNow(userId: string): Promise<void> {
  await stack.db.query(`UPDATE continuous_query_tasks SET due_at = clock_timestamp() WHERE user_id = $1 AND status = 'scheduled'`, [userId]);
}

const changesFor = (userId: string): ReceivedRequest[] => receiver.forPath('/cq').filter((request) => request.json?.user_id === userId);

/** The user's evaluations of the query once none is waiting or running, newest first. */
async function settledHistory(userId: string, slug: string, count: number) {
  return waitFor(
    async () => {
      const history = await client.aggregate.getTaskHistoryForContinuousQuery(userId, slug, { limit: 100 });
      return history.data.length >= count && history.data.every((task) => task.status === 'completed' || task.status === 'error') && history;
    },
    { describe: async () => (await client.aggregate.getTaskHistoryForContinuousQuery(userId, slug, { limit: 100 })).data },
  );
}

describe('defining continuous queries (management API)', () => {
  test('creates, lists, reads, patches and deletes a query; a slug is unique per team and environment', async () => {
    const created = await management('POST', '/continuous_query', { ...meanAndCount, slug: 'crud-check' });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      slug: 'crud-check',
      query: meanAndCount.query,
      past: { value: 7, unit: 'day' },
      reads: 'timeseries:heartrate',
      team_id: tenant.teamId,
    });
    expect((await management('POST', '/continuous_query', { ...meanAndCount, slug: 'crud-check' })).status).toBe(409);

    const listed = await management('GET', '/continuous_query');
    expect(listed.body.data.map((query: { slug: string }) => query.slug)).toContain('crud-check');
    expect((await management('GET', `/continuous_query/${created.body.id}`)).body.slug).toBe('crud-check');

    const sleepQuery = { select: [{ arg: { sleep: 'duration_second' }, func: 'mean' }] };
    const patched = await management('PATCH', '/continuous_query/crud-check', { slug: 'crud-check-2', query: sleepQuery });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ id: created.body.id, slug: 'crud-check-2', reads: 'summary:sleep', query: sleepQuery });

    expect((await management('DELETE', `/continuous_query/${created.body.id}`)).status).toBe(204);
    expect((await management('GET', '/continuous_query/crud-check-2')).status).toBe(404);
  });

  test('a query labflow cannot answer is a 422 naming where, and nothing is stored', async () => {
    const twoTables = {
      select: [
        { arg: heartrate, func: 'mean' },
        { arg: { sleep: 'duration_second' }, func: 'mean' },
      ],
    };
    const refused = await management('POST', '/continuous_query', { slug: 'two-tables', query: twoTables, past: { value: 1, unit: 'day' } });
    expect(refused.status).toBe(422);
    expect(refused.body.detail[0].loc).toEqual(['body', 'query', 'select', 1, 'arg']);
    expect(refused.body.detail[0].msg).toMatch(/reads one table/);
    const badSlug = await management('POST', '/continuous_query', { ...meanAndCount, slug: 'Has Spaces' });
    expect(badSlug.status).toBe(422);
    expect(badSlug.body.detail[0].loc).toEqual(['body', 'slug']);
    expect((await management('GET', '/continuous_query/two-tables')).status).toBe(404);
  });
});

describe('evaluating a query when the data it reads changes', () => {
  let queryId: string;
  beforeAll(async () => {
    const created = await management('POST', '/continuous_query', meanAndCount);
    expect(created.status).toBe(200);
    queryId = created.body.id;
  });

  test('new samples send one signed result_table.changed with the table; the SDK reads the same table and the task', async () => {
    const userId = await createUser();
    // Two requests inside the debounce: one evaluation.
    await heartRate(userId, [60, 70]);
    await heartRate(userId, [80], 2);
    const waiting = await client.aggregate.getTaskHistoryForContinuousQuery(userId, 'resting-hr-7d');
    expect(waiting.data.map((task) => task.status)).toEqual(['scheduled']);
    await dueNow(userId);
    const [change] = await waitFor(() => changesFor(userId).length >= 1 && changesFor(userId), { describe: () => changesFor(userId).length });
    expect(change.verified).toBe(true);
    expect(change.json).toEqual({
      event_type: 'continuous_query.result_table.changed',
      team_id: tenant.teamId,
      user_id: userId,
      client_user_id: expect.stringMatching(/^cq-/),
      data: [{ query_id: queryId, query_slug: 'resting-hr-7d', data: { 'mean(heartrate.value)': [70], 'count(heartrate.value)': [3] } }],
    });

    const { table } = await client.aggregate.getResultTableForContinuousQuery(userId, 'resting-hr-7d');
    expect(table).toEqual({ 'mean(heartrate.value)': [70], 'count(heartrate.value)': [3] });
    // By id as well as by slug.
    expect((await client.aggregate.getResultTableForContinuousQuery(userId, queryId)).table).toEqual(table);

    const history = await settledHistory(userId, 'resting-hr-7d', 1);
    expect(history.data).toHaveLength(1);
    expect(history.data[0]).toMatchObject({ queryId, userId, status: 'completed' });
    expect(history.data[0].endedAt!.getTime()).toBeGreaterThanOrEqual(history.data[0].startedAt!.getTime());
  });

  test('an evaluation whose answer did not change sends nothing; the next change sends the new table', async () => {
    const userId = await createUser();
    await heartRate(userId, [50, 70]);
    await dueNow(userId);
    await waitFor(() => changesFor(userId).length >= 1);
    await settledHistory(userId, 'resting-hr-7d', 1);

    // The same samples again: evaluated, same answer, no event (the event would have been
    // written with the task's completion, in one transaction).
    await heartRate(userId, [50, 70]);
    await dueNow(userId);
    await settledHistory(userId, 'resting-hr-7d', 2);
    const sent = await stack.db.query(
      `SELECT count(*)::int AS n FROM event_outbox WHERE user_id = $1 AND event_type = 'continuous_query.result_table.changed'`,
      [userId],
    );
    expect(sent[0].n).toBe(1);

    // A replaced value changes the answer.
    await heartRate(userId, [90], 1);
    await dueNow(userId);
    const changes = await waitFor(() => changesFor(userId).length >= 2 && changesFor(userId));
    expect(changes.map((request) => request.json.data[0].data['mean(heartrate.value)'][0]).sort()).toEqual([60, 70]);
    expect(new Set(changes.map((request) => request.webhookId)).size).toBe(2);
    const history = await settledHistory(userId, 'resting-hr-7d', 3);
    expect(history.data.map((task) => task.status)).toEqual(['completed', 'completed', 'completed']);
    // Newest first, paged by next_cursor.
    const first = await client.aggregate.getTaskHistoryForContinuousQuery(userId, 'resting-hr-7d', { limit: 2 });
    expect(first.data).toHaveLength(2);
    const rest = await client.aggregate.getTaskHistoryForContinuousQuery(userId, 'resting-hr-7d', { limit: 2, nextCursor: first.nextCursor! });
    expect(rest.data).toHaveLength(1);
    expect(rest.nextCursor ?? null).toBeNull();
    expect(first.data[0].scheduledAt.getTime()).toBeGreaterThanOrEqual(rest.data[0].scheduledAt.getTime());
  });

  test('data the query does not read schedules nothing', async () => {
    const userId = await createUser();
    expect(
      (await api('POST', `/v2/timeseries/${userId}/steps`, { data: [{ start: `${yesterday}T08:00:00Z`, end: `${yesterday}T09:00:00Z`, value: 500 }] })).status,
    ).toBe(200);
    const history = await client.aggregate.getTaskHistoryForContinuousQuery(userId, 'resting-hr-7d');
    expect(history.data).toEqual([]);
  });

  test('a query answering more rows than labflow allows ends its task in error, with the reason', async () => {
    const perMinute = {
      select: [{ group_key: 0 }, { arg: heartrate, func: 'max' }],
      group_by: [{ date_trunc: { value: 1, unit: 'minute' }, arg: { index: 'timeseries' } }],
    };
    expect((await management('POST', '/continuous_query', { slug: 'per-minute', query: perMinute, past: { value: 30, unit: 'day' } })).status).toBe(200);
    const userId = await createUser();
    await heartRate(
      userId,
      Array.from({ length: 10_001 }, (_, i) => 50 + (i % 50)),
      -10_000,
    );
    await dueNow(userId);
    const history = await settledHistory(userId, 'per-minute', 1);
    expect(history.data[0]).toMatchObject({ status: 'error', errorDetails: expect.stringMatching(/more than 10000 rows/) });
    const read = await api('GET', `/aggregate/v1/user/${userId}/continuous_query/per-minute/result_table`);
    expect(read.status).toBe(422);
    expect(read.body.detail[0].msg).toMatch(/more than 10000 rows/);
  });

  test('a task whose runner died mid-evaluation is evaluated again once its lease runs out', async () => {
    const userId = await createUser();
    // What a runner that crashed after claiming leaves behind: a started task past its lease.
    const [task] = await stack.db.query(
      `INSERT INTO continuous_query_tasks (id, query_id, user_id, status, started_at, attempts, due_at)
       VALUES (gen_random_uuid(), $1, $2, 'started', now() - interval '10 minutes', 1, now() - interval '1 second') RETURNING id`,
      [queryId, userId],
    );
    await heartRate(userId, [64], 0);
    await dueNow(userId);
    await waitFor(() => changesFor(userId).length >= 1);
    const history = await settledHistory(userId, 'resting-hr-7d', 2);
    expect(history.data.every((entry) => entry.status === 'completed')).toBe(true);
    const [row] = await stack.db.query(`SELECT attempts, status FROM continuous_query_tasks WHERE id = $1`, [task.id]);
    expect(row).toEqual({ attempts: 2, status: 'completed' });
  });
});

describe('team scoping', () => {
  test("another team's user or query is a 404; an unknown query is a 404", async () => {
    const userId = await createUser();
    const other = await createTenant(stack.db);
    const otherUser = (await call(stack.apiUrl, 'POST', '/v2/user', { key: other.apiKey, body: { client_user_id: `cq-${randomUUID()}` } })).body.user_id;
    expect((await teamManagementApi(stack, other, 'sandbox')('POST', '/continuous_query', { ...meanAndCount, slug: 'their-query' })).status).toBe(200);

    expect((await api('GET', `/aggregate/v1/user/${otherUser}/continuous_query/resting-hr-7d/result_table`)).status).toBe(404);
    expect((await api('GET', `/aggregate/v1/user/${userId}/continuous_query/their-query/result_table`)).status).toBe(404);
    expect((await api('GET', `/aggregate/v1/user/${userId}/continuous_query/their-query/task_history`)).status).toBe(404);
    expect((await api('GET', `/aggregate/v1/user/${userId}/continuous_query/no-such-query/task_history`)).status).toBe(404);
    // Another org's management key cannot see this team's queries.
    expect((await teamManagementApi(stack, { ...tenant, managementKey: other.managementKey }, 'sandbox')('GET', '/continuous_query')).status).toBe(404);
  });
});
