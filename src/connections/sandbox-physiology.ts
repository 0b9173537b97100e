import { formatInZone, offsetMinutes, wallToUtc } from '../appointments/zoned-time';
import { timeseriesResource } from '../health-data/registry';

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

const MINUTE = 60_000;
const SLOT = 5 * MINUTE;
const DAY = 86_400_000;
/** Hypnogram stages as Junction numbers them. */
const DEEP = 1,
  LIGHT = 2,
  REM = 3,
  AWAKE = 4;
/** Chance that an awake 5-minute slot holds a walk, by local hour (commute, lunch, errands). */
const WALK_CHANCE = [0, 0, 0, 0, 0, 0, 0.03, 0.12, 0.12, 0.03, 0.03, 0.03, 0.18, 0.04, 0.03, 0.03, 0.03, 0.12, 0.12, 0.04, 0.03, 0.03, 0.02, 0];
/** Local minute of the meals and how much they move glucose (mmol/L), before per-day jitter. */
const MEALS = [
  { minute: 7 * 60 + 30, rise: 2.0 },
  { minute: 12 * 60 + 30, rise: 2.3 },
  { minute: 19 * 60, rise: 2.3 },
];

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

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

/** murmur3's finaliser: every input bit moves every output bit. */
function fmix(hash: number): number {
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) >>> 0;
}

/** A uniform number in [0, 1) for (stream, instant, draw): the same inputs give it in any window. */
function uniform(stream: number, t: number, draw = 0): number {
  return fmix(fmix(stream ^ (t >>> 0)) ^ Math.floor(t / 4_294_967_296) ^ Math.imul(draw + 1, 0x9e3779b9)) / 4_294_967_296;
}

const round1 = (value: number) => Math.round(value * 10) / 10;
const roundToSlot = (t: number) => Math.round(t / SLOT) * SLOT;
const firstOnGrid = (t: number, step: number) => Math.ceil(t / step) * step;
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const isoDate = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);

/** A local day (days since 1970-01-01 on the wall clock) and what the person does in it. */
interface Day {
  start: number;
  end: number;
  factor: number;
  workout: [number, number];
  meals: Array<{ at: number; rise: number; peak: number }>;
}
/** The night ending on the morning of local day `day`, its stages per 5-minute epoch. */
interface Night {
  day: number;
  start: number;
  stop: number;
  stages: number[];
}
interface Activity {
  steps: number;
  distance: number;
  calories: number;
  low: number;
  medium: number;
  high: number;
}
type Timed = [number, Record<string, unknown>];

/** One person as one device sees them; days and nights are memoised for one call. */
class Person {
  private readonly days = new Map<number, Day>();
  private readonly nights = new Map<number, Night>();
  private readonly streams = new Map<string, number>();
  /** The person's life (sleep times, workouts, meals): the seed's alone, shared by their devices. */
  private readonly life: number;
  readonly restingHr: number;
  readonly stride: number;
  readonly kcalPerStep: number;
  readonly basalKcal: number;
  readonly glucose: number;
  readonly hrv: number;
  readonly breathing: number;

  constructor(private readonly w: DemoWindow) {
    this.life = fnv1a(`${w.seed}\u0000life`);
    // Traits hash at "day" -1, apart from every real day index.
    const trait = (draw: number, low: number, high: number) => low + (high - low) * uniform(this.life, -1, draw);
    this.restingHr = trait(1, 50, 57);
    this.stride = trait(2, 0.72, 0.78);
    this.kcalPerStep = trait(3, 0.04, 0.05);
    this.basalKcal = trait(4, 1500, 1900);
    this.glucose = trait(5, 5.0, 5.5);
    this.hrv = trait(6, 35, 65);
    this.breathing = trait(7, 13, 15.5);
  }

  /** The device's hash stream of one resource. */
  u(resource: string, t: number, draw = 0): number {
    let stream = this.streams.get(resource);
    if (stream === undefined) this.streams.set(resource, (stream = fnv1a(`${this.w.seed}\u0000${this.w.provider}\u0000${resource}`)));
    return uniform(stream, t, draw);
  }

  /** Wall-clock ms at instant t (the local time written as if it were UTC). */
  wall(t: number): number {
    return t + offsetMinutes(t, this.w.timeZone) * MINUTE;
  }
  localDay(t: number): number {
    return Math.floor(this.wall(t) / DAY);
  }
  localMinute(t: number): number {
    return Math.floor(this.wall(t) / MINUTE) % 1440;
  }
  /** The instant the wall clock shows `minute` past midnight of local day `day` (DST-aware). */
  at(day: number, minute: number): number {
    return wallToUtc(day * DAY + Math.round(minute) * MINUTE, this.w.timeZone);
  }

  day(index: number): Day {
    let day = this.days.get(index);
    if (!day) {
      const u = (draw: number) => uniform(this.life, index, draw);
      const workoutStart = roundToSlot(this.at(index, 17 * 60 + 120 * u(1)));
      day = {
        start: this.at(index, 0),
        end: this.at(index + 1, 0),
        factor: 0.7 + 0.6 * u(0),
        workout: [workoutStart, workoutStart + (30 + 5 * Math.floor(5 * u(2))) * MINUTE],
        meals: MEALS.map((meal, i) => ({
          at: this.at(index, meal.minute + 60 * (u(3 + i) - 0.5)),
          rise: meal.rise + 1.2 * u(6 + i),
          peak: (45 + 15 * u(9 + i)) * MINUTE,
        })),
      };
      this.days.set(index, day);
    }
    return day;
  }

  /** Bed ~22:30 the evening before `index`, up ~06:45; stages from the device's hypnogram stream. */
  night(index: number): Night {
    let night = this.nights.get(index);
    if (!night) {
      const u = (draw: number) => uniform(this.life, index, 20 + draw);
      const start = roundToSlot(this.at(index - 1, 22 * 60 + 30 + 90 * (u(0) - 0.5)));
      const stop = roundToSlot(this.at(index, 6 * 60 + 45 + 90 * (u(1) - 0.5)));
      const latency = 1 + Math.floor(3 * u(2));
      const stages: number[] = [];
      for (let i = 0, epochs = (stop - start) / SLOT; i < epochs; i++) {
        const r = this.u('hypnogram', start + i * SLOT);
        // ~90-minute cycles: deep sleep early in the night, REM growing towards the morning.
        const asleep = (i - latency) * 5,
          cycle = Math.floor(asleep / 90),
          phase = (asleep % 90) / 90;
        const deepShare = Math.max(0.05, 0.4 - 0.12 * cycle),
          remShare = Math.min(0.45, 0.12 + 0.08 * cycle);
        let stage = phase >= 0.08 && phase < 0.08 + deepShare ? DEEP : phase >= 1 - remShare ? REM : LIGHT;
        if (r > 0.9) stage = LIGHT; // fragmentation
        if (i < latency || r < 0.03 || (i === epochs - 1 && r < 0.6)) stage = AWAKE;
        stages.push(stage);
      }
      night = { day: index, start, stop, stages };
      this.nights.set(index, night);
    }
    return night;
  }

  /** The sleep stage at t, or 0 when awake outside a night (nights end before noon, start after). */
  stageAt(t: number): number {
    const night = this.night(this.localDay(t) + (this.localMinute(t) < 720 ? 0 : 1));
    return t >= night.start && t < night.stop ? night.stages[Math.floor((t - night.start) / SLOT)] : 0;
  }

  inWorkout(t: number): boolean {
    const [start, end] = this.day(this.localDay(t)).workout;
    return t >= start && t < end;
  }

  /** Steps in the 5-minute slot starting at t: nothing asleep, a run in the workout, walks and pottering otherwise. */
  slotSteps(t: number): number {
    if (this.stageAt(t)) return 0;
    const r = this.u('steps', t),
      pace = this.u('steps', t, 1);
    if (this.inWorkout(t)) return Math.round(5 * (110 + 45 * pace));
    const walk = WALK_CHANCE[Math.floor(this.localMinute(t) / 60)] * this.day(this.localDay(t)).factor;
    if (r < walk) return Math.round(5 * (45 + 60 * pace));
    return r < walk + 0.4 ? Math.round(40 * pace) : 0;
  }

  /** Steps, distance, active calories and intensity minutes of the interval [start, start + step). */
  activity(start: number, step: number): Activity {
    const result: Activity = { steps: 0, distance: 0, calories: 0, low: 0, medium: 0, high: 0 };
    for (let t = start; t < start + step; t += SLOT) {
      const steps = this.slotSteps(t);
      result.steps += steps;
      if (steps >= 500) result.high += 5;
      else if (steps >= 200) result.medium += 5;
      else if (steps > 0) result.low += 5;
    }
    result.distance = round1(result.steps * this.stride * (0.97 + 0.06 * this.u('distance', start)));
    result.calories = round1(result.steps * this.kcalPerStep * (0.95 + 0.1 * this.u('calories_active', start)));
    return result;
  }

  heartRate(t: number): number {
    const noise = this.u('heartrate', t) - 0.5;
    const stage = this.stageAt(t);
    if (stage) return Math.round(this.restingHr + [0, 0, 3, 6, 10][stage] + 4 * noise);
    const [start, end] = this.day(this.localDay(t)).workout;
    if (t >= start && t < end) return Math.round(118 + 32 * Math.sin((Math.PI * (t - start)) / (end - start)) + 10 * noise);
    // Circadian: highest mid-afternoon; walking adds beats.
    const hour = this.localMinute(t) / 60;
    return Math.round(66 + 6 * Math.sin((2 * Math.PI * (hour - 10)) / 24) + this.slotSteps(t - (t % SLOT)) / 20 + 8 * noise);
  }

  hrvAt(t: number, stage: number): number {
    return Math.round(this.hrv * [1, 1.25, 1, 0.85, 0.7][stage] * (0.9 + 0.2 * this.u('hrv', t)));
  }

  breathingAt(t: number, stage: number): number {
    return round1(this.breathing + (stage === REM ? 1 : 0) + this.u('respiratory_rate', t) - 0.5);
  }

  /** Glucose in mmol/L: baseline, a slight overnight dip, and a curve after each meal peaking `peak` after it. */
  glucoseAt(t: number): number {
    const today = this.localDay(t),
      hour = this.localMinute(t) / 60;
    let value = this.glucose - (hour > 1 && hour < 6 ? 0.35 * Math.sin((Math.PI * (hour - 1)) / 5) : 0);
    for (const meal of [...this.day(today - 1).meals, ...this.day(today).meals]) {
      const x = (t - meal.at) / meal.peak;
      if (x > 0 && x < 5) value += meal.rise * x ** 3 * Math.exp(3 * (1 - x)); // near baseline again ~2.5 h on
    }
    return round1(Math.max(3.6, value + 0.3 * (this.u('glucose', t) - 0.5)));
  }
}

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
