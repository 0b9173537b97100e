import type { SourceBatch } from '../sources/source-adapter';
import { hasOffset, instantAsUtc, offsetSeconds } from '../sources/iso-time';
import type { DexcomEgv } from './dexcom-api';

/** The kind of device Dexcom is. */
export const DEXCOM_SOURCE_TYPE = 'cgm';

/** What a Dexcom connection delivers (its provider.connection.created `resource_availability`). */
export const DEXCOM_RESOURCES: ReadonlyArray<Omit<SourceBatch, 'data'>> = [{ kind: 'timeseries', resource: 'glucose', sourceType: DEXCOM_SOURCE_TYPE }];

/** mg/dL of glucose in one mmol/L (molar mass of glucose, 180.16 g/mol). */
const MG_DL_PER_MMOL_L = 18.0182;
const QUARTER_HOUR_S = 900;

/**
 * Dexcom's EGVs as Junction's glucose samples (mmol/L, labflow's glucose unit), as ingestion
 * takes them. Records without a value (`high`, `low`: beyond what the sensor reads) are left
 * out. Pure: the adapter fetches, this only translates.
 */
export function dexcomBatches(egvs: DexcomEgv[]): SourceBatch[] {
  const data = egvs.filter((egv) => egv.value !== null && (egv.unit === 'mg/dL' || egv.unit === 'mmol/L')).map(glucoseSample);
  return [{ ...DEXCOM_RESOURCES[0], data }];
}

function glucoseSample(egv: DexcomEgv): Record<string, unknown> {
  const at = instantAsUtc(egv.systemTime);
  const value = egv.unit === 'mg/dL' ? Math.round(((egv.value as number) / MG_DL_PER_MMOL_L) * 100) / 100 : (egv.value as number);
  return { timestamp: new Date(at).toISOString(), value, unit: 'mmol/L', timezone_offset: wearerOffsetSeconds(egv, at) };
}

/**
 * The wearer's UTC offset: a phone's display time carries it; a receiver's display time is its
 * local clock without an offset, so the offset is how far it is from the system time, to the
 * quarter hour.
 */
function wearerOffsetSeconds(egv: DexcomEgv, at: number): number {
  if (hasOffset(egv.displayTime)) return offsetSeconds(egv.displayTime);
  const local = Date.parse(`${egv.displayTime}Z`);
  return Number.isNaN(local) ? 0 : Math.round((local - at) / 1000 / QUARTER_HOUR_S) * QUARTER_HOUR_S;
}
