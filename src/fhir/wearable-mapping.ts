/**
 * Wearable and device measurements (the health-data timeseries) as vital-signs, activity or
 * laboratory Observations: the resources with a LOINC code and a UCUM unit, each following FHIR
 * R4's vital-signs profile (heart rate, blood pressure, body weight, SpO2, respiratory rate,
 * body temperature, BMI; the profiles US Core's vital signs derive from) where there is one.
 * Pure translation, no I/O. Resources without a fitting LOINC code are not served (docs/fhir.md).
 */
import type { CodeableConcept, Coding, Observation } from '@medplum/fhirtypes';
import { meta, patientRef, SYSTEMS } from './clinical-mapping';
import type { SampleRow, SleepRow } from './fhir-read-model';
import { quantity } from './lab-result-mapping';

export type WearableCategory = 'vital-signs' | 'activity' | 'laboratory';

export interface WearableCode {
  /** The health-data resource (registry slug). */
  resource: string;
  loinc: Coding[];
  category: WearableCategory;
  /** The UCUM spelling of the resource's stored unit (the registry's, which samples are stored in). */
  unit: string;
  /** FHIR R4's vital-signs profile it follows. */
  profile?: string;
}

const loinc = (code: string, display: string): Coding => ({ system: SYSTEMS.loinc, code, display });
const profile = (name: string) => `http://hl7.org/fhir/StructureDefinition/${name}`;

/** The served resources; blood pressure is a panel with systolic and diastolic components. */
export const WEARABLE_CODES: readonly WearableCode[] = [
  { resource: 'heartrate', loinc: [loinc('8867-4', 'Heart rate')], category: 'vital-signs', unit: '/min', profile: profile('heartrate') },
  {
    resource: 'blood_pressure',
    loinc: [loinc('85354-9', 'Blood pressure panel with all children optional')],
    category: 'vital-signs',
    unit: 'mm[Hg]',
    profile: profile('bp'),
  },
  { resource: 'body_weight', loinc: [loinc('29463-7', 'Body weight')], category: 'vital-signs', unit: 'kg', profile: profile('bodyweight') },
  {
    resource: 'blood_oxygen',
    loinc: [loinc('2708-6', 'Oxygen saturation in Arterial blood'), loinc('59408-5', 'Oxygen saturation in Arterial blood by Pulse oximetry')],
    category: 'vital-signs',
    unit: '%',
    profile: profile('oxygensat'),
  },
  { resource: 'respiratory_rate', loinc: [loinc('9279-1', 'Respiratory rate')], category: 'vital-signs', unit: '/min', profile: profile('resprate') },
  { resource: 'body_temperature', loinc: [loinc('8310-5', 'Body temperature')], category: 'vital-signs', unit: 'Cel', profile: profile('bodytemp') },
  { resource: 'body_mass_index', loinc: [loinc('39156-5', 'Body mass index (BMI) [Ratio]')], category: 'vital-signs', unit: 'kg/m2', profile: profile('bmi') },
  { resource: 'glucose', loinc: [loinc('15074-8', 'Glucose [Moles/volume] in Blood')], category: 'laboratory', unit: 'mmol/L' },
  { resource: 'steps', loinc: [loinc('55423-8', 'Number of steps in unspecified time Pedometer')], category: 'activity', unit: '{steps}' },
  { resource: 'distance', loinc: [loinc('55430-3', 'Walking distance unspecified time Pedometer')], category: 'activity', unit: 'm' },
  { resource: 'calories_active', loinc: [loinc('41981-2', 'Calories burned')], category: 'activity', unit: 'kcal' },
];

const BY_RESOURCE = new Map(WEARABLE_CODES.map((code) => [code.resource, code]));

const CATEGORY_DISPLAY: Record<WearableCategory, string> = { 'vital-signs': 'Vital Signs', activity: 'Activity', laboratory: 'Laboratory' };

function category(code: WearableCategory): CodeableConcept {
  return { coding: [{ system: SYSTEMS.observationCategory, code, display: CATEGORY_DISPLAY[code] }], text: CATEGORY_DISPLAY[code] };
}

/** A sample's id: `w-<series>-<epoch microseconds>` (the samples' key). */
export const sampleObservationId = (row: Pick<SampleRow, 'series_id' | 'ts_us'>) => `w-${row.series_id}-${row.ts_us}`;
const SAMPLE_ID = /^w-(\d{1,18})-(-?\d{1,19})$/;

export function parseSampleObservationId(id: string): { seriesId: string; tsMicros: string } | null {
  const match = SAMPLE_ID.exec(id);
  return match ? { seriesId: match[1], tsMicros: match[2] } : null;
}

/** A stored sample as an Observation; null for a resource not served. */
export function wearableObservation(row: SampleRow): Observation | null {
  const code = BY_RESOURCE.get(row.resource);
  if (!code || row.value === null) return null;
  const display = code.loinc[code.loinc.length - 1].display;
  const value = (amount: number) => ({ ...quantity(amount, code.unit), code: code.unit, system: SYSTEMS.ucum, unit: code.unit });
  const interval = row.end_ts && row.end_ts.getTime() !== row.ts.getTime();
  const observation: Observation = {
    resourceType: 'Observation',
    id: sampleObservationId(row),
    meta: meta(row.updated_at, code.profile),
    status: 'final',
    category: [category(code.category)],
    code: { coding: code.loinc, text: display },
    subject: patientRef(row.user_id),
    ...(interval ? { effectivePeriod: { start: row.ts.toISOString(), end: row.end_ts!.toISOString() } } : { effectiveDateTime: row.ts.toISOString() }),
    // R4's Observation.performer cannot be a Device; the source is named on Observation.device.
    device: { display: `${row.provider} (${row.source_type})` },
  };
  if (row.resource === 'blood_pressure') {
    observation.component = [
      { code: { coding: [loinc('8480-6', 'Systolic blood pressure')], text: 'Systolic blood pressure' }, valueQuantity: value(row.value) },
      {
        code: { coding: [loinc('8462-4', 'Diastolic blood pressure')], text: 'Diastolic blood pressure' },
        ...(row.diastolic !== null
          ? { valueQuantity: value(row.diastolic) }
          : { dataAbsentReason: { coding: [{ system: SYSTEMS.dataAbsentReason, code: 'unknown' }] } }),
      },
    ];
  } else {
    observation.valueQuantity = value(row.value);
  }
  return observation;
}

/** The health-data resources a `category` and `code` search can match. */
export function wearableResourcesFor(categories: string[] | undefined, codes: Array<{ system?: string; code: string }> | undefined): string[] {
  return WEARABLE_CODES.filter(
    (entry) =>
      (!categories || categories.includes(entry.category)) &&
      (!codes ||
        codes.some(
          (token) =>
            entry.loinc.some((coding) => coding.code === token.code && (token.system === undefined || token.system === SYSTEMS.loinc)) ||
            (entry.resource === 'blood_pressure' &&
              ['8480-6', '8462-4'].includes(token.code) &&
              (token.system === undefined || token.system === SYSTEMS.loinc)),
        )),
  ).map((entry) => entry.resource);
}

const SLEEP_DURATION = loinc('93832-4', 'Sleep duration');

/** Whether a `category` and `code` search can match a sleep Observation (activity, LOINC 93832-4). */
export function sleepMatches(categories: string[] | undefined, codes: Array<{ system?: string; code: string }> | undefined): boolean {
  return (
    (!categories || categories.includes('activity')) &&
    (!codes || codes.some((token) => token.code === SLEEP_DURATION.code && (token.system === undefined || token.system === SYSTEMS.loinc)))
  );
}

/** A sleep's id: `s-<summary id>`. */
const SLEEP_ID = /^s-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

export function parseSleepObservationId(id: string): string | null {
  return SLEEP_ID.exec(id)?.[1] ?? null;
}

/** A sleep summary as an activity Observation of its duration asleep (`total`, seconds, in hours); null without one. */
export function sleepObservation(row: SleepRow): Observation | null {
  if (typeof row.data.total !== 'number') return null;
  return {
    resourceType: 'Observation',
    id: `s-${row.id}`,
    meta: meta(row.updated_at),
    status: 'final',
    category: [category('activity')],
    code: { coding: [SLEEP_DURATION], text: 'Sleep duration' },
    subject: patientRef(row.user_id),
    effectivePeriod: { start: new Date(row.data.bedtime_start).toISOString(), end: new Date(row.data.bedtime_stop).toISOString() },
    valueQuantity: { value: Math.round((row.data.total / 3600) * 100) / 100, unit: 'h', system: SYSTEMS.ucum, code: 'h' },
    device: { display: `${row.provider} (${row.source_type})` },
  };
}
