import type { DexcomEgv } from '../../src/adapters/dexcom/dexcom-api';
import { dexcomBatches } from '../../src/adapters/dexcom/dexcom-mapping';

/** Dexcom's EGVs as Junction's glucose samples (src/adapters/dexcom/dexcom-mapping.ts), field by field. */

const egv = (overrides: Partial<DexcomEgv>): DexcomEgv => ({
  recordId: 'a5f1c0e2-0000-4000-8000-000000000001',
  systemTime: '2026-11-20T14:05:00',
  displayTime: '2026-11-20T09:05:00',
  value: 126,
  status: 'ok',
  unit: 'mg/dL',
  displayDevice: 'receiver',
  ...overrides,
});

test('a receiver EGV: UTC system time, mg/dL as mmol/L, the offset of its local display clock to the quarter hour', () => {
  const [batch] = dexcomBatches([egv({ displayTime: '2026-11-20T09:05:41' })]);
  expect(batch).toMatchObject({ kind: 'timeseries', resource: 'glucose', sourceType: 'cgm' });
  expect(batch.data).toEqual([{ timestamp: '2026-11-20T14:05:00.000Z', value: 6.99, unit: 'mmol/L', timezone_offset: -5 * 3600 }]);
});

test("a phone app's EGV: the offsets its times carry", () => {
  const [batch] = dexcomBatches([egv({ systemTime: '2026-11-20T14:05:00+00:00', displayTime: '2026-11-20T15:05:00+01:00', displayDevice: 'iOS', value: 90 })]);
  expect(batch.data).toEqual([{ timestamp: '2026-11-20T14:05:00.000Z', value: 4.99, unit: 'mmol/L', timezone_offset: 3600 }]);
});

test('records beyond what the sensor reads (high, low: no value) are left out; mmol/L records keep their value', () => {
  const [batch] = dexcomBatches([
    egv({ recordId: 'high', value: null, status: 'high' }),
    egv({ recordId: 'low', value: null, status: 'low' }),
    egv({ recordId: 'mmol', unit: 'mmol/L', value: 5.4, systemTime: '2026-11-20T14:10:00' }),
    egv({ recordId: 'odd', unit: 'unknown', value: 3 }),
  ]);
  expect(batch.data).toEqual([{ timestamp: '2026-11-20T14:10:00.000Z', value: 5.4, unit: 'mmol/L', timezone_offset: -5 * 3600 }]);
});

test('an empty window still names the resource (a backfill ends every resource it delivers)', () => {
  expect(dexcomBatches([])).toEqual([{ kind: 'timeseries', resource: 'glucose', sourceType: 'cgm', data: [] }]);
});
