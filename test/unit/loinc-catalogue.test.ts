import { nameKey, unitKey } from '../../src/lab-reports/parsing/loinc/normalise';
import { loincCheckDigit } from '../helpers/lab-report-catalogue';
import { LOINC_CATALOGUE_1763791766000 } from '../../src/db/migrations/snapshots/1763791766000-loinc-catalogue';
import { snapshotRows } from '../../src/db/migrations/snapshots/loinc-snapshot-row';
import { CURATED_LOINC } from '../../src/lab-tests/loinc';

/** Results with no unit by nature: presence, types and titres, an interpretation or an identifier, colour and clarity, pH, specific gravity, an index. */
const UNITLESS = /\[(Presence|Type|type|Titer|interpretation|Identifier)\]|^(Color|Appearance) of |^(Specific gravity|pH) of |free index/;

/** The matcher treats serum, plasma and blood as one specimen and urine as another (match.ts). */
const specimenGroup = (specimen: string) => (specimen === 'urine' ? 'urine' : 'blood');

describe('curated LOINC catalogue', () => {
  it('computes check digits as LOINC documents them', () => {
    // The worked example of the LOINC users' guide, and codes every lab uses.
    expect(loincCheckDigit('12345')).toBe(5);
    expect(loincCheckDigit('2345')).toBe(7);
    expect(loincCheckDigit('718')).toBe(7);
    expect(loincCheckDigit('98979')).toBe(8);
  });

  it('holds several hundred analytes under well-formed, distinct codes with valid check digits', () => {
    expect(CURATED_LOINC.length).toBeGreaterThanOrEqual(350);
    const bad = CURATED_LOINC.filter(({ code }) => {
      const match = /^(\d{1,7})-(\d)$/.exec(code);
      return !match || loincCheckDigit(match[1]) !== Number(match[2]);
    });
    expect(bad.map((loinc) => loinc.code)).toEqual([]);
    const codes = CURATED_LOINC.map((loinc) => loinc.code);
    expect(codes.filter((code, i) => codes.indexOf(code) !== i)).toEqual([]);
  });

  it('gives every entry a display name, a long common name and a known specimen', () => {
    for (const loinc of CURATED_LOINC) {
      expect([
        loinc.code,
        loinc.display.trim().length > 0,
        /\S/.test(loinc.name),
        ['serum_plasma', 'blood', 'plasma', 'urine'].includes(loinc.specimen),
      ]).toEqual([loinc.code, true, true, true]);
    }
  });

  it('has a unit for every quantitative analyte and none for presence, type or titre results', () => {
    const missing = CURATED_LOINC.filter((loinc) => !UNITLESS.test(loinc.name) && !loinc.unit?.trim());
    const spurious = CURATED_LOINC.filter((loinc) => /\[(Presence|Type|type)\]/.test(loinc.name) && loinc.unit !== null);
    expect(missing.map((loinc) => `${loinc.code} ${loinc.name}`)).toEqual([]);
    expect(spurious.map((loinc) => `${loinc.code} ${loinc.name}`)).toEqual([]);
  });

  it('shares no printed name between two entries the matcher could not tell apart (same specimen and unit)', () => {
    // A name two codes print in the same unit and specimen would tie, and the match would be
    // a coin toss; mass and molar twins (mg/dL vs mmol/L) share names on purpose.
    const owners = new Map<string, string[]>();
    for (const loinc of CURATED_LOINC) {
      const keys = new Set([loinc.display, ...loinc.aliases].map(nameKey));
      for (const key of keys) {
        const slot = `${key}|${specimenGroup(loinc.specimen)}|${unitKey(loinc.unit) ?? ''}`;
        owners.set(slot, [...(owners.get(slot) ?? []), loinc.code]);
      }
    }
    const shared = [...owners].filter(([, codes]) => codes.length > 1).map(([slot, codes]) => `${slot}: ${codes.join(', ')}`);
    expect(shared).toEqual([]);
  });

  it('repeats no alias within an entry and no alias equal to its display name', () => {
    // Compared as printed (case aside): a British spelling the matcher folds (Haemoglobin) is kept
    // on purpose, so the data says what labs print whatever the matcher's folding list holds.
    for (const loinc of CURATED_LOINC) {
      const keys = [loinc.display, ...loinc.aliases].map((name) => name.trim().toLowerCase());
      expect([loinc.code, keys.filter((key, i) => keys.indexOf(key) !== i)]).toEqual([loinc.code, []]);
    }
  });

  it('is exactly what the newest catalogue migration stores, so a change to it ships with a migration', () => {
    // Migrations carry frozen snapshots (src/db/migrations/snapshots): editing the live catalogue
    // without a new migration and snapshot would leave databases on the old one.
    expect(CURATED_LOINC).toEqual(snapshotRows(LOINC_CATALOGUE_1763791766000));
  });
});
