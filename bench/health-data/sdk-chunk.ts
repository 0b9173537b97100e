/**
 * CPU to take in one mobile-SDK upload chunk of 10,000 samples, in-process (no HTTP, no database):
 * gunzip, JSON.parse, the SDK shape's translation and labflow's validation — what the API spends
 * on a chunk before its upsert. Measured for
 *
 *   - a `POST /v2/timeseries/{user_id}/heartrate` chunk of vital-ios `LocalQuantitySample`s,
 *   - the same chunk only inflated and parsed (what the translation and validation add to),
 *   - the same 10,000 readings in labflow's own sample shape (the baseline: no translation),
 *   - a `POST /v2/summary/sleep/{user_id}` chunk of one iOS sleep carrying 10,000 heart-rate
 *     samples (translated, then validated as heartrate samples, a 422's loc mapped back).
 *
 * Each figure is CPU-ms (user + system of this process, `process.cpuUsage`) per chunk, the median
 * of BENCH_ROUNDS rounds after BENCH_WARMUP; load is printed beside it (the machine is shared).
 *
 *   npm run bench:sdk-chunk   (BENCH_SAMPLES (10,000), BENCH_ROUNDS (40), BENCH_WARMUP (10))
 */
import { loadavg } from 'node:os';
import { gunzipSync, gzipSync } from 'node:zlib';
import { summaryType, timeseriesResource, type SummaryType, type TimeseriesResource } from '../../src/health-data/registry';
import { parseSamples } from '../../src/health-data/sample-schemas';
import { parseNestedSamples } from '../../src/health-data/sdk-nested-samples';
import { fromSdkSamples } from '../../src/health-data/sdk-sample-shapes';
import { fromSdkSummaries } from '../../src/health-data/sdk-summary-shapes';
import { recordFigure } from '../lib/results';

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);

const heartrate = timeseriesResource('heartrate') as TimeseriesResource;
const sleepType = summaryType('sleep') as SummaryType;
const start = Date.parse('2026-11-20T00:00:00Z');
const swift = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
const iosSample = (i: number) => ({
  value: 50 + (i % 40),
  start_date: swift(start + i * 5_000),
  end_date: swift(start + i * 5_000),
  source_bundle: 'com.apple.health.4F2D8A9C-1B7E-4C3A-9D5F-6E8A0B1C2D3E',
  product_type: 'Watch7,1',
  unit: 'bpm',
  metadata: { _DMO: 'Watch', _DMA: 'Apple Inc.' },
});
const envelope = { stage: 'historical', start_date: '2026-11-20', end_date: '2026-11-21', time_zone: 'Europe/London', provider: 'apple_health_kit' };

const iosChunk = gzipSync(JSON.stringify({ ...envelope, data: Array.from({ length: SAMPLES }, (_, i) => iosSample(i)), is_final_chunk: true }));
const ownChunk = gzipSync(
  JSON.stringify({
    ...envelope,
    data: Array.from({ length: SAMPLES }, (_, i) => ({ timestamp: swift(start + i * 5_000), value: 50 + (i % 40), unit: 'bpm' })),
  }),
);
const sleepChunk = gzipSync(
  JSON.stringify({
    ...envelope,
    data: [
      {
        start_date: swift(start),
        end_date: swift(start + SAMPLES * 5_000),
        source_bundle: 'com.apple.health.4F2D8A9C-1B7E-4C3A-9D5F-6E8A0B1C2D3E',
        product_type: 'Watch7,1',
        heart_rate: Array.from({ length: SAMPLES }, (_, i) => iosSample(i)),
        heart_rate_variability: [],
        respiratory_rate: [],
        wrist_temperature: [],
        sleep_stages: {},
      },
    ],
    is_final_chunk: true,
  }),
);

type Body = { data: unknown[]; time_zone: string };
const cases: Array<[string, Buffer, (body: Body) => number]> = [
  [
    'iOS LocalQuantitySample heartrate chunk',
    iosChunk,
    (body) => {
      const translated = fromSdkSamples(heartrate, body.data, 'unknown');
      return parseSamples(heartrate, translated.data, body.time_zone).length;
    },
  ],
  ['iOS chunk: gunzip and JSON.parse only', iosChunk, (body) => body.data.length],
  [
    "labflow's own sample shape (baseline)",
    ownChunk,
    (body) => parseSamples(heartrate, fromSdkSamples(heartrate, body.data, 'unknown').data, body.time_zone).length,
  ],
  [
    'iOS sleep carrying the heart rate',
    sleepChunk,
    (body) => {
      const translated = fromSdkSummaries(sleepType, body.data, body.time_zone);
      return parseNestedSamples(translated.samples, body.time_zone)[0].parsed.length;
    },
  ],
];

function cpuMs(run: () => void): number {
  const before = process.cpuUsage();
  run();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const results: Record<string, number> = {};
for (const [name, chunk, parse] of cases) {
  const rounds: number[] = [];
  for (let round = 0; round < WARMUP + ROUNDS; round++) {
    const ms = cpuMs(() => {
      const body = JSON.parse(gunzipSync(chunk).toString('utf8')) as Body;
      if (parse(body) !== SAMPLES) throw new Error(`${name}: not every sample parsed`);
    });
    if (round >= WARMUP) rounds.push(ms);
  }
  results[name] = median(rounds);
  console.log(
    `${name}: ${median(rounds).toFixed(1)} CPU-ms per ${SAMPLES.toLocaleString('en')}-sample chunk (median of ${ROUNDS}; min ${Math.min(...rounds).toFixed(1)}, max ${Math.max(...rounds).toFixed(1)}; gzip ${chunk.length.toLocaleString('en')} B) load ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}`,
  );
}
const baseline = results["labflow's own sample shape (baseline)"];
for (const name of ['iOS LocalQuantitySample heartrate chunk', 'iOS sleep carrying the heart rate']) {
  recordFigure({ bench: 'sdk-chunk', name: `${name} CPU-ms`, value: results[name], baseline, baselineName: "labflow's sample shape", unit: 'CPU-ms' });
}
