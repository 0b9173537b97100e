import { matchResult } from '../../src/lab-reports/parsing/loinc/match';
import { curatedLoincCatalogue, parsedResult } from '../helpers/lab-report-catalogue';

describe('a result naming a virus by its letters', () => {
  const catalogue = curatedLoincCatalogue();
  const codes = (name: string) => matchResult(parsedResult(name, null, 'Non-Reactive', { type: 'comment' }), catalogue).loinc_matches.map((m) => m.loinc_code);

  it('is matched among that virus’s tests: `HCV Antibody` is no `HIV Antibody` one letter off, nor an antinuclear antibody', () => {
    const hcv = codes('HCV Antibody');
    expect(hcv[0]).toBe('13955-0');
    expect(hcv).not.toContain('7918-6');
    expect(hcv).not.toContain('8061-4');
  });

  it('keeps the tests of the virus it names', () => {
    expect(codes('HIV Antibody')[0]).toBe('7918-6');
    expect(codes('Anti-HCV')[0]).toBe('13955-0');
  });
});
