import { randomBytes, randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import type { FhirExportStep } from '../../workflows/contract';
import { PhiCipher } from '../../src/common/crypto';
import { createDataSource } from '../../src/db/data-source';
import { FhirExportWearables } from '../../src/fhir/export/fhir-export-wearables';
import { FhirExportsRepository } from '../../src/fhir/export/fhir-exports.repository';
import { openPart } from '../../src/fhir/export/ndjson-parts';
import { partStart } from '../../src/fhir/fhir-bundle';
import { FhirExportReadModel } from '../../src/fhir/fhir-export-read-model';
import type { Position } from '../../src/fhir/fhir-read-model';
import type { Cursor, DateBound } from '../../src/fhir/fhir-search';
import { wearableObservation, wearableResourcesFor } from '../../src/fhir/wearable-mapping';

/**
 * The export's streamed wearable samples (FhirExportWearables: COPY per batch of series, lines cut
 * from templates, gzipped sealed parts) against the paged path it replaces (samplesBySeries, the
 * mapping, JSON.stringify): the same lines in the same order, whatever the steps' sizes, when each
 * step resumes from the position the last one handed back (mid-series, across a month's partition).
 */
describe('FHIR export of wearable samples, streamed', () => {
  let db: DataSource;
  const cipher = new PhiCipher(randomBytes(32));
  const orgId = randomUUID();
  const teamId = randomUUID();
  const scope = { teamId, environment: 'sandbox' as const };
  const lastUpdated: DateBound[] = [{ op: '<', at: new Date(Date.now() + 3_600_000) }];

  const user = async () => {
    const id = randomUUID();
    await db.query(`INSERT INTO users (id, team_id, environment, client_user_id) VALUES ($1, $2, 'sandbox', $3)`, [id, teamId, `export-${id}`]);
    return id;
  };
  const series = async (userId: string, resource: string, provider = 'oura'): Promise<string> =>
    (
      await db.query(`INSERT INTO health_series (user_id, resource, provider, source_type) VALUES ($1, $2, $3, 'ring') RETURNING id`, [
        userId,
        resource,
        provider,
      ])
    )[0].id;

  beforeAll(async () => {
    db = createDataSource(process.env.DATABASE_URL as string, 4);
    await db.initialize();
    await db.query(`INSERT INTO orgs (id, name, plan) VALUES ($1, 'fhir-export', 'scale')`, [orgId]);
    await db.query(`INSERT INTO teams (id, org_id, name, region) VALUES ($1, $2, 'fhir-export', 'us')`, [teamId, orgId]);
    await db.query(
      `SELECT labflow_health_samples_partition(d::date) FROM generate_series(timestamp '2026-10-01', timestamp '2026-11-01', interval '1 month') d`,
    );
    const [alice, bob] = [await user(), await user()];
    const heart = await series(alice, 'heartrate');
    const pressure = await series(alice, 'blood_pressure', 'omron "cuff"');
    const steps = await series(bob, 'steps', 'garmin');
    await series(bob, 'hrv'); // not served: no series read
    // Heart rate across the end of October (two partitions), at microsecond times, one without a value.
    await db.query(
      `INSERT INTO health_samples (series_id, ts, value, timezone_offset)
       SELECT $1, timestamptz '2026-10-31 23:50:00.000123+00' + n * interval '1 minute 0.5 second', CASE WHEN n = 5 THEN NULL ELSE 50 + n * 0.25 END, 0
         FROM generate_series(0, 29) n`,
      [heart],
    );
    await db.query(
      `INSERT INTO health_samples (series_id, ts, value, diastolic) SELECT $1, timestamptz '2026-10-10 08:00:00+00' + n * interval '1 hour', 120 + n, CASE WHEN n % 3 = 0 THEN NULL ELSE 80 - n END
         FROM generate_series(0, 8) n`,
      [pressure],
    );
    await db.query(
      `INSERT INTO health_samples (series_id, ts, end_ts, value) SELECT $1, timestamptz '2026-10-12 00:00:00+00' + n * interval '15 minutes',
              timestamptz '2026-10-12 00:00:00+00' + n * interval '15 minutes' + CASE WHEN n = 2 THEN interval '0.0004 second' ELSE interval '15 minutes' END, 100 * n + 1e-7
         FROM generate_series(0, 11) n`,
      [steps],
    );
  });

  afterAll(async () => {
    await db.query(`DELETE FROM fhir_exports WHERE team_id = $1`, [teamId]);
    await db.query(`DELETE FROM users WHERE team_id = $1`, [teamId]);
    await db.query(`DELETE FROM teams WHERE id = $1`, [teamId]);
    await db.query(`DELETE FROM orgs WHERE id = $1`, [orgId]);
    await db.destroy();
  });

  /** What the paged path writes: every sample of the scope's series in storage order, mapped and stringified. */
  async function pagedLines(): Promise<string[]> {
    const reads = new FhirExportReadModel(db);
    const lines: string[] = [];
    let after: Position | undefined;
    for (;;) {
      const rows = await reads.samplesBySeries(scope, { resources: wearableResourcesFor(undefined, undefined), lastUpdated, after, limit: 4 });
      for (const row of rows.slice(0, 4)) {
        const observation = wearableObservation(row);
        if (observation) lines.push(JSON.stringify(observation));
      }
      if (rows.length <= 4) return lines;
      after = { at: rows[3].keyset_at, id: rows[3].series_id };
    }
  }

  it.each([
    ['one part of 7 samples a step', 1, 7],
    ['three parts of 5 a step', 3, 5],
    ['everything in one step', 20, 1000],
  ])('writes the paged path’s lines, in order: %s', async (_name, parts, partRows) => {
    const exportId = randomUUID();
    await db.query(
      `INSERT INTO fhir_exports (id, team_id, environment, request_url, base_url, types, transaction_time, status)
       VALUES ($1, $2, 'sandbox', 'x', 'x', '{Observation}', now(), 'in_progress')`,
      [exportId, teamId],
    );
    const writer = new FhirExportWearables(new FhirExportReadModel(db), new FhirExportsRepository(db), cipher);
    let position: Cursor = partStart('wearable');
    let seq = 0;
    let steps = 0;
    for (; position.part === 'wearable'; steps++) {
      const step: FhirExportStep = await writer.write(exportId, scope, lastUpdated, { seq, position, parts, partRows });
      expect(step.gone).toBe(false);
      ({ seq } = step);
      position = step.position!;
    }
    expect(position).toEqual(partStart('sleep'));
    const stored: Array<{ content_enc: Buffer; count: number }> = await db.query(
      `SELECT content_enc, count FROM fhir_export_parts WHERE export_id = $1 ORDER BY seq`,
      [exportId],
    );
    expect(stored).toHaveLength(seq);
    const lines: string[] = [];
    for (const part of stored) {
      const text = (await openPart(cipher, part.content_enc)).toString('utf8');
      expect(text.endsWith('\n')).toBe(true);
      const partLines = text.slice(0, -1).split('\n');
      expect(partLines).toHaveLength(part.count);
      lines.push(...partLines);
    }
    const expected = await pagedLines();
    expect(expected).toHaveLength(30 - 1 + 9 + 12);
    expect(lines).toEqual(expected);
    if (partRows < 50) expect(steps).toBeGreaterThan(1);
  });
});
