import { VitalClient } from '@tryvital/vital-node';
import { randomUUID } from 'node:crypto';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * Junction's aggregation API (`client.aggregate.queryOne`) over data ingested through the API:
 * aggregates over a timeframe, per time bucket, per part of the day, per source; sleep and
 * activity summaries; and a 422 naming what labflow cannot answer.
 */
let stack: TestStack;
let tenant: Tenant;
let client: VitalClient;
let userId: string;

const api = (method: string, path: string, body?: object, key = tenant.apiKey) => call(stack.apiUrl, method, path, { key, body });
const query = (body: object, user = userId, key = tenant.apiKey) => api('POST', `/aggregate/v1/user/${user}/query`, body, key);
const lastTwoDays = { type: 'relative' as const, anchor: '2026-11-21', past: { value: 2, unit: 'day' as const } };

beforeAll(async () => {
  stack = await startStack({ worker: false });
  tenant = await createTenant(stack.db);
  client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, headers: { 'x-service-api-key': tenant.apiKey }, maxRetries: 0 });
  userId = (await api('POST', '/v2/user', { client_user_id: `aggregate-${randomUUID()}` })).body.user_id;
  // Heart rate: 60, 70, 80 on the 20th (08:00, 08:30, 14:00 UTC) from the ring; 90, 100 on the 21st (08:00, 09:00) from the watch.
  const ring = [
    ['2026-11-20T08:00:00Z', 60],
    ['2026-11-20T08:30:00Z', 70],
    ['2026-11-20T14:00:00Z', 80],
  ];
  const watch = [
    ['2026-11-21T08:00:00Z', 90],
    ['2026-11-21T09:00:00Z', 100],
  ];
  for (const [provider, sourceType, samples] of [
    ['oura', 'ring', ring],
    ['fitbit', 'watch', watch],
  ] as const) {
    const stored = await api('POST', `/v2/timeseries/${userId}/heartrate`, {
      provider,
      source_type: sourceType,
      data: samples.map(([timestamp, value]) => ({ timestamp, value })),
    });
    expect(stored.status).toBe(200);
  }
  // Outside the window: the 18th.
  expect((await api('POST', `/v2/timeseries/${userId}/heartrate`, { data: [{ timestamp: '2026-11-18T08:00:00Z', value: 200 }] })).status).toBe(200);
  const steps = [
    ['2026-11-20T08:00:00Z', '2026-11-20T09:00:00Z', 1000],
    ['2026-11-21T08:00:00Z', '2026-11-21T08:30:00Z', 500],
  ];
  expect((await api('POST', `/v2/timeseries/${userId}/steps`, { data: steps.map(([start, end, value]) => ({ start, end, value })) })).status).toBe(200);
  const nights = [
    {
      calendar_date: '2026-11-20',
      bedtime_start: '2026-11-19T23:00:00Z',
      bedtime_stop: '2026-11-20T07:00:00Z',
      duration: 28_800,
      total: 27_000,
      awake: 1_800,
      light: 14_000,
      rem: 6_000,
      deep: 7_000,
      hr_average: 55,
    },
    {
      calendar_date: '2026-11-21',
      bedtime_start: '2026-11-20T23:30:00Z',
      bedtime_stop: '2026-11-21T06:30:00Z',
      duration: 25_200,
      total: 24_000,
      awake: 1_200,
      light: 12_000,
      rem: 5_000,
      deep: 7_000,
      hr_average: 57,
    },
  ];
  expect((await api('POST', `/v2/summary/sleep/${userId}`, { data: nights })).status).toBe(200);
  const days = [
    { calendar_date: '2026-11-20', steps: 8000, calories_total: 2100 },
    { calendar_date: '2026-11-21', steps: 12000, calories_total: 2500 },
  ];
  expect((await api('POST', `/v2/summary/activity/${userId}`, { data: days })).status).toBe(200);
}, 120_000);
afterAll(() => stack?.close());

test('aggregates of a timeseries over the timeframe, through the SDK', async () => {
  const heartrate = { timeseries: 'heartrate', field: 'value' } as const;
  const { results } = await client.aggregate.queryOne(userId, {
    timeframe: lastTwoDays,
    queries: [
      {
        select: (['mean', 'min', 'max', 'sum', 'count', 'median', 'oldest', 'newest'] as const).map((func) => ({ arg: heartrate, func })),
      },
    ],
  });
  expect(results[0].table).toEqual({
    'mean(heartrate.value)': [80],
    'min(heartrate.value)': [60],
    'max(heartrate.value)': [100],
    'sum(heartrate.value)': [400],
    'count(heartrate.value)': [5],
    'median(heartrate.value)': [80],
    'oldest(heartrate.value)': [60],
    'newest(heartrate.value)': [100],
  });
});

test('per day, per hour of the day, per source; several queries in one batch', async () => {
  const mean = { arg: { timeseries: 'heartrate', field: 'value' }, func: 'mean' };
  const response = await query({
    timeframe: lastTwoDays,
    queries: [
      { select: [{ group_key: '*' }, mean], group_by: [{ date_trunc: { value: 1, unit: 'day' }, arg: { index: 'timeseries' } }] },
      {
        select: [{ group_key: 0 }, { arg: { timeseries: 'heartrate', field: 'value' }, func: 'count' }],
        group_by: [{ date_part: 'hour', arg: { placeholder: true } }],
      },
      { select: [{ source: 'source_provider' }, mean], group_by: [{ source: 'source_provider' }] },
      {
        select: [{ group_key: 0 }, { arg: { timeseries: 'steps', field: 'duration' }, func: 'sum' }],
        group_by: [{ date_trunc: { value: 12, unit: 'hour' }, arg: { placeholder: true } }],
      },
    ],
  });
  expect(response.status).toBe(200);
  const [byDay, byHour, bySource, stepsByHalfDay] = response.body.results.map((result: { table: object }) => result.table);
  expect(byDay).toEqual({ 'date_trunc(1 day)': ['2026-11-20T00:00:00.000Z', '2026-11-21T00:00:00.000Z'], 'mean(heartrate.value)': [70, 95] });
  expect(byHour).toEqual({ 'date_part(hour)': [8, 9, 14], 'count(heartrate.value)': [3, 1, 1] });
  expect(bySource).toEqual({ source_provider: ['fitbit', 'oura'], 'mean(heartrate.value)': [95, 70] });
  expect(stepsByHalfDay).toEqual({ 'date_trunc(12 hour)': ['2026-11-20T00:00:00.000Z', '2026-11-21T00:00:00.000Z'], 'sum(steps.duration)': [3600, 1800] });
});

test('sleep and activity summaries: by week, weekday, and over the timeframe', async () => {
  const response = await query({
    timeframe: { type: 'relative', anchor: '2026-11-22T00:00:00Z', past: { value: 1, unit: 'week' } },
    queries: [
      {
        select: [
          { arg: { sleep: 'duration_second' }, func: 'mean' },
          { arg: { sleep: 'stage_deep_second' }, func: 'sum' },
          { arg: { sleep: 'heart_rate_mean' }, func: 'max' },
        ],
      },
      { select: [{ group_key: 0 }, { arg: { activity: 'steps' }, func: 'sum' }], group_by: [{ date_part: 'weekday', arg: { index: 'activity' } }] },
      {
        select: [{ group_key: 0 }, { arg: { activity: 'calories_total' }, func: 'mean' }],
        group_by: [{ date_trunc: { value: 1, unit: 'week' }, arg: { index: 'activity' } }],
      },
    ],
  });
  expect(response.status).toBe(200);
  const [sleep, weekdays, weeks] = response.body.results.map((result: { table: object }) => result.table);
  // The night starting on the 19th (23:00) is in the week too: both nights.
  expect(sleep).toEqual({ 'mean(sleep.duration_second)': [27_000], 'sum(sleep.stage_deep_second)': [14_000], 'max(sleep.heart_rate_mean)': [57] });
  // 2026-11-20 was a Friday (weekday 4, Monday being 0).
  expect(weekdays).toEqual({ 'date_part(weekday)': [4, 5], 'sum(activity.steps)': [8000, 12000] });
  expect(weeks).toEqual({ 'date_trunc(1 week)': ['2026-11-16T00:00:00.000Z'], 'mean(activity.calories_total)': [2300] });
});

test('an empty timeframe answers the aggregates of nothing', async () => {
  const response = await query({
    timeframe: { type: 'relative', anchor: '2026-01-10', past: { unit: 'day' } },
    queries: [
      {
        select: [
          { arg: { timeseries: 'glucose', field: 'value' }, func: 'count' },
          { arg: { timeseries: 'glucose', field: 'value' }, func: 'mean' },
        ],
      },
    ],
  });
  expect(response).toMatchObject({ status: 200, body: { results: [{ table: { 'count(glucose.value)': [0], 'mean(glucose.value)': [null] } }] } });
});

test('what labflow cannot answer is a 422 naming it; another team cannot read the user', async () => {
  const heartrate = { timeseries: 'heartrate', field: 'value' };
  const refused = async (queryBody: object, loc: Array<string | number>, msg: RegExp) => {
    const response = await query({ timeframe: lastTwoDays, queries: [queryBody] });
    expect(response.status).toBe(422);
    expect(response.body.detail[0].loc).toEqual(loc);
    expect(response.body.detail[0].msg).toMatch(msg);
  };
  await refused({ select: [{ arg: heartrate, func: 'mean' }], where: 'value > 70' }, ['body', 'queries', 0, 'where'], /not supported/);
  await refused(
    {
      select: [
        { arg: heartrate, func: 'mean' },
        { arg: { sleep: 'duration_second' }, func: 'mean' },
      ],
    },
    ['body', 'queries', 0, 'select', 1, 'arg'],
    /reads one table/,
  );
  await refused(
    { select: [{ arg: { sleep: 'duration_second' }, func: 'mean' }], group_by: [{ date_trunc: { unit: 'day' }, arg: { index: 'timeseries' } }] },
    ['body', 'queries', 0, 'group_by', 0, 'arg'],
    /timeseries index in a query of sleep/,
  );
  await refused(
    { select: [{ arg: { timeseries: 'blood_sugar', field: 'value' }, func: 'mean' }] },
    ['body', 'queries', 0, 'select', 0, 'arg', 'timeseries'],
    /not a timeseries/,
  );
  await refused(
    { select: [{ arg: { timeseries: 'heartrate', field: 'duration' }, func: 'sum' }] },
    ['body', 'queries', 0, 'select', 0, 'arg', 'field'],
    /no field duration/,
  );
  await refused(
    {
      select: [
        { arg: { source: 'source_provider' }, func: 'mean' },
        { arg: heartrate, func: 'mean' },
      ],
    },
    ['body', 'queries', 0, 'select', 0, 'func'],
    /needs a number/,
  );
  await refused({ select: [heartrate] }, ['body', 'queries', 0, 'select', 0], /neither aggregated nor a group key/);
  await refused({ select: [{ arg: { workout: 'duration_second' }, func: 'mean' }] }, ['body', 'queries', 0, 'select', 0, 'arg'], /workout are not supported/);
  await refused({ select: [{ arg: { value_macro: 'sleep_score' }, func: 'mean' }] }, ['body', 'queries', 0, 'select', 0, 'arg'], /macro sleep_score/);
  await refused(
    { select: [{ group_key: 1 }, { arg: heartrate, func: 'mean' }], group_by: [{ date_part: 'hour', arg: { placeholder: true } }] },
    ['body', 'queries', 0, 'select', 0, 'group_key'],
    /no group_by\[1\]/,
  );
  await refused(
    { select: [{ arg: heartrate, func: 'mean' }], group_by: [{ date_trunc: { value: 2, unit: 'month' }, arg: { placeholder: true } }] },
    ['body', 'queries', 0, 'group_by', 0, 'date_trunc', 'value'],
    /one month long/,
  );
  const shape = await query({
    timeframe: { type: 'relative', anchor: 'yesterday', past: { unit: 'day' } },
    queries: [{ select: [{ arg: heartrate, func: 'mean' }] }],
  });
  expect(shape.status).toBe(422);

  const other = await createTenant(stack.db);
  expect(await query({ timeframe: lastTwoDays, queries: [{ select: [{ arg: heartrate, func: 'mean' }] }] }, userId, other.apiKey)).toMatchObject({
    status: 404,
    body: { detail: 'User not found.' },
  });
});

test('more than 10000 rows is refused: a finer bucket than the data allows', async () => {
  const dense = (await api('POST', '/v2/user', { client_user_id: `aggregate-${randomUUID()}` })).body.user_id as string;
  const start = Date.parse('2026-11-10T00:00:00Z');
  const data = Array.from({ length: 10_001 }, (_, i) => ({ timestamp: new Date(start + i * 60_000).toISOString(), value: 60 + (i % 40) }));
  expect((await api('POST', `/v2/timeseries/${dense}/heartrate`, { data })).status).toBe(200);
  const body = (unit: string) => ({
    timeframe: { type: 'relative', anchor: '2026-11-20', past: { value: 30, unit: 'day' } },
    queries: [
      {
        select: [{ group_key: 0 }, { arg: { timeseries: 'heartrate', field: 'value' }, func: 'mean' }],
        group_by: [{ date_trunc: { unit }, arg: { placeholder: true } }],
      },
    ],
  });
  const minutes = await query(body('minute'), dense);
  expect(minutes.status).toBe(422);
  expect(minutes.body.detail[0].msg).toMatch(/more than 10000 rows/);
  const hours = await query(body('hour'), dense);
  expect(hours.status).toBe(200);
  expect(hours.body.results[0].table['date_trunc(1 hour)']).toHaveLength(Math.ceil(10_001 / 60));
});
