import type { SummarySamples } from './sdk-nested-samples';

/** A workout stream as Junction answers it (`ClientFacingStream`): arrays aligned on `time`. */
export type WorkoutStream = Record<string, Array<number | null>>;

/**
 * The stream `GET /v2/timeseries/workouts/{id}/stream` answers for a workout the iOS SDK sent:
 * the SDK carries no stream of Junction's shape, only the workout's heart-rate samples and its
 * distance intervals, so the stream is built from them. `time` is every instant either reports
 * (unix seconds); `heartrate` the bpm read at that instant, else null; `distance` the metres
 * covered by then (summed over the intervals ended by then; null before the first ends).
 * Undefined when the workout carries neither.
 */
export function workoutStreamOf(samples: readonly SummarySamples[]): WorkoutStream | undefined {
  const heartRate = new Map<number, number>();
  const distanceEnds: Array<[number, number]> = [];
  for (const group of samples) {
    for (const sample of group.samples) {
      if (group.resource.slug === 'heartrate') heartRate.set(unixSeconds(sample.timestamp), sample.value as number);
      if (group.resource.slug === 'workout_distance') distanceEnds.push([unixSeconds(sample.end), sample.value as number]);
    }
  }
  const time = [...new Set([...heartRate.keys(), ...distanceEnds.map(([end]) => end)])].sort((a, b) => a - b);
  if (time.length === 0) return undefined;
  const stream: WorkoutStream = { time };
  if (heartRate.size > 0) stream.heartrate = time.map((at) => heartRate.get(at) ?? null);
  if (distanceEnds.length > 0) {
    distanceEnds.sort((a, b) => a[0] - b[0]);
    let covered: number | null = null;
    let next = 0;
    stream.distance = time.map((at) => {
      for (; next < distanceEnds.length && distanceEnds[next][0] <= at; next++) covered = (covered ?? 0) + distanceEnds[next][1];
      return covered;
    });
  }
  return stream;
}

const unixSeconds = (iso: unknown) => Math.round(Date.parse(iso as string) / 1000);
