import { VitalClient } from '@tryvital/vital-node';
import { randomUUID } from 'node:crypto';
import { iosQuantitySample, MobileSdkClient, swiftDate as whole } from '../helpers/mobile-sdk-client';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';

/**
 * What the mobile SDKs send beside samples and day summaries, in their own shapes, gzip-encoded
 * as they send it (test/helpers/mobile-sdk-client.ts): meals, menstrual cycles, electrocardiograms
 * with their voltage, and the samples inside a sleep or a workout. The team reads them back
 * through `@tryvital/vital-node`; each lands where the same data of any other source does, with
 * the same events. test/unit/sdk-record-shapes.test.ts maps the shapes field by field.
 */
let stack: TestStack;
let tenant: Tenant;
let client: VitalClient;

beforeAll(async () => {
  stack = await startStack({ worker: false });
  tenant = await createTenant(stack.db);
  client = new VitalClient({ baseUrl: stack.apiUrl, apiKey: tenant.apiKey, headers: { 'x-service-api-key': tenant.apiKey }, maxRetries: 0 });
}, 120_000);
afterAll(async () => {
  await stack?.close();
});

async function connectedPhone(provider: string): Promise<MobileSdkClient> {
  const created = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: `phone-${randomUUID()}` } });
  expect(created.status).toBe(200);
  const { signInToken } = await client.user.getUserSignInToken(created.body.user_id);
  const phone = await MobileSdkClient.signIn(signInToken, { api: stack.apiUrl, auth: stack.apiUrl });
  expect((await phone.connect(provider)).status).toBe(200);
  return phone;
}

const WATCH = { source_bundle: 'com.apple.health.4F2D8A9C-1B7E-4C3A-9D5F-6E8A0B1C2D3E', product_type: 'Watch7,1' };
const IPHONE = { source_bundle: 'com.apple.health.4F2D8A9C-1B7E-4C3A-9D5F-6E8A0B1C2D3E', product_type: 'iPhone16,1' };
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
/** Whole minutes, so every SDK date below is exactly what Swift's `.iso8601` writes. */
const hoursAgo = (hours: number) => Math.floor((Date.now() - hours * 3_600_000) / 60_000) * 60_000;

/** The user's events: summaries' in the outbox, samples' in their batches (provider|source type). */
async function eventsOf(userId: string): Promise<{ summaries: string[]; batches: string[]; items: number }> {
  const outbox: Array<{ event_type: string }> = await stack.db.query(`SELECT event_type FROM event_outbox WHERE user_id = $1 ORDER BY created_at`, [userId]);
  const batches: Array<{ event_type: string; batch_group: string; item_count: number }> = await stack.db.query(
    `SELECT event_type, batch_group, item_count FROM event_batches WHERE user_id = $1 ORDER BY seq`,
    [userId],
  );
  return {
    summaries: outbox.map((row) => row.event_type),
    batches: batches.map((row) => `${row.event_type} ${row.batch_group}`),
    items: batches.reduce((sum, row) => sum + row.item_count, 0),
  };
}

test("iOS: a meal, a menstrual cycle and an ECG with 15,360 voltage samples in vital-ios's shapes, read back through vital-node", async () => {
  const phone = await connectedPhone('apple_health_kit');
  const userId = phone.userId;
  const daily = { stage: 'daily', time_zone: 'Europe/London', provider: 'apple_health_kit' } as const;

  // ManualMealCreation: HealthKit's nutrients of one app, each a LocalQuantitySample in the SDK's unit.
  const lunch = hoursAgo(3);
  const nutrient = (value: number, unit: string) => iosQuantitySample(value, unit, lunch, lunch, { source_bundle: 'com.myfitnesspal.mfp' });
  const meal = {
    healthkit: {
      source_bundle: 'com.myfitnesspal.mfp',
      energy_total: [nutrient(650, 'kcal')],
      carbohydrates: [nutrient(80, 'gram')],
      protein: [nutrient(32, 'gram')],
      fat_total: [nutrient(20, 'gram')],
      sodium: [nutrient(1_200, 'mg')],
      vitamin_c: [nutrient(45, 'mg')],
      selenium: [nutrient(30, '\u03BCg')],
    },
  };
  expect(await phone.uploadSummary('meal', daily, [meal])).toMatchObject({ status: 200, body: { resource: 'meal', stored: 1 } });
  const { meals } = await client.meal.get(userId, { startDate: dayOf(lunch), endDate: dayOf(lunch), provider: 'apple_health_kit' });
  expect(meals).toHaveLength(1);
  expect(meals[0]).toMatchObject({
    name: 'Meal',
    timestamp: new Date(lunch),
    energy: { unit: 'kcal', value: 650 },
    macros: { carbs: 80, protein: 32, fats: { total: 20 } },
    micros: { minerals: { sodium: 1.2 }, vitamins: { vitamin_c: 45 }, traceElements: { selenium: 30 } },
    source: { provider: 'apple_health_kit' },
  });

  // LocalMenstrualCycle: the cycle as the SDK computed it, its source named inside.
  const cycle = {
    source_bundle: 'com.apple.Health',
    cycle: {
      period_start: dayOf(hoursAgo(24 * 10)),
      period_end: dayOf(hoursAgo(24 * 6)),
      menstrual_flow: [{ date: dayOf(hoursAgo(24 * 10)), flow: 'heavy' }],
      cervical_mucus: [],
      intermenstrual_bleeding: [],
      contraceptive: [],
      detected_deviations: [],
      ovulation_test: [],
      home_pregnancy_test: [],
      home_progesterone_test: [],
      sexual_activity: [],
      basal_body_temperature: [{ date: dayOf(hoursAgo(24 * 9)), value: 36.5 }],
      source: { provider: 'apple_health_kit', type: 'phone', app_id: 'com.apple.Health' },
    },
  };
  expect((await phone.uploadSummary('menstrual_cycle', daily, [cycle])).status).toBe(200);
  const cycles = await client.menstrualCycle.get(userId, { startDate: dayOf(hoursAgo(24 * 11)), provider: 'apple_health_kit' });
  expect(cycles.menstrualCycle.map((read) => [read.periodStart, read.periodEnd, read.sourceType, read.menstrualFlow?.[0]?.flow])).toEqual([
    [cycle.cycle.period_start, cycle.cycle.period_end, 'phone', 'heavy'],
  ]);

  // ManualElectrocardiogram: 30 s at 512 Hz of lead I, in mV, offsets in ms from the session start.
  const session = hoursAgo(2);
  const count = 15_360;
  const ecg = {
    electrocardiogram: {
      id: randomUUID().toUpperCase(),
      session_start: whole(session),
      session_end: whole(session + 30_000),
      voltage_sample_count: count,
      heart_rate_mean: 66,
      sampling_frequency_hz: 512,
      classification: 'sinus_rhythm',
      algorithm_version: '2',
      ...WATCH,
      device_model: 'Watch',
    },
    voltage_data: {
      session_start_offset_millisecond: Array.from({ length: count }, (_, i) => Math.floor((i * 1000) / 512)),
      lead1: Array.from({ length: count }, (_, i) => Math.round(Math.sin(i / 20) * 1000) / 1000),
    },
  };
  expect(await phone.uploadSummary('electrocardiogram', daily, [ecg])).toMatchObject({ status: 200, body: { stored: 1 } });
  const { electrocardiogram } = await client.electrocardiogram.get(userId, { startDate: dayOf(session), provider: 'apple_health_kit' });
  expect(electrocardiogram.map((read) => [read.id, read.voltageSampleCount, read.classification, read.sourceType, read.heartRateMean])).toEqual([
    [ecg.electrocardiogram.id.toLowerCase(), count, 'sinus_rhythm', 'watch', 66],
  ]);
  const voltage: number[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.vitals.electrocardiogramVoltageGrouped(userId, {
      startDate: whole(session),
      endDate: whole(session + 31_000),
      provider: 'apple_health_kit',
      cursor,
    });
    for (const group of page.groups.apple_health_kit ?? []) {
      expect(group.source.type).toBe('watch');
      voltage.push(...group.data.map((sample) => sample.value));
    }
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  expect(voltage).toHaveLength(count);
  expect(voltage.slice(0, 3)).toEqual(ecg.voltage_data.lead1.slice(0, 3));

  // The same events as from any source: each summary's, and the voltage gathered under the ECG's
  // source (in as many batches as an upload of 15,360 samples fills).
  const events = await eventsOf(userId);
  expect(events.summaries.filter((type) => type.startsWith('daily.data.'))).toEqual([
    'daily.data.meal.created',
    'daily.data.menstrual_cycle.created',
    'daily.data.electrocardiogram.created',
  ]);
  expect([...new Set(events.batches)]).toEqual(['daily.data.electrocardiogram_voltage.created apple_health_kit|watch']);
  expect(events.items).toBe(count);
});

test("the samples inside an iOS sleep and workout are the user's timeseries, under the summary's own source", async () => {
  const phone = await connectedPhone('apple_health_kit');
  const userId = phone.userId;
  const daily = { stage: 'daily', time_zone: 'UTC', provider: 'apple_health_kit' } as const;
  const bedtime = hoursAgo(10);
  // A night recorded by the iPhone alone: its heart rate and HRV samples come inside the sleep.
  const sleep = {
    start_date: whole(bedtime),
    end_date: whole(bedtime + 6 * 3_600_000),
    ...IPHONE,
    heart_rate_minimum: 48,
    heart_rate_mean: 53,
    heart_rate: [
      iosQuantitySample(55, 'bpm', bedtime + 600_000, bedtime + 600_000, IPHONE),
      iosQuantitySample(48, 'bpm', bedtime + 7_200_000, bedtime + 7_200_000, IPHONE),
    ],
    heart_rate_variability: [iosQuantitySample(62, 'rmssd', bedtime + 3_600_000, bedtime + 3_600_000, IPHONE)],
    respiratory_rate: [],
    wrist_temperature: [],
    sleep_stages: { light_sleep_samples: [iosQuantitySample(2, 'stage', bedtime, bedtime + 6 * 3_600_000, IPHONE)] },
    metadata: {},
  };
  expect(await phone.uploadSummary('sleep', daily, [sleep])).toMatchObject({ status: 200, body: { stored: 1 } });
  // A walk from the watch: its heart rate, and its stream's distance (BulkQuantitySample: offsets in s from the anchor).
  const walk = hoursAgo(2);
  const workout = {
    id: randomUUID().toUpperCase(),
    start_date: whole(walk),
    end_date: whole(walk + 1_800_000),
    moving_time: 1_750,
    ...WATCH,
    sport: 'Walking',
    calories: 140,
    distance: 2_400,
    heart_rate_mean: 104,
    heart_rate_maximum: 121,
    heart_rate: [iosQuantitySample(101, 'bpm', walk + 60_000), iosQuantitySample(118, 'bpm', walk + 900_000)],
    respiratory_rate: [],
    stream: {
      components: {
        distance_walking_running: [{ anchor: whole(walk), value: [80, 85.5, 90], start_offset: [0, 60, 120], end_offset: [60, 120, 180], ...WATCH }],
      },
    },
    metadata: {},
  };
  expect(await phone.uploadSummary('workouts', daily, [workout])).toMatchObject({ status: 200, body: { stored: 1 } });

  const range = { startDate: whole(bedtime - 60_000), endDate: whole(Date.now()), provider: 'apple_health_kit' };
  const heartrate = await client.vitals.heartrateGrouped(userId, range);
  expect(heartrate.groups.apple_health_kit.map((group) => [group.source.type, group.data.map((sample) => sample.value)]).sort()).toEqual([
    ['phone', [55, 48]],
    ['watch', [101, 118]],
  ]);
  const hrv = await client.vitals.hrvGrouped(userId, range);
  expect(hrv.groups.apple_health_kit.map((group) => [group.source.type, group.data.map((sample) => [sample.value, sample.timestamp])])).toEqual([
    ['phone', [[62, new Date(bedtime + 3_600_000)]]],
  ]);
  const distance = await client.vitals.workoutDistanceGrouped(userId, range);
  expect(distance.groups.apple_health_kit.map((group) => [group.source.type, group.data.map((sample) => [sample.value, sample.start, sample.end])])).toEqual([
    [
      'watch',
      [
        [80, new Date(walk), new Date(walk + 60_000)],
        [85.5, new Date(walk + 60_000), new Date(walk + 120_000)],
        [90, new Date(walk + 120_000), new Date(walk + 180_000)],
      ],
    ],
  ]);
  // Each summary under its own source type, not the request's.
  const slept = await client.sleep.get(userId, { startDate: dayOf(bedtime), endDate: dayOf(Date.now()), provider: 'apple_health_kit' });
  expect(slept.sleep.map((read) => read.source.type)).toEqual(['phone']);
  const { workouts } = await client.workouts.get(userId, { startDate: dayOf(walk), endDate: dayOf(walk), provider: 'apple_health_kit' });
  expect(workouts.map((read) => [read.id, read.source.type, read.averageHr])).toEqual([[workout.id.toLowerCase(), 'watch', 104]]);
  // Its stream as Junction answers one, built from the workout's heart rate and distance intervals.
  const stream = await client.workouts.getByWorkoutId(workouts[0].id);
  const at = (offsetMs: number) => (walk + offsetMs) / 1000;
  expect([stream.time, stream.heartrate?.map((bpm) => bpm ?? null), stream.distance?.map((metres) => metres ?? null)]).toEqual([
    [at(60_000), at(120_000), at(180_000), at(900_000)],
    [101, null, null, 118],
    [80, 165.5, 255.5, 255.5],
  ]);

  // Sent again (the SDK resends a chunk): the same summaries and samples, replaced, not doubled.
  expect((await phone.uploadSummary('workouts', daily, [workout])).body).toMatchObject({ stored: 1, created: 0, updated: 1 });
  expect((await client.vitals.heartrateGrouped(userId, range)).groups.apple_health_kit.flatMap((group) => group.data)).toHaveLength(4);

  const events = await eventsOf(userId);
  expect(events.summaries.filter((type) => type.startsWith('daily.data.'))).toEqual([
    'daily.data.sleep.created',
    'daily.data.workouts.created',
    'daily.data.workout_stream.created',
    'daily.data.workouts.updated',
    'daily.data.workout_stream.created',
  ]);
  expect(events.batches.sort()).toEqual(
    [
      'daily.data.heartrate.created apple_health_kit|phone',
      'daily.data.hrv.created apple_health_kit|phone',
      'daily.data.heartrate.created apple_health_kit|watch',
      'daily.data.workout_distance.created apple_health_kit|watch',
      'daily.data.heartrate.updated apple_health_kit|watch',
      'daily.data.workout_distance.updated apple_health_kit|watch',
    ].sort(),
  );
});

test("Android: Health Connect's meals and cycle in vital-android's shapes; a bad item of each new shape is a 422 naming the SDK's field, nothing stored", async () => {
  const phone = await connectedPhone('health_connect');
  const userId = phone.userId;
  const daily = { stage: 'daily', time_zone: 'Europe/Berlin', provider: 'health_connect' } as const;
  const breakfast = hoursAgo(5);
  const record = {
    start_time: new Date(breakfast).toISOString(),
    start_zone_offset: '+01:00',
    end_time: new Date(breakfast + 900_000).toISOString(),
    end_zone_offset: '+01:00',
    energy: 420,
    total_carbohydrate: 55.5,
    protein: 18,
    potassium: 350,
    name: null,
    meal_type: 1,
    metadata: { dataOrigin: { packageName: 'com.myfitnesspal.android' } },
  };
  const meal = { health_connect: { source_bundle: 'com.myfitnesspal.android', nutrition_records: [record] } };
  expect((await phone.uploadSummary('meal', daily, [meal])).status).toBe(200);
  const { meals } = await client.meal.get(userId, { startDate: dayOf(breakfast), endDate: dayOf(breakfast), provider: 'health_connect' });
  expect(meals.map((read) => [read.name, read.energy?.value, read.macros?.carbs, read.micros?.minerals?.potassium])).toEqual([['Breakfast', 420, 55.5, 0.35]]);

  // One bad item refuses the request, each naming where the SDK put the field.
  const before = await stack.db.query(`SELECT count(*)::int AS n FROM health_summaries WHERE user_id = $1`, [userId]);
  const badMeal = { health_connect: { ...meal.health_connect, nutrition_records: [{ ...record, start_time: 'breakfast' }] } };
  const refusals = [
    ['meal', [meal, badMeal], ['body', 'data', 1, 'health_connect', 'nutrition_records', 0, 'start_time']],
    [
      'menstrual_cycle',
      [{ source_bundle: 'x', cycle: { period_start: '2026-13-01', menstrual_flow: [], source: { provider: 'health_connect', type: 'phone' } } }],
      ['body', 'data', 0, 'cycle', 'period_start'],
    ],
    [
      'electrocardiogram',
      [
        {
          electrocardiogram: { id: 'e', session_start: whole(breakfast), session_end: whole(breakfast), voltage_sample_count: -1, source_bundle: 'x' },
          voltage_data: { session_start_offset_millisecond: [], lead1: [] },
        },
      ],
      ['body', 'data', 0, 'electrocardiogram', 'voltage_sample_count'],
    ],
    [
      'sleep',
      [{ start_date: whole(breakfast), end_date: whole(breakfast + 60_000), sleep_stages: {}, heart_rate: [iosQuantitySample(50, 'kg', breakfast)] }],
      ['body', 'data', 0, 'heart_rate', 0, 'unit'],
    ],
  ] as const;
  for (const [resource, data, loc] of refusals) {
    const answer = await phone.uploadSummary(resource, daily, data as unknown as object[]);
    expect([resource, answer.status, answer.body.detail.map((issue: { loc: unknown[] }) => issue.loc)]).toEqual([resource, 422, [loc]]);
  }
  expect(await stack.db.query(`SELECT count(*)::int AS n FROM health_summaries WHERE user_id = $1`, [userId])).toEqual(before);
  expect(await stack.db.query(`SELECT count(*)::int AS n FROM event_batches WHERE user_id = $1`, [userId])).toEqual([{ n: 0 }]);
});
