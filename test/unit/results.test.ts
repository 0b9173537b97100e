import { serialization } from '@tryvital/vital-node';
import { SEED_LOINC_NAMES, SEED_PANELS, seedMarkers } from '../../src/db/migrations/1763790002001-lab-catalog-seed';
import { interpretNumericResult, referenceRangeFor } from '../../src/lab-tests/reference-ranges';
import {
  ageInYears,
  buildLabResults,
  buildResultMetadata,
  generateSandboxResults,
  interpretResults,
  type BiomarkerResult,
  type ResultInterpretation,
  type ResultMarker,
  type SandboxResultOptions,
} from '../../src/results';

const slugify = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** Every biomarker Quest (lab 1) runs, as the order activity would load them, panel members with their panel. */
function questBiomarkers(): ResultMarker[] {
  const all = seedMarkers().filter((marker) => marker.lab_id === 1);
  const panelOf = new Map<number, (typeof all)[number]>();
  for (const panel of all.filter((marker) => marker.type === 'panel')) for (const id of panel.members) panelOf.set(id, panel);
  return all
    .filter((marker) => marker.type === 'biomarker')
    .map((marker) => {
      const parent = panelOf.get(marker.id);
      return {
        id: marker.id,
        name: marker.name,
        slug: marker.key,
        providerId: marker.provider_id,
        unit: marker.unit,
        referenceMin: marker.analyte?.range?.min ?? null,
        referenceMax: marker.analyte?.range?.max ?? null,
        criticalLow: marker.analyte?.critical?.low ?? null,
        criticalHigh: marker.analyte?.critical?.high ?? null,
        referenceRangesBySex: marker.analyte?.bySex ?? null,
        loinc: marker.loinc ? { code: marker.loinc, slug: slugify(SEED_LOINC_NAMES[marker.loinc]) } : null,
        parent: parent ? { id: parent.id, name: parent.name, slug: parent.key, providerId: parent.provider_id } : null,
      };
    });
}

const MARKERS = questBiomarkers();
const bySlug = (slug: string) => {
  const marker = MARKERS.find((candidate) => candidate.slug === slug);
  if (!marker) throw new Error(slug);
  return marker;
};
const CMP = SEED_PANELS.find((panel) => panel.key === 'comprehensive_metabolic_panel')!.members.map(bySlug);
/** Hormones with sex-only or no ranges and no critical limits. */
const HORMONES = ['testosterone_free', 'progesterone', 'estradiol', 'prolactin'].map(bySlug);

const LEVELS: ResultInterpretation[] = ['normal', 'abnormal', 'critical'];
const options = (overrides: Partial<SandboxResultOptions> = {}): SandboxResultOptions => ({
  interpretation: 'normal',
  hasMissingResults: false,
  collectedAt: new Date('2026-03-02T14:30:00.000Z'),
  seed: 'order-7f1c',
  ...overrides,
});

/** Checks one result against the catalog: interpretation and flags agree with the value. */
function expectConsistent(result: BiomarkerResult, marker: ResultMarker, sex: string | null | undefined): void {
  const range = referenceRangeFor(marker, sex);
  const label = `${marker.slug} ${result.type} ${result.result}`;
  if (result.type === 'numeric') {
    const value = Number(result.result);
    expect(`${label}: ${Number.isFinite(value)}`).toBe(`${label}: true`);
    expect(`${label}: ${result.interpretation}`).toBe(`${label}: ${interpretNumericResult(marker, value, sex)}`);
    expect(result.is_above_max_range).toBe(range.max !== null && value > range.max);
    expect(result.is_below_min_range).toBe(range.min !== null && value < range.min);
  } else if (result.type === 'range') {
    const match = /^([<>])(-?\d+(?:\.\d+)?)$/.exec(result.result);
    expect(match).not.toBeNull();
    const [, op, boundText] = match!;
    const bound = Number(boundText);
    // Every value the inequality admits (just past the bound) reads as the stated level.
    const probe = op === '>' ? bound + 1e-9 : bound - 1e-9;
    expect(`${label}: ${result.interpretation}`).toBe(`${label}: ${interpretNumericResult(marker, probe, sex)}`);
    expect(result.is_above_max_range).toBe(op === '>' && range.max !== null && bound >= range.max);
    expect(result.is_below_min_range).toBe(op === '<' && range.min !== null && bound <= range.min);
  } else {
    expect(result.type).toBe('comment');
    expect(result.notes).toBeTruthy();
  }
  if (range.min !== null) expect(result.type === 'comment' || result.min_range_value === range.min).toBe(true);
  if (range.max !== null) expect(result.type === 'comment' || result.max_range_value === range.max).toBe(true);
}

describe('generateSandboxResults', () => {
  it.each(LEVELS)('%s: every result of every Quest biomarker reads as asked, values agree with the catalog', (level) => {
    for (const sex of ['male', 'female', null]) {
      for (const seed of ['a', 'order-1', 'f3e0c1d2-9b8a-4c7d-8e6f-5a4b3c2d1e0f']) {
        const { results, missingResults } = generateSandboxResults(MARKERS, options({ interpretation: level, seed, sex }));
        expect(missingResults).toEqual([]);
        expect(results.map((r) => r.slug)).toEqual(MARKERS.map((m) => m.slug));
        results.forEach((result, index) => {
          const marker = MARKERS[index];
          const range = referenceRangeFor(marker, sex);
          const hasCritical = range.criticalLow !== null || range.criticalHigh !== null;
          const expected = level === 'critical' && !hasCritical ? 'abnormal' : level;
          expect(`${marker.slug}: ${result.interpretation}`).toBe(`${marker.slug}: ${expected}`);
          expectConsistent(result, marker, sex);
        });
        expect(interpretResults(results)).toBe(level);
      }
    }
  });

  it('cycles numeric, comment and range over the reported markers, falling back where a type cannot carry the level', () => {
    const { results } = generateSandboxResults(MARKERS, options({ interpretation: 'abnormal' }));
    const counts = results.reduce<Record<string, number>>((acc, r) => ({ ...acc, [r.type]: (acc[r.type] ?? 0) + 1 }), {});
    expect(counts.numeric).toBeGreaterThan(0);
    expect(counts.comment).toBeGreaterThan(0);
    expect(counts.range).toBeGreaterThan(0);
    results.forEach((result, index) => {
      if (index % 3 === 1) expect(result.type).toBe('comment');
      if (index % 3 === 0) expect(['numeric', 'comment']).toContain(result.type);
    });
    // Glucose (0-based position 0 of Quest's markers) is numeric and abnormal.
    expect(results[0]).toMatchObject({ slug: 'glucose', type: 'numeric', interpretation: 'abnormal' });
  });

  it('honours result_types', () => {
    const onlyNumeric = generateSandboxResults(CMP, options({ resultTypes: ['numeric'], interpretation: 'critical' })).results;
    // eGFR etc. without critical limits are abnormal numbers; the rest critical numbers.
    expect(onlyNumeric.every((r) => r.type === 'numeric')).toBe(true);
    expect(onlyNumeric.filter((r) => r.interpretation === 'critical').length).toBeGreaterThan(0);
    const onlyComments = generateSandboxResults(CMP, options({ resultTypes: ['comment'] })).results;
    expect(onlyComments.every((r) => r.type === 'comment' && r.interpretation === 'normal')).toBe(true);
    const coded = generateSandboxResults(CMP, options({ resultTypes: ['coded_value'], interpretation: 'abnormal' })).results;
    expect(coded.map((r) => [r.type, r.result, r.interpretation])).toEqual(CMP.map(() => ['coded_value', 'Positive', 'abnormal']));
    const codedNormal = generateSandboxResults(CMP, options({ resultTypes: ['coded_value', 'numeric'] })).results;
    expect(codedNormal.map((r) => r.type)).toEqual(CMP.map((_, index) => (index % 2 === 0 ? 'coded_value' : 'numeric')));
    expect(codedNormal.filter((r) => r.type === 'coded_value').every((r) => r.result === 'Negative' && r.interpretation === 'normal')).toBe(true);
  });

  it('unknown: the values of a normal report, each without an interpretation', () => {
    const normal = generateSandboxResults(CMP, options({ interpretation: 'normal' })).results;
    const unknown = generateSandboxResults(CMP, options({ interpretation: 'unknown' })).results;
    expect(unknown.map((r) => r.interpretation)).toEqual(CMP.map(() => 'unknown'));
    expect(unknown.filter((r) => r.type !== 'comment')).toEqual(normal.filter((r) => r.type !== 'comment').map((r) => ({ ...r, interpretation: 'unknown' })));
    expect(unknown.filter((r) => r.type === 'comment').every((r) => r.result === 'See note' && r.notes === 'Reported without an interpretation.')).toBe(true);
    expect(interpretResults(unknown)).toBe('unknown');
  });

  it('is deterministic for a seed and differs between seeds', () => {
    const first = generateSandboxResults(MARKERS, options({ interpretation: 'abnormal', hasMissingResults: true, seed: 's1' }));
    const again = generateSandboxResults(MARKERS, options({ interpretation: 'abnormal', hasMissingResults: true, seed: 's1' }));
    const other = generateSandboxResults(MARKERS, options({ interpretation: 'abnormal', hasMissingResults: true, seed: 's2' }));
    expect(again).toEqual(first);
    expect(JSON.stringify(other)).not.toBe(JSON.stringify(first));
    const spy = jest.spyOn(Math, 'random');
    generateSandboxResults(MARKERS, options({ seed: 's3' }));
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });

  it('a critical report has a critical result even when no marker has critical limits', () => {
    expect(HORMONES.every((m) => m.criticalLow === null && m.criticalHigh === null)).toBe(true);
    const { results } = generateSandboxResults(HORMONES, options({ interpretation: 'critical', sex: 'female' }));
    expect(interpretResults(results)).toBe('critical');
    expect(results.filter((r) => r.interpretation === 'critical')).toHaveLength(1);
    expect(results[0]).toMatchObject({ type: 'comment', interpretation: 'critical' });
  });

  it('reports markers without any range as comments when they cannot be abnormal numbers', () => {
    const { results } = generateSandboxResults([bySlug('testosterone_free')], options({ interpretation: 'abnormal', resultTypes: ['numeric'] }));
    expect(results).toEqual([expect.objectContaining({ type: 'comment', interpretation: 'abnormal' })]);
    const normal = generateSandboxResults([bySlug('testosterone_free')], options({ resultTypes: ['numeric'] })).results;
    expect(normal[0]).toMatchObject({ type: 'numeric', interpretation: 'normal', is_above_max_range: false, is_below_min_range: false });
    expect(normal[0].reference_range).toBeUndefined();
  });

  it('has_missing_results moves some markers (not all) to missing_results', () => {
    for (const seed of ['a', 'b', 'c', 'd', 'e']) {
      const { results, missingResults } = generateSandboxResults(CMP, options({ hasMissingResults: true, seed, interpretation: 'critical' }));
      expect(missingResults.length).toBeGreaterThan(0);
      expect(results.length).toBeGreaterThan(0);
      expect(results.length + missingResults.length).toBe(CMP.length);
      expect(new Set([...results.map((r) => r.slug), ...missingResults.map((m) => m.slug)]).size).toBe(CMP.length);
      expect(interpretResults(results)).toBe('critical');
      for (const missing of missingResults) {
        expect(['quantity_not_sufficient_failure', 'collection_process_failure', 'internal_lab_failure']).toContain(missing.inferred_failure_type);
        expect(missing.source_markers).toEqual([expect.objectContaining({ slug: 'comprehensive_metabolic_panel' })]);
      }
    }
    expect(generateSandboxResults(CMP.slice(0, 2), options({ hasMissingResults: true })).results).toHaveLength(1);
    expect(generateSandboxResults(CMP.slice(0, 1), options({ hasMissingResults: true })).missingResults).toHaveLength(1);
    expect(generateSandboxResults([], options({ hasMissingResults: true, interpretation: 'critical' }))).toEqual({ results: [], missingResults: [] });
  });

  it('uses sex-specific ranges', () => {
    const hemoglobin = bySlug('hemoglobin'); // male 13.2-17.1, female 11.7-15.5
    for (const sex of ['male', 'female']) {
      const [result] = generateSandboxResults([hemoglobin], options({ sex, resultTypes: ['numeric'], interpretation: 'abnormal' })).results;
      expect(result.reference_range).toBe(sex === 'male' ? '13.2-17.1' : '11.7-15.5');
      expect(interpretNumericResult(hemoglobin, Number(result.result), sex)).toBe('abnormal');
    }
  });

  it('fills identity fields from the catalog', () => {
    const [glucose] = generateSandboxResults([bySlug('glucose')], options({ resultTypes: ['numeric'] })).results;
    expect(glucose).toMatchObject({
      name: 'Glucose',
      slug: 'glucose',
      type: 'numeric',
      unit: 'mg/dL',
      timestamp: '2026-03-02T14:30:00.000Z',
      reference_range: '65-99',
      min_range_value: 65,
      max_range_value: 99,
      interpretation: 'normal',
      loinc: '2345-7',
      provider_id: '10001',
      source_markers: [{ marker_id: 1901, name: 'Comprehensive Metabolic Panel', slug: 'comprehensive_metabolic_panel', provider_id: '10901' }],
    });
    expect(Number(glucose.result)).toBeGreaterThanOrEqual(65);
    expect(Number(glucose.result)).toBeLessThanOrEqual(99);
  });
});

describe('interpretResults', () => {
  it('takes the worst interpretation', () => {
    expect(interpretResults([])).toBe('normal');
    expect(interpretResults([{ interpretation: 'normal' }, {}])).toBe('normal');
    expect(interpretResults([{ interpretation: 'normal' }, { interpretation: 'abnormal' }])).toBe('abnormal');
    expect(interpretResults([{ interpretation: 'critical' }, { interpretation: 'abnormal' }, { interpretation: 'normal' }])).toBe('critical');
    expect(interpretResults([{ interpretation: 'unknown' }, { interpretation: 'abnormal' }])).toBe('abnormal');
    // Results, none with a level: the report is unknown.
    expect(interpretResults([{ interpretation: 'unknown' }, { interpretation: null }])).toBe('unknown');
  });
});

describe('buildResultMetadata', () => {
  const base = {
    patient: { firstName: 'Ada', lastName: 'Lovelace', dob: '1990-03-03' },
    provider: { firstName: 'Grace', lastName: 'Hopper' },
    laboratory: 'Quest Diagnostics',
    clia: '05D0642827',
    specimenNumber: 'SMP-42',
    collectedAt: new Date('2026-03-02T14:30:00.000Z'),
    receivedAt: new Date('2026-03-03T09:00:00.000Z'),
    reportedAt: new Date('2026-03-05T18:00:00.000Z'),
    status: 'final' as const,
    interpretation: 'abnormal' as const,
    patientId: 'user-1',
    accountId: 'account-1',
  };

  it('builds the metadata of GET /v3/order/{id}/result', () => {
    expect(buildResultMetadata(base)).toEqual({
      age: '35', // turns 36 on 2026-03-03, the day after collection
      dob: '1990-03-03',
      'clia_#': '05D0642827',
      patient: 'Ada Lovelace',
      provider: 'Grace Hopper',
      laboratory: 'Quest Diagnostics',
      date_reported: '2026-03-05T18:00:00.000Z',
      date_collected: '2026-03-02T14:30:00.000Z',
      specimen_number: 'SMP-42',
      date_received: '2026-03-03T09:00:00.000Z',
      status: 'final',
      interpretation: 'abnormal',
      patient_id: 'user-1',
      account_id: 'account-1',
    });
  });

  it('leaves out what is unknown and names the network physician', () => {
    const metadata = buildResultMetadata({
      ...base,
      provider: null,
      clia: null,
      collectedAt: null,
      receivedAt: null,
      patientId: null,
      accountId: null,
      status: 'partial',
    });
    expect(metadata).toEqual({
      age: '36', // on the report date
      dob: '1990-03-03',
      patient: 'Ada Lovelace',
      provider: 'labflow network physician',
      laboratory: 'Quest Diagnostics',
      date_reported: '2026-03-05T18:00:00.000Z',
      specimen_number: 'SMP-42',
      status: 'partial',
      interpretation: 'abnormal',
    });
  });

  it('computes ages in whole years', () => {
    expect(ageInYears('2000-02-29', new Date('2025-02-28T23:59:59Z'))).toBe(24);
    expect(ageInYears('2000-02-29', new Date('2025-03-01T00:00:00Z'))).toBe(25);
    expect(ageInYears('2000-02-29', new Date('2024-02-29T00:00:00Z'))).toBe(24);
    expect(ageInYears('1990-12-31', new Date('2026-12-31T00:00:00Z'))).toBe(36);
    expect(ageInYears('2026-01-01', new Date('2026-01-01T00:00:00Z'))).toBe(0);
    expect(() => ageInYears('01/02/1990', new Date())).toThrow(/YYYY-MM-DD/);
    expect(() => ageInYears('2030-01-01', new Date('2026-01-01T00:00:00Z'))).toThrow();
  });
});

describe('SDK serializers read the shapes', () => {
  const strict = { unrecognizedObjectKeys: 'fail' } as const;

  it.each(LEVELS)('%s report with missing results parses as LabResultsRaw', (level) => {
    const { results, missingResults } = generateSandboxResults(MARKERS, options({ interpretation: level, hasMissingResults: true, sex: 'female' }));
    const metadata = buildResultMetadata({
      patient: { firstName: 'Ada', lastName: 'Lovelace', dob: '1990-03-03' },
      provider: null,
      laboratory: 'Quest Diagnostics',
      specimenNumber: 'SMP-42',
      collectedAt: new Date('2026-03-02T14:30:00.000Z'),
      receivedAt: new Date('2026-03-03T09:00:00.000Z'),
      reportedAt: new Date('2026-03-05T18:00:00.000Z'),
      status: 'final',
      interpretation: interpretResults(results),
      patientId: 'user-1',
      accountId: 'account-1',
    });
    const body = buildLabResults(metadata, results, missingResults);
    const typed: serialization.LabResultsRaw.Raw = body; // the wire types line up at compile time too
    const json = JSON.parse(JSON.stringify(typed));

    const parsed = serialization.LabResultsRaw.parseOrThrow(json, strict);
    expect(parsed.metadata.interpretation).toBe(level);
    expect(parsed.metadata.clia).toBeUndefined();
    expect(parsed.missingResults?.length).toBe(missingResults.length);
    expect(Array.isArray(parsed.results)).toBe(true);
    for (const result of json.results) {
      const one = serialization.BiomarkerResult.parseOrThrow(result, strict);
      expect(one.timestamp).toEqual(new Date('2026-03-02T14:30:00.000Z'));
      expect(['normal', 'abnormal', 'critical']).toContain(serialization.Interpretation.parseOrThrow(one.interpretation));
      expect(serialization.ResultType.parseOrThrow(one.type)).toBe(result.type);
    }
    for (const missing of json.missing_results) serialization.MissingBiomarkerResult.parseOrThrow(missing, strict);
    const meta = serialization.LabResultsMetadata.parseOrThrow(json.metadata, strict);
    expect(meta).toMatchObject({ age: '35', specimenNumber: 'SMP-42', patientId: 'user-1', accountId: 'account-1', status: 'final' });
  });

  it('leaves missing_results out when nothing is missing', () => {
    const { results } = generateSandboxResults(CMP, options());
    const body = buildLabResults(
      buildResultMetadata({
        patient: { firstName: 'A', lastName: 'B', dob: '1980-01-01' },
        provider: null,
        laboratory: 'Quest Diagnostics',
        clia: '05D0642827',
        specimenNumber: 'S',
        collectedAt: null,
        receivedAt: null,
        reportedAt: new Date('2026-03-05T18:00:00.000Z'),
        status: 'final',
        interpretation: 'normal',
      }),
      results,
    );
    expect('missing_results' in body).toBe(false);
    expect(serialization.LabResultsRaw.parseOrThrow(JSON.parse(JSON.stringify(body)), strict).metadata.clia).toBe('05D0642827');
  });
});
