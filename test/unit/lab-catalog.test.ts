import {
  SEED_ANALYTES,
  SEED_LAB_ACCOUNTS,
  SEED_LAB_TESTS,
  SEED_LABS,
  SEED_LOINC_NAMES,
  seedMarkers,
} from '../../src/db/migrations/1763790002001-lab-catalog-seed';
import { loincCheckDigit } from '../helpers/lab-report-catalogue';
import { MarkerEntity } from '../../src/lab-tests/lab-catalog.entities';
import { MarkerGraph } from '../../src/lab-tests/lab-catalog.views';
import { DEFAULT_PHYSICIAN_ENFORCEMENT_DATE, LabAccountsService } from '../../src/lab-tests/lab-accounts.service';
import { interpretNumericResult, referenceRangeFor } from '../../src/lab-tests/reference-ranges';

const analyte = (key: string) => {
  const found = SEED_ANALYTES.find((candidate) => candidate.key === key);
  if (!found) throw new Error(key);
  return found;
};
const asMarker = (key: string): Pick<MarkerEntity, 'referenceMin' | 'referenceMax' | 'criticalLow' | 'criticalHigh' | 'referenceRangesBySex' | 'unit'> => {
  const a = analyte(key);
  return {
    referenceMin: a.range?.min ?? null,
    referenceMax: a.range?.max ?? null,
    criticalLow: a.critical?.low ?? null,
    criticalHigh: a.critical?.high ?? null,
    referenceRangesBySex: a.bySex ?? null,
    unit: a.unit,
  };
};

describe('lab catalog seed data', () => {
  it('uses well-formed, distinct LOINC codes with their long names', () => {
    expect(SEED_ANALYTES.length).toBeGreaterThanOrEqual(50);
    for (const { loinc } of SEED_ANALYTES) {
      expect(loinc).toMatch(/^\d{1,7}-\d$/);
      const [digits, check] = loinc.split('-');
      expect(`${loinc}: ${loincCheckDigit(digits)}`).toBe(`${loinc}: ${check}`);
      expect(SEED_LOINC_NAMES[loinc]).toBeTruthy();
    }
    expect(new Set(SEED_ANALYTES.map((a) => a.loinc)).size).toBe(SEED_ANALYTES.length);
    expect(new Set(SEED_ANALYTES.map((a) => a.key)).size).toBe(SEED_ANALYTES.length);
  });

  it('keeps the well-known codes', () => {
    const expected: Record<string, string> = {
      glucose: '2345-7',
      hemoglobin_a1c: '4548-4',
      ldl_cholesterol: '13457-7',
      hdl_cholesterol: '2085-9',
      triglycerides: '2571-8',
      cholesterol_total: '2093-3',
      tsh: '3016-3',
      free_t4: '3024-7',
      // As the seed wrote it; migration 1763790220000 recodes it to 62292-8 (lab-catalog e2e).
      vitamin_d_25_oh: '1989-3',
      ferritin: '2276-4',
      hemoglobin: '718-7',
      potassium: '2823-3',
      testosterone_total: '2986-8',
      hs_crp: '30522-7',
    };
    for (const [key, code] of Object.entries(expected)) expect(analyte(key).loinc).toBe(code);
  });

  it('has consistent reference and critical limits', () => {
    for (const a of SEED_ANALYTES) {
      const ranges = [a.range, a.bySex?.male, a.bySex?.female].filter((range) => range !== undefined);
      for (const range of ranges) {
        if (range.min !== undefined && range.max !== undefined) expect(range.min).toBeLessThan(range.max);
        if (a.critical?.low !== undefined && range.min !== undefined) expect(a.critical.low).toBeLessThan(range.min);
        if (a.critical?.high !== undefined && range.max !== undefined) expect(a.critical.high).toBeGreaterThan(range.max);
      }
    }
    expect(analyte('glucose')).toMatchObject({ unit: 'mg/dL', range: { min: 65, max: 99 }, critical: { low: 40, high: 400 } });
    expect(analyte('potassium').critical).toEqual({ low: 2.8, high: 6.2 });
  });

  it('gives every lab its markers with unique ids and provider ids, and panels of the same lab', () => {
    const markers = seedMarkers();
    expect(new Set(markers.map((marker) => marker.id)).size).toBe(markers.length);
    for (const lab of SEED_LABS) {
      const own = markers.filter((marker) => marker.lab_id === lab.id);
      expect(own.length).toBeGreaterThan(0);
      expect(new Set(own.map((marker) => marker.provider_id)).size).toBe(own.length);
    }
    const byId = new Map(markers.map((marker) => [marker.id, marker]));
    for (const panel of markers.filter((marker) => marker.type === 'panel')) {
      expect(panel.members.length).toBeGreaterThan(0);
      for (const id of panel.members) expect(byId.get(id)).toMatchObject({ lab_id: panel.lab_id, type: 'biomarker' });
    }
    // The same analyte at two labs: two markers, two provider ids.
    const glucose = markers.filter((marker) => marker.key === 'glucose');
    expect(glucose.map((marker) => marker.lab_id)).toEqual([1, 2, 3, 4]);
  });

  it('seeds orderable lab tests for each collection method at labs that offer it', () => {
    const markers = seedMarkers();
    expect(new Set(SEED_LAB_TESTS.map((test) => test.method))).toEqual(new Set(['testkit', 'walk_in_test', 'at_home_phlebotomy']));
    for (const test of SEED_LAB_TESTS) {
      const lab = SEED_LABS.find((candidate) => candidate.slug === test.lab);
      expect((lab?.collection_methods as readonly string[]).includes(test.method)).toBe(true);
      for (const key of test.markers) {
        const marker = markers.find((candidate) => candidate.lab_id === lab?.id && candidate.key === key);
        expect(marker?.a_la_carte_enabled).toBe(true);
      }
    }
  });

  it('seeds a platform account at every lab and accounts of every delegation kind and status', () => {
    for (const lab of SEED_LABS) {
      expect(
        SEED_LAB_ACCOUNTS.some(
          (account) => account.lab === lab.slug && account.environment === null && account.delegated_flow === 'not_delegated' && account.status === 'active',
        ),
      ).toBe(true);
    }
    expect(new Set(SEED_LAB_ACCOUNTS.map((account) => account.delegated_flow))).toEqual(
      new Set(['order_delegated', 'result_delegated', 'fully_delegated', 'not_delegated']),
    );
    expect(new Set(SEED_LAB_ACCOUNTS.map((account) => account.status))).toEqual(new Set(['active', 'pending', 'suspended', 'ready_to_launch']));
    expect(new Set(SEED_LAB_ACCOUNTS.map((account) => account.id)).size).toBe(SEED_LAB_ACCOUNTS.length);
  });
});

describe('reference ranges', () => {
  it('interprets numeric results as normal, abnormal or critical', () => {
    const glucose = asMarker('glucose');
    expect(interpretNumericResult(glucose, 85)).toBe('normal');
    expect(interpretNumericResult(glucose, 120)).toBe('abnormal');
    expect(interpretNumericResult(glucose, 60)).toBe('abnormal');
    expect(interpretNumericResult(glucose, 39)).toBe('critical');
    expect(interpretNumericResult(glucose, 401)).toBe('critical');
    expect(interpretNumericResult(asMarker('potassium'), 6.5)).toBe('critical');
    expect(interpretNumericResult(asMarker('potassium'), 2.7)).toBe('critical');
    expect(interpretNumericResult(asMarker('hemoglobin_a1c'), 6.1)).toBe('abnormal');
  });

  it('uses the range of the patient sex where it differs', () => {
    const hemoglobin = asMarker('hemoglobin');
    expect(interpretNumericResult(hemoglobin, 12.5, 'female')).toBe('normal');
    expect(interpretNumericResult(hemoglobin, 12.5, 'male')).toBe('abnormal');
    expect(referenceRangeFor(hemoglobin, 'other')).toMatchObject({ min: 11.7, max: 17.1, unit: 'g/dL' });
    const testosterone = asMarker('testosterone_total');
    expect(referenceRangeFor(testosterone, 'male')).toMatchObject({ min: 250, max: 827 });
    expect(interpretNumericResult(testosterone, 500)).toBe('normal');
    expect(interpretNumericResult(testosterone, 500, 'female')).toBe('abnormal');
    expect(referenceRangeFor(asMarker('hdl_cholesterol'), 'female')).toMatchObject({ min: 50, max: null });
  });
});

describe('physician rule', () => {
  const service = new LabAccountsService(null as never, null as never, new Date('2026-08-01T00:00:00Z'));

  it('applies to order- and fully-delegated accounts at the four delegated-account labs once enforced', () => {
    const enforced = new Date('2026-08-01T00:00:00Z');
    const grace = new Date('2026-07-31T23:59:59Z');
    for (const lab of ['quest', 'labcorp', 'bioreference', 'sonora_quest']) {
      expect(service.requiresPhysician({ delegatedFlow: 'order_delegated' }, lab, enforced)).toBe(true);
      expect(service.requiresPhysician({ delegatedFlow: 'fully_delegated' }, lab, enforced)).toBe(true);
      expect(service.requiresPhysician({ delegatedFlow: 'order_delegated' }, lab, grace)).toBe(false);
      expect(service.requiresPhysician({ delegatedFlow: 'result_delegated' }, lab, enforced)).toBe(false);
      expect(service.requiresPhysician({ delegatedFlow: 'not_delegated' }, lab, enforced)).toBe(false);
    }
    expect(service.requiresPhysician({ delegatedFlow: 'fully_delegated' }, 'us_biotek', enforced)).toBe(false);
  });

  it('takes the enforcement date from the provider, the default, or the call', () => {
    const early = new LabAccountsService(null as never, null as never, new Date('2020-01-01T00:00:00Z'));
    expect(early.requiresPhysician({ delegatedFlow: 'order_delegated' }, 'quest', new Date('2021-01-01T00:00:00Z'))).toBe(true);
    const byDefault = new LabAccountsService(null as never, null as never);
    const justBefore = new Date(DEFAULT_PHYSICIAN_ENFORCEMENT_DATE.getTime() - 1);
    expect(byDefault.requiresPhysician({ delegatedFlow: 'order_delegated' }, 'quest', justBefore)).toBe(false);
    expect(byDefault.requiresPhysician({ delegatedFlow: 'order_delegated' }, 'quest', justBefore, new Date(0))).toBe(true);
  });
});

describe('MarkerGraph', () => {
  const marker = (id: number, type: 'biomarker' | 'panel', loincId: number | null = null) =>
    Object.assign(new MarkerEntity(), { id, type, labId: 1, name: `m${id}`, slug: `m${id}`, providerId: String(id), loincId, aLaCarteEnabled: true, price: 1 });

  it('expands panels to their biomarkers, each once, in order', () => {
    const a = marker(1, 'biomarker', 10);
    const b = marker(2, 'biomarker', 11);
    const c = marker(3, 'biomarker');
    const panel = marker(900, 'panel');
    const graph = new MarkerGraph(
      new Map([a, b, c, panel].map((m) => [m.id, m])),
      new Map([[900, [1, 2]]]),
      new Map([
        [10, { id: 10, code: '2345-7', name: 'Glucose', slug: 'glucose', unit: 'mg/dL', displayName: 'Glucose', aliases: [], specimen: 'serum_plasma' }],
      ]),
    );
    expect(graph.expand([panel, b, c]).map((m) => m.id)).toEqual([1, 2, 3]);
    const view = graph.completeView(panel);
    expect(view.expected_results.map((result) => result.id)).toEqual([1, 2]);
    expect(view.expected_results[0].loinc).toMatchObject({ code: '2345-7' });
    expect(view.expected_results[1].loinc).toBeUndefined();
  });
});
