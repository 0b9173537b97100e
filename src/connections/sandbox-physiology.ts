import { formatInZone, offsetMinutes } from '../appointments/zoned-time';
import { timeseriesResource } from '../health-data/registry';
import { type Activity, AWAKE, DEEP, firstOnGrid, isoDate, LIGHT, mean, MINUTE, type Night, Person, REM, round1, SLOT, type Timed } from './sandbox-person';

/**
 * Believable wearable data for the sandbox's demo connections, generated for a window [from, to)
 * of one (provider, seed) and shaped as ingestion takes it.
 *
 * Deterministic and window-independent: every value is a pure function of (seed, provider,
 * resource, sample time), via a 32-bit hash rather than a PRNG stream, so a window generated
 * again, or split into pieces, gives the same samples. A person's days (bed and wake times,
 * workout, meals, how active) depend on the seed only, so two demo providers of one user agree
 * on when they slept; what each device measures (sleep stages, noise) depends on the provider too.
 *
 * Window rules:
 * - Samples sit on grids of UTC epoch multiples (5, 10, 15, 30 or 60 minutes). A discrete sample
 *   belongs to [from, to) when its timestamp does; an interval sample to the window its end
 *   falls in (from < end <= to), so it may start before `from`. Every interval thus arrives
 *   exactly once whatever the bounds (a connection syncs up to "now", not to whole hours).
 * - A night belongs to the window with from < bedtime_stop <= to: it arrives whole, once
 *   complete, as its sleep summary and its samples (every provider's hypnogram; the ring's hrv
 *   and respiratory_rate every 5 minutes and heart rate every 10), which may start before `from`
 *   but never end after `to`. Everything else, the ring's awake heart rate included, follows the
 *   rule above; the ring sends nothing for a night still in progress at `to`.
 * - An activity summary is emitted for every local day (`timeZone`) that [from, to) touches and
 *   covers that day's interval samples ending by `to` (an interval counts for the day of its
 *   start), so a later window re-sends a growing day under the same calendar_date.
 */

export const DEMO_PROVIDERS = ['apple_health_kit', 'fitbit', 'freestyle_libre', 'oura'] as const;
export type DemoProvider = (typeof DEMO_PROVIDERS)[number];
/**
 * Every provider the sandbox generates data for: the demo providers (`POST /v2/link/connect/demo`)
 * and two password-based CGM clouds that only the Link flow connects, so that flow's password and
 * second-factor steps have a sandbox provider to run against.
 */
export const SANDBOX_PROVIDERS = [...DEMO_PROVIDERS, 'abbott_libreview', 'dexcom'] as const;
export type SandboxProvider = (typeof SANDBOX_PROVIDERS)[number];
/** `from`/`to`: epoch ms, [from, to). `timeZone`: IANA id of the user's local days. */
export interface DemoWindow {
  provider: SandboxProvider;
  seed: string;
  from: number;
  to: number;
  timeZone: string;
}
export interface DemoBatch {
  kind: 'timeseries' | 'summary';
  resource: string;
  sourceType: string;
  data: Array<Record<string, unknown>>;
}

interface ProviderSpec {
  sourceType: string;
  activityStep: number;
  heartStep: number;
}
/** Grids in minutes: interval length of steps/distance/calories, spacing of awake heart rate. */
const SPECS: Record<SandboxProvider, ProviderSpec> = {
  apple_health_kit: { sourceType: 'watch', activityStep: 15, heartStep: 5 },
  fitbit: { sourceType: 'watch', activityStep: 60, heartStep: 5 },
  oura: { sourceType: 'ring', activityStep: 30, heartStep: 30 },
  freestyle_libre: { sourceType: 'cgm', activityStep: 0, heartStep: 0 },
  abbott_libreview: { sourceType: 'cgm', activityStep: 0, heartStep: 0 },
  dexcom: { sourceType: 'cgm', activityStep: 0, heartStep: 0 },
};

export function generateDemoData(window: DemoWindow): DemoBatch[] {
  const { provider, from, to, timeZone } = window;
  const spec = SPECS[provider];
  if (!spec || !(to > from)) return [];
  const person = new Person(window);
  const batches: DemoBatch[] = [];
  const add = (kind: DemoBatch['kind'], resource: string, data: Array<Record<string, unknown>>) => {
    if (data.length > 0) batches.push({ kind, resource, sourceType: spec.sourceType, data });
  };
  const offset = (t: number) => offsetMinutes(t, timeZone) * 60;
  const point = (resource: string, t: number, value: number): Timed => [
    t,
    { timestamp: formatInZone(t, timeZone), value, timezone_offset: offset(t), unit: timeseriesResource(resource)?.unit },
  ];
  const span = (resource: string, start: number, end: number, value: number): Timed => [
    start,
    { start: formatInZone(start, timeZone), end: formatInZone(end, timeZone), value, timezone_offset: offset(start), unit: timeseriesResource(resource)?.unit },
  ];
  /** Discrete samples every `minutes` in [from, to) where `value` gives one. */
  const grid = (resource: string, minutes: number, value: (t: number) => number | null): Timed[] => {
    const samples: Timed[] = [];
    for (let t = firstOnGrid(from, minutes * MINUTE); t < to; t += minutes * MINUTE) {
      const v = value(t);
      if (v !== null) samples.push(point(resource, t, v));
    }
    return samples;
  };
  const sorted = (samples: Timed[]) => samples.sort((a, b) => a[0] - b[0]).map(([, sample]) => sample);

  if (spec.sourceType === 'cgm') {
    add('timeseries', 'glucose', sorted(grid('glucose', 15, (t) => person.glucoseAt(t))));
    return batches;
  }

  // Nights completed in this window (see the window rules above).
  const nights: Night[] = [];
  for (let day = person.localDay(from); day <= person.localDay(to); day++) {
    const night = person.night(day);
    if (night.stop > from && night.stop <= to) nights.push(night);
  }
  const ring = provider === 'oura';
  const hypnogram: Timed[] = [],
    hrv: Timed[] = [],
    breathing: Timed[] = [];
  // The watches measure heart rate around the clock; the ring every 10 minutes asleep, sparser awake.
  const heart = grid('heartrate', spec.heartStep, (t) => (ring && person.stageAt(t) ? null : person.heartRate(t)));
  const sleep = nights.map((night) => {
    const stages = night.stages,
      seconds = [0, 0, 0, 0, 0];
    const beats: number[] = [],
      variability: number[] = [],
      breaths: number[] = [];
    let segment = 0;
    for (let i = 0; i < stages.length; i++) {
      const t = night.start + i * SLOT,
        stage = stages[i];
      seconds[stage] += SLOT / 1000;
      if (i === stages.length - 1 || stages[i + 1] !== stage) {
        hypnogram.push(span('hypnogram', night.start + segment * SLOT, t + SLOT, stage));
        segment = i + 1;
      }
      const variation = person.hrvAt(t, stage),
        breath = person.breathingAt(t, stage);
      variability.push(variation);
      breaths.push(breath);
      if (ring) hrv.push(point('hrv', t, variation));
      if (ring) breathing.push(point('respiratory_rate', t, breath));
      // hr_average/hr_lowest summarise what the device reports: the watch every 5 minutes, the ring every 10.
      if (ring && t % (10 * MINUTE) !== 0) continue;
      const beat = person.heartRate(t);
      beats.push(beat);
      if (ring) heart.push(point('heartrate', t, beat));
    }
    const total = seconds[DEEP] + seconds[LIGHT] + seconds[REM],
      duration = (night.stop - night.start) / 1000;
    const efficiency = Math.round((100 * total) / duration);
    return {
      calendar_date: isoDate(night.day),
      bedtime_start: formatInZone(night.start, timeZone),
      bedtime_stop: formatInZone(night.stop, timeZone),
      type: 'long_sleep',
      timezone_offset: offset(night.stop),
      duration,
      total,
      awake: seconds[AWAKE],
      light: seconds[LIGHT],
      rem: seconds[REM],
      deep: seconds[DEEP],
      efficiency,
      latency: (stages.findIndex((stage) => stage !== AWAKE) * SLOT) / 1000,
      hr_average: Math.round(mean(beats)),
      hr_lowest: Math.min(...beats),
      average_hrv: Math.round(mean(variability)),
      respiratory_rate: round1(mean(breaths)),
      score: Math.min(100, Math.round(efficiency / 2 + (total / 3600) * 4 + (seconds[DEEP] / 3600) * 6)),
    };
  });

  // Steps, distance and active calories as consistent interval samples, and one activity summary
  // per local day touched, summing that day's intervals (from its midnight) that end by `to`.
  const step = spec.activityStep * MINUTE;
  const steps: Timed[] = [],
    distance: Timed[] = [],
    calories: Timed[] = [];
  const firstDay = person.localDay(from);
  const totals = new Map<number, Activity>();
  for (let day = firstDay; day <= person.localDay(to - 1); day++) totals.set(day, { steps: 0, distance: 0, calories: 0, low: 0, medium: 0, high: 0 });
  for (let start = firstOnGrid(person.day(firstDay).start, step); start + step <= to; start += step) {
    const activity = person.activity(start, step);
    const total = totals.get(person.localDay(start))!;
    for (const key of Object.keys(total) as Array<keyof Activity>) total[key] += activity[key];
    if (start + step <= from) continue; // ended in an earlier window
    steps.push(span('steps', start, start + step, activity.steps));
    distance.push(span('distance', start, start + step, activity.distance));
    calories.push(span('calories_active', start, start + step, activity.calories));
  }
  const days = [...totals].map(([index, sum]) => {
    const day = person.day(index);
    const elapsed = (Math.min(to, day.end) - day.start) / (day.end - day.start);
    return {
      calendar_date: isoDate(index),
      calories_total: Math.round(person.basalKcal * elapsed + sum.calories),
      calories_active: round1(sum.calories),
      steps: sum.steps,
      distance: round1(sum.distance),
      low: sum.low,
      medium: sum.medium,
      high: sum.high,
      floors_climbed: Math.floor(sum.steps / 1200),
      timezone_offset: offset(day.start),
    };
  });

  add('timeseries', 'heartrate', sorted(heart));
  add('timeseries', 'steps', sorted(steps));
  add('timeseries', 'distance', sorted(distance));
  add('timeseries', 'calories_active', sorted(calories));
  add('timeseries', 'hrv', sorted(hrv));
  add('timeseries', 'hypnogram', sorted(hypnogram));
  add('timeseries', 'respiratory_rate', sorted(breathing));
  add('summary', 'activity', days);
  add('summary', 'sleep', sleep);
  return batches;
}
