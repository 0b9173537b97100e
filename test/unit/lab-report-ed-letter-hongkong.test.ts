import { parseReport } from '../../src/lab-reports/parsing';
import { readName } from '../../src/lab-reports/parsing/names';
import { curatedLoincCatalogue, parsedResult, topLoincCode } from '../helpers/lab-report-catalogue';
import { line, metadataOf, textPage } from '../helpers/lab-report-lines';

/** Reports printed by an emergency department, a fertility clinic's letter and a Hong Kong hospital. */

describe('an emergency department’s result list', () => {
  it('reads a table whose first column is each row’s collection time, and no provider from the user who printed it', () => {
    const parsed = parseReport(
      textPage(
        [[0, 'Sagebrush Valley Medical Center']],
        [
          [0, 'Print Date/Time: 01/29/25 13:54'],
          [250, 'Requested by: RN.KLAM'],
        ],
        [[0, 'Ordering Provider: Mabry, Terrence DO']],
        [[0, 'Endocrine']],
        [
          [0, 'Collected'],
          [100, 'Lab Name'],
          [200, 'Result'],
          [260, 'Flag'],
          [300, 'Units'],
          [360, 'Normal Range'],
        ],
        [
          [0, '11/15/2025 01:03'],
          [100, 'TSH'],
          [200, '2.85'],
          [300, 'uIU/mL'],
          [360, '[0.40-4.50]'],
        ],
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value, r.units, r.source_panel_name])).toEqual([['TSH', '2.85', 'uIU/mL', 'Endocrine']]);
    expect(parsed.metadata.ordering_provider).toBe('Terrence Mabry');
  });
});

describe('a clinic’s results letter', () => {
  it('reads the signing doctor as the provider when nothing labels one, and no row from the addressee’s address', () => {
    const parsed = parseReport(
      textPage(
        [[0, 'Cypress Reproductive Medicine']],
        [[0, 'James Thomas Whitfield']],
        [[0, '910 W 29th St, Apt 214']],
        [[0, 'Austin, TX 78746']],
        [
          [0, 'Test'],
          [150, 'Result'],
          [250, 'Units'],
          [350, 'Reference Range'],
        ],
        [
          [0, 'AMH'],
          [150, '2.1'],
          [250, 'ng/mL'],
          [350, '1.0 - 3.5'],
        ],
        [[0, 'Sincerely,']],
        [[0, 'Sunita Raman, MD, MS']],
      ),
    );
    expect(parsed.results.map((r) => r.test_name)).toEqual(['AMH']);
    expect(parsed.metadata.ordering_provider).toBe('Sunita Raman');
  });
});

describe('a Hong Kong hospital’s report', () => {
  it('reads Cantonese names surname first, and leaves one whose both ends are surnames unread', () => {
    expect(readName('LAU Ka Yan')).toMatchObject({ first: 'Ka Yan', last: 'LAU' });
    expect(readName('LEUNG KWOK KEUNG')).toMatchObject({ first: 'KWOK KEUNG', last: 'LEUNG' });
    expect(metadataOf(line(40, [0, 'Requesting Doctor'], [150, 'Dr. LO Ka Wing'])).ordering_provider).toBe('Ka Wing LO');
    expect(readName('CHOW KA HO')).toMatchObject({ first: null, last: null });
  });
});

describe('an emergency department’s list whose every row prints its own collection time', () => {
  const edList = (...times: string[]) =>
    parseReport(
      textPage(
        [[0, 'Sagebrush Valley Medical Center']],
        [[0, 'Final Verified: 1/29/2025 13:54']],
        [
          [0, 'Lab Name'],
          [100, 'Result'],
          [160, 'Units'],
          [230, 'Reference Range'],
          [330, 'Coll Date/Time'],
        ],
        [
          [0, 'Glucose Lvl'],
          [100, '92'],
          [160, 'mg/dL'],
          [230, '65-99'],
          [330, times[0]],
        ],
        [[20, 'eGFR calculated by the CKD-EPI 2021 equation (race-free).']],
        [
          [0, 'Bili Total'],
          [100, '0.7'],
          [160, 'mg/dL'],
          [230, '0.2-1.2'],
          [330, times[1]],
        ],
      ),
    );

  it('reads the rows’ one day as the report’s collection date, and no row from a sentence under a row', () => {
    const parsed = edList('01/27/25 17:58', '01/27/25 19:02');
    expect(parsed.metadata.date_collected).toBe('2025-01-27');
    expect(parsed.results.map((r) => [r.test_name, r.value])).toEqual([
      ['Glucose Lvl', '92'],
      ['Bili Total', '0.7'],
    ]);
  });

  it('matches `Bili Total` as total bilirubin', () => {
    expect(topLoincCode(parsedResult('Bili Total', 'mg/dL', '0.7'), curatedLoincCatalogue())).toBe('1975-2');
  });

  it('leaves the collection date null when the rows were collected on two days', () => {
    expect(edList('01/27/25 23:58', '01/28/25 00:40').metadata.date_collected).toBeNull();
  });
});
