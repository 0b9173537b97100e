import { buildLoincCatalogue, type LoincCatalogue, type ParsedResult } from '../../src/lab-reports/parsing';
import { matchResult } from '../../src/lab-reports/parsing/loinc/match';
import { CURATED_LOINC } from '../../src/lab-tests/loinc';

/** The LOINC catalogue the migration stores, built straight from its data file (no database). */
export function curatedLoincCatalogue(): LoincCatalogue {
  return buildLoincCatalogue(
    CURATED_LOINC.map((l) => ({ code: l.code, name: l.name, display_name: l.display, unit: l.unit, aliases: l.aliases, specimen: l.specimen })),
  );
}

/**
 * LOINC's check digit (Mod 10, as the LOINC users' guide gives it): from the right, the digits in
 * odd positions are taken as one number and doubled, the even ones put in front of the result,
 * every digit of that summed, and the check digit is what brings the sum to the next multiple of
 * 10. Per digit that is: double the odd positions (summing the two digits of a product over 9).
 */
export function loincCheckDigit(digits: string): number {
  let sum = 0;
  [...digits].reverse().forEach((char, index) => {
    let value = Number(char);
    if (index % 2 === 0) {
      value *= 2;
      if (value > 9) value -= 9;
    }
    sum += value;
  });
  return (10 - (sum % 10)) % 10;
}

/** A parsed result as the parser gives one: a numeric value in range unless `more` says otherwise. */
export function parsedResult(test_name: string, units: string | null, value = '1', more: Partial<ParsedResult> = {}): ParsedResult {
  return {
    test_name,
    value,
    type: 'numeric',
    units,
    min_reference_range: null,
    max_reference_range: null,
    reference_text: null,
    flag: null,
    interpretation: 'normal',
    is_above_max_range: null,
    is_below_min_range: null,
    source_panel_name: null,
    specimen: null,
    page: 1,
    confidence: 1,
    notes: [],
    ...more,
  };
}

/** The LOINC code the matcher ranks first for a result. */
export function topLoincCode(result: ParsedResult, catalogue: LoincCatalogue): string | undefined {
  return matchResult(result, catalogue).loinc_matches[0]?.loinc_code;
}
