import { randomUUID } from 'node:crypto';
import { PhiCipher } from '../../src/common/crypto';
import { type EventProcessing, startEventProcessing } from '../../src/events/event-processing';
import { call, createTenant, type HttpResult, startStack, type Tenant, type TestStack } from '../helpers/stack';
import { type ReceivedRequest, WebhookReceiver, waitFor } from '../helpers/webhook-receiver';

/**
 * Timeseries events at volume: the samples of one (user, resource, provider, source type) are
 * gathered across requests for HEALTH_DATA_EVENT_WINDOW into one webhook, bounded by
 * HEALTH_DATA_EVENT_MAX_SAMPLES / _MAX_BYTES; a gathering batch lives in Postgres, so nothing is
 * lost when the processes around it stop.
 *
 * The window is long here (60 s) so that every request of a test surely falls into it however
 * slow the machine; the tests then let it pass by moving the batch's due time, which is what a
 * closing window amounts to (the relay sends what is due).
 */
const MAX_SAMPLES = 40;
const MAX_BYTES = 8192;

let stack: TestStack;
let tenant: Tenant;
let receiver: WebhookReceiver;
const day = '2026-11-20';

beforeAll(async () => {
  stack = await startStack({
    worker: false,
    management: true,
    events: true,
    env: {
      HEALTH_DATA_EVENT_WINDOW: '60s',
      HEALTH_DATA_EVENT_MAX_SAMPLES: String(MAX_SAMPLES),
      HEALTH_DATA_EVENT_MAX_BYTES: String(MAX_BYTES),
      EVENTS_RELAY_POLL_INTERVAL: '200ms',
    },
  });
  tenant = await createTenant(stack.db);
  receiver = await WebhookReceiver.start();
  const management = (method: string, path: string, body?: unknown): Promise<HttpResult> =>
    call(stack.managementUrl, method, `/v1/org/${tenant.orgId}/team/${tenant.teamId}/sandbox${path}`, {
      headers: { 'X-Management-Key': tenant.managementKey },
      body,
    });
  const created = await management('POST', '/webhook', { url: receiver.url('/data') });
  expect(created.status).toBe(200);
  receiver.secret('/data', (await management('GET', `/webhook/${created.body.id}/secret`)).body.key);
});
afterAll(async () => {
  await stack?.close();
  await receiver?.close();
});

const api = (method: string, path: string, body?: object) => call(stack.apiUrl, method, path, { key: tenant.apiKey, body });

async function createUser(): Promise<string> {
  const response = await api('POST', '/v2/user', { client_user_id: `events-${randomUUID()}` });
  expect(response.status).toBe(200);
  return response.body.user_id as string;
}

/** `count` minute samples of heart rate from `fromMinute` (08:00 + minutes), values from `base`. */
function minutes(fromMinute: number, count: number, base = 60) {
  return Array.from({ length: count }, (_, i) => ({
    timestamp: new Date(Date.parse(`${day}T08:00:00Z`) + (fromMinute + i) * 60_000).toISOString(),
    value: base + i,
  }));
}

async function ingest(userId: string, body: object): Promise<void> {
  const response = await api('POST', `/v2/timeseries/${userId}/heartrate`, body);
  expect(response.status).toBe(200);
}

/** The user's batches still gathering or waiting to be sent. */
async function pending(userId: string): Promise<Array<{ event_type: string; open: boolean; item_count: number; window_s: number }>> {
  return stack.db.query(
    `SELECT event_type, open, item_count, round(extract(epoch FROM flush_at - created_at))::int AS window_s
       FROM event_batches WHERE user_id = $1 ORDER BY seq`,
    [userId],
  );
}

/** Lets the user's gathering windows pass (their batches are due now) and wakes the relay. */
async function closeWindows(userId: string): Promise<void> {
  await stack.db.query(`UPDATE event_batches SET flush_at = clock_timestamp() WHERE user_id = $1`, [userId]);
  await stack.db.query(`SELECT pg_notify('labflow_outbox', '')`);
}

const webhooksFor = (userId: string): ReceivedRequest[] => receiver.forPath('/data').filter((request) => request.json?.data?.user_id === userId);

test('several requests within the window arrive as one webhook holding all their samples', async () => {
  const userId = await createUser();
  await ingest(userId, { provider: 'apple_health_kit', source_type: 'watch', data: minutes(0, 5) });
  await ingest(userId, { provider: 'apple_health_kit', source_type: 'watch', data: minutes(5, 5) });
  await ingest(userId, { provider: 'apple_health_kit', source_type: 'watch', data: minutes(10, 5) });
  // Another provider is another event.
  await ingest(userId, { provider: 'fitbit', data: minutes(0, 3, 90) });

  // Nothing sent yet: one batch per provider, gathering, due a window after its first samples.
  expect(await pending(userId)).toEqual([
    { event_type: 'daily.data.heartrate.created', open: true, item_count: 15, window_s: 60 },
    { event_type: 'daily.data.heartrate.created', open: true, item_count: 3, window_s: 60 },
  ]);
  expect(webhooksFor(userId)).toHaveLength(0);

  await closeWindows(userId);
  const webhooks = await waitFor(() => webhooksFor(userId).length >= 2 && webhooksFor(userId), { describe: () => webhooksFor(userId).length });
  await new Promise((resolve) => setTimeout(resolve, 500)); // anything duplicated would show up now
  expect(webhooksFor(userId)).toHaveLength(2);
  expect(webhooks.every((request) => request.verified)).toBe(true);
  const apple = webhooks.find((request) => request.json.data.source.slug === 'apple_health_kit')!;
  expect(apple.json.event_type).toBe('daily.data.heartrate.created');
  expect(Object.keys(apple.json.data)).toEqual(['data', 'source_id', 'source', 'user_id']);
  expect(apple.json.data.user_id).toBe(userId);
  expect(apple.json.data.source).toMatchObject({ slug: 'apple_health_kit', type: 'watch' });
  expect(apple.json.data.data.map((sample: { value: number }) => sample.value)).toEqual(
    [...minutes(0, 5), ...minutes(5, 5), ...minutes(10, 5)].map((s) => s.value),
  );
  expect(apple.json.data.data[0]).toMatchObject({ timestamp: expect.stringContaining(`${day}T08:00:00`), value: 60, unit: 'bpm' });
  const fitbit = webhooks.find((request) => request.json.data.source.slug === 'fitbit')!;
  expect(fitbit.json.data.data.map((sample: { value: number }) => sample.value)).toEqual([90, 91, 92]);
  expect(await pending(userId)).toEqual([]);
});

test('updates of stored samples go out as `updated`, not a second `created`; one sample sent twice in a window goes out once, latest value', async () => {
  const userId = await createUser();
  await ingest(userId, { provider: 'oura', data: minutes(0, 4) });
  await closeWindows(userId);
  await waitFor(() => webhooksFor(userId).length === 1);

  // Minute 3 again (an incomplete bucket, updated twice), and minute 4 for the first time.
  await ingest(userId, { provider: 'oura', data: [{ ...minutes(3, 1)[0], value: 70 }] });
  await ingest(userId, { provider: 'oura', data: [{ ...minutes(3, 1)[0], value: 71 }, ...minutes(4, 1, 80)] });
  expect((await pending(userId)).map((batch) => [batch.event_type, batch.item_count])).toEqual([['daily.data.heartrate.updated', 3]]);
  await closeWindows(userId);
  await waitFor(() => webhooksFor(userId).length === 2);
  const [created, updated] = webhooksFor(userId);
  expect(created.json.event_type).toBe('daily.data.heartrate.created');
  expect(updated.json.event_type).toBe('daily.data.heartrate.updated');
  expect(updated.json.data.data.map((sample: { value: number }) => sample.value)).toEqual([71, 80]);
});

test('a request over the bounds becomes several events, each under them; the full ones go at once', async () => {
  const userId = await createUser();
  await ingest(userId, { provider: 'garmin', data: minutes(0, 2 * MAX_SAMPLES + 10) });

  // Two full batches sealed (due now), the rest gathering for the window.
  await waitFor(() => webhooksFor(userId).length === 2, { describe: () => webhooksFor(userId).length });
  expect(await pending(userId)).toEqual([{ event_type: 'daily.data.heartrate.created', open: true, item_count: 10, window_s: 60 }]);
  await closeWindows(userId);
  const webhooks = await waitFor(() => webhooksFor(userId).length === 3 && webhooksFor(userId));
  for (const request of webhooks) {
    expect(request.json.data.data.length).toBeLessThanOrEqual(MAX_SAMPLES);
    expect(JSON.stringify(request.json.data.data).length).toBeLessThanOrEqual(MAX_BYTES + 1);
  }
  const values = webhooks.flatMap((request) => request.json.data.data.map((sample: { value: number }) => sample.value)).sort((a: number, b: number) => a - b);
  expect(values).toEqual(minutes(0, 2 * MAX_SAMPLES + 10).map((sample) => sample.value));
  expect(new Set(webhooks.map((request) => request.webhookId)).size).toBe(3);
});

test("a backfill's last chunk sends what it gathered, then historical.data", async () => {
  const userId = await createUser();
  const backfill = { provider: 'withings', stage: 'historical', start_date: '2026-11-01', end_date: day };
  await ingest(userId, { ...backfill, is_final_chunk: false, data: minutes(0, 5) });
  await ingest(userId, { ...backfill, is_final_chunk: true, data: minutes(5, 5) });
  const webhooks = await waitFor(() => webhooksFor(userId).length === 2 && webhooksFor(userId), {
    describe: () => webhooksFor(userId).map((r) => [r.json.event_type, r.json.data.data?.length]),
  });
  expect(webhooks.map((request) => request.json.event_type)).toEqual(['daily.data.heartrate.created', 'historical.data.heartrate.created']);
  expect(webhooks[0].json.data.data).toHaveLength(10);
  expect(webhooks[1].json.data).toMatchObject({ user_id: userId, start_date: '2026-11-01', end_date: day, is_final: true });
});

test('a stored workout stream is announced by a shallow daily.data.workout_stream.created after the workout', async () => {
  const userId = await createUser();
  const workout = {
    calendar_date: day,
    time_start: `${day}T17:00:00Z`,
    time_end: `${day}T17:45:00Z`,
    provider_id: 'run-7',
    sport: { id: 1, name: 'Running', slug: 'running' },
    stream: { time: [0, 60, 120], heartrate: [120, 140, 150] },
  };
  expect((await api('POST', `/v2/summary/workouts/${userId}`, { provider: 'garmin', data: [workout] })).status).toBe(200);
  // Without a stream: the workout's event only.
  expect(
    (await api('POST', `/v2/summary/workouts/${userId}`, { provider: 'garmin', data: [{ ...workout, provider_id: 'walk-1', stream: undefined }] })).status,
  ).toBe(200);
  const webhooks = await waitFor(() => webhooksFor(userId).length >= 3 && webhooksFor(userId), {
    describe: () => webhooksFor(userId).map((r) => r.json.event_type),
  });
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(
    webhooksFor(userId)
      .map((request) => request.json.event_type)
      .sort(),
  ).toEqual(['daily.data.workout_stream.created', 'daily.data.workouts.created', 'daily.data.workouts.created']);
  const run = webhooks.find((request) => request.json.event_type === 'daily.data.workouts.created' && request.json.data.provider_id === 'run-7')!;
  const announced = webhooks.find((request) => request.json.event_type === 'daily.data.workout_stream.created')!;
  expect(announced.json.data).toEqual({
    message: expect.any(String),
    provider_id: 'run-7',
    sport: { id: 1, name: 'Running', slug: 'running' },
    workout_id: run.json.data.id,
    source: expect.objectContaining({ slug: 'garmin' }),
    user_id: userId,
  });
  expect(announced.verified).toBe(true);
  // What it announces can be read.
  const stream = await api('GET', `/v2/timeseries/workouts/${run.json.data.id}/stream`);
  expect(stream.body).toMatchObject({ time: [0, 60, 120], heartrate: [120, 140, 150] });
});

test('a gathering batch survives the relay and delivery worker dying: a new one sends it once', async () => {
  const userId = await createUser();
  await ingest(userId, { provider: 'polar', data: minutes(0, 6) });
  expect(await pending(userId)).toHaveLength(1);

  // The background side dies (abandoning whatever it held, as SIGKILL would); the window passes
  // while nothing runs. The API held nothing: the batch was committed with the samples.
  await stack.events!.stop(true);
  await closeWindows(userId);
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(webhooksFor(userId)).toHaveLength(0);

  let restarted: EventProcessing | null = null;
  try {
    restarted = startEventProcessing(
      { db: stack.db, cipher: stack.api.get(PhiCipher), config: stack.config },
      { teams: stack.eventTeams, logger: { warn: () => undefined } },
    );
    const [webhook] = await waitFor(() => webhooksFor(userId).length === 1 && webhooksFor(userId));
    expect(webhook.json.data.data).toHaveLength(6);
    expect(webhook.verified).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(webhooksFor(userId)).toHaveLength(1);
    expect(await pending(userId)).toEqual([]);
  } finally {
    await restarted?.stop();
  }
});
