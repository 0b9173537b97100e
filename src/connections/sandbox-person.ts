import { offsetMinutes, wallToUtc } from '../appointments/zoned-time';

/**
 * The simulated person behind the sandbox's demo data (./sandbox-physiology.ts): their days,
 * nights, activity, heart rate, HRV, breathing and glucose as pure functions of (seed, provider,
 * resource, time), through a 32-bit hash rather than a PRNG stream, so any window of them can be
 * generated again and agree with itself.
 */

/** Whose data: the user's seed, the device measuring, the IANA zone of their local days. */
export interface PersonOf {
  seed: string;
  provider: string;
  timeZone: string;
}

export const MINUTE = 60_000;
export const SLOT = 5 * MINUTE;
const DAY = 86_400_000;
/** Hypnogram stages as Junction numbers them. */
export const DEEP = 1,
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

export const round1 = (value: number) => Math.round(value * 10) / 10;
const roundToSlot = (t: number) => Math.round(t / SLOT) * SLOT;
export const firstOnGrid = (t: number, step: number) => Math.ceil(t / step) * step;
export const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
export const isoDate = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);

/** A local day (days since 1970-01-01 on the wall clock) and what the person does in it. */
interface Day {
  start: number;
  end: number;
  factor: number;
  workout: [number, number];
  meals: Array<{ at: number; rise: number; peak: number }>;
}
/** The night ending on the morning of local day `day`, its stages per 5-minute epoch. */
export interface Night {
  day: number;
  start: number;
  stop: number;
  stages: number[];
}
export interface Activity {
  steps: number;
  distance: number;
  calories: number;
  low: number;
  medium: number;
  high: number;
}
export type Timed = [number, Record<string, unknown>];

/** One person as one device sees them; days and nights are memoised for one call. */
export class Person {
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

  constructor(private readonly w: PersonOf) {
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
