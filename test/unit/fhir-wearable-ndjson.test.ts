import { CopyLine, PartBuffer } from '../../src/fhir/export/copy-line';
import type { SampleFields } from '../../src/fhir/export/copy-line';
import { isoOfMicros, keysetOfMicros, sampleRow, SeriesLines } from '../../src/fhir/export/wearable-ndjson';
import type { SeriesRow } from '../../src/fhir/fhir-read-model';
import { wearableObservation } from '../../src/fhir/wearable-mapping';

const series = (resource: string, more: Partial<SeriesRow> = {}): SeriesRow => ({
  id: '4242',
  user_id: '0b7c9f0e-1d2e-4f3a-8b4c-5d6e7f8a9b0c',
  resource,
  provider: 'oura',
  source_type: 'ring',
  ...more,
});

const sample = (more: Partial<SampleFields> = {}): SampleFields => ({
  tsUs: '1759276800000000',
  endUs: null,
  value: '72',
  diastolic: null,
  updatedUs: '1759276860123456',
  ...more,
});

/** What the export wrote before: the mapping's object, stringified. */
const mapped = (row: SeriesRow, fields: SampleFields) => {
  const observation = wearableObservation(sampleRow(row, fields));
  return observation ? `${JSON.stringify(observation)}\n` : null;
};

describe('wearable NDJSON lines cut from templates', () => {
  const cases: Array<[string, SeriesRow, SampleFields]> = [
    ['heart rate at an instant', series('heartrate'), sample()],
    [
      'a fractional value and microseconds in every time',
      series('body_weight'),
      sample({ value: '81.35', tsUs: '1759276800029999', updatedUs: '1759276800000001' }),
    ],
    ['an interval (steps)', series('steps', { provider: 'garmin', source_type: 'watch' }), sample({ endUs: '1759277700000000', value: '1234' })],
    ['an end within the same millisecond (an instant)', series('steps'), sample({ endUs: '1759276800000999' })],
    ['blood pressure with a diastolic', series('blood_pressure'), sample({ value: '121', diastolic: '79.5' })],
    ['blood pressure without one', series('blood_pressure'), sample({ value: '121' })],
    ['a large and a tiny value', series('distance'), sample({ value: '1e+21' })],
    ['a tiny value', series('glucose'), sample({ value: '1.5e-07' })],
    ['NaN', series('heartrate'), sample({ value: 'NaN' })],
    ['a negative zero', series('calories_active'), sample({ value: '-0' })],
    ['before 1970', series('heartrate'), sample({ tsUs: '-1000001', updatedUs: '-1' })],
    ['text that JSON escapes', series('heartrate', { provider: 'a "quoted"\tprovider', source_type: 'back\\slash' }), sample()],
    ['a series id full of sevens', series('heartrate', { id: '7777777777777777' }), sample({ tsUs: '777777777777777' })],
  ];

  it.each(cases)('%s: the same bytes as the mapping', (_name, row, fields) => {
    const line = new SeriesLines(row).line(fields);
    expect(line).toBe(mapped(row, fields));
    expect(line).not.toBeNull();
    expect(JSON.parse(line!)).toEqual(JSON.parse(JSON.stringify(wearableObservation(sampleRow(row, fields)))));
  });

  it.each(cases)('%s: written from the COPY line’s bytes, the same bytes again', (_name, row, fields) => {
    const nullable = (text: string | null) => text ?? '\\N';
    const copied = Buffer.from(
      `${row.id}\t${fields.tsUs}\t${nullable(fields.endUs)}\t${nullable(fields.value)}\t${nullable(fields.diastolic)}\t${fields.updatedUs}\n`,
      'latin1',
    );
    const line = new CopyLine();
    expect(line.locate(copied, 0)).toBe(copied.length - 1);
    expect(line.series()).toBe(row.id);
    expect(line.seriesIs(row.id)).toBe(true);
    expect(line.seriesIs(`${row.id}1`)).toBe(false);
    const part = new PartBuffer(16);
    expect(new SeriesLines(row).write(part, line)).toBe(true);
    expect(part.lines).toBe(1);
    expect(part.bytes().toString('utf8')).toBe(mapped(row, fields));
  });

  it('finds where a COPY line ends, or that it goes on in the next chunk, and refuses a malformed one', () => {
    const line = new CopyLine();
    const chunk = Buffer.from('1\t2\t\\N\t3\t\\N\t4\n5\t6', 'latin1');
    expect(line.locate(chunk, 0)).toBe(13);
    expect(line.isNull(2)).toBe(true);
    expect(line.integer(1)).toBe(2);
    expect(line.locate(chunk, 14)).toBe(-1);
    expect(() => line.locate(Buffer.from('1\t2\n'), 0)).toThrow('fewer than six fields');
    expect(() => line.locate(Buffer.from('1\t2\t3\t4\t5\t6\t7\n'), 0)).toThrow('more than six fields');
  });

  it('writes no bytes for a sample without a value, nor for a resource the mapping does not serve', () => {
    const line = new CopyLine();
    const part = new PartBuffer(16);
    line.locate(Buffer.from('4242\t1759276800000000\t\\N\t\\N\t\\N\t1759276800000000\n'), 0);
    expect(new SeriesLines(series('heartrate')).write(part, line)).toBe(false);
    line.locate(Buffer.from('4242\t1759276800000000\t\\N\t72\t\\N\t1759276800000000\n'), 0);
    expect(new SeriesLines(series('hrv')).write(part, line)).toBe(false);
    expect(part.length).toBe(0);
  });

  it('reuses a series template for each shape and fills it per sample', () => {
    const lines = new SeriesLines(series('blood_pressure'));
    const samples = [sample({ diastolic: '80' }), sample({ tsUs: '1759276860000000' }), sample({ tsUs: '1759276920000000', diastolic: '81', value: '130' })];
    for (const fields of samples) expect(lines.line(fields)).toBe(mapped(series('blood_pressure'), fields));
  });

  it('writes no line for a sample without a value, nor for a resource the mapping does not serve', () => {
    expect(new SeriesLines(series('heartrate')).line(sample({ value: null }))).toBeNull();
    expect(new SeriesLines(series('hrv')).line(sample())).toBeNull();
  });

  it('turns epoch microseconds into the driver’s millisecond time and the keyset’s microsecond time', () => {
    expect(isoOfMicros('1759276800029999')).toBe('2025-10-01T00:00:00.029Z');
    expect(isoOfMicros('-1')).toBe('1969-12-31T23:59:59.999Z');
    expect(keysetOfMicros('1759276800029999')).toBe('2025-10-01T00:00:00.029999');
    expect(keysetOfMicros('-1')).toBe('1969-12-31T23:59:59.999999');
  });
});

describe('isoOfMicros', () => {
  it('writes what Date.prototype.toISOString writes, from year 0 to 9999 and beyond', () => {
    const ms = [
      0, -1, 1, 86_399_999, 86_400_000, 951_782_400_000, 1_759_276_800_029, -62_167_219_200_000, -62_167_219_200_001, 253_402_300_799_999, 253_402_300_800_000,
    ];
    for (let n = 0; n < 2000; n++) ms.push(Math.floor((Math.random() - 0.3) * 300_000_000_000_000));
    for (const value of ms) {
      expect(isoOfMicros((BigInt(value) * 1000n + 999n).toString())).toBe(new Date(value).toISOString());
      expect(isoOfMicros((BigInt(value) * 1000n).toString())).toBe(new Date(value).toISOString());
    }
  });
});
