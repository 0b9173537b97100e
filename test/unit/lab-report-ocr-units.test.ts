import { repairOcrUnit, splitOcrUnit } from '../../src/lab-reports/parsing/ocr-units';
import { restoreIntervalDecimal } from '../../src/lab-reports/parsing/ocr-decimals';
import { flagMeaning, isFlag, parseRange, parseValue } from '../../src/lab-reports/parsing/values';

describe('units read by OCR', () => {
  it('repairs a slash lost or read as a letter when one known unit is that close', () => {
    expect(repairOcrUnit('IUmL')).toBe('IU/mL');
    expect(repairOcrUnit('mgldL')).toBe('mg/dL');
    expect(repairOcrUnit('mg/dL')).toBe('mg/dL');
    // Two known units one slash away: the one with the letters as read, case and all.
    expect(repairOcrUnit('KuL')).toBe('K/uL');
    expect(repairOcrUnit('IUL')).toBe('IU/L');
    expect(repairOcrUnit('Kul')).toBe('Kul');
  });

  it("repairs a cell count's power of ten, its caret read as a 7 and its slash or µ misread", () => {
    for (const read of ['1073uL', '1073muL', '1073 ul.', '1073L', '103/uL']) expect(repairOcrUnit(read)).toBe('10^3/uL');
    for (const read of ['1076/ul.', '1076 pL', '1076 Ll']) expect(repairOcrUnit(read)).toBe('10^6/uL');
    expect(repairOcrUnit('1079/L')).toBe('10^9/L');
    expect(repairOcrUnit('10712/L')).toBe('10^12/L');
    // The caret read as a tilde, a quote mark or a space, the L doubled.
    for (const read of ['10~3/uL', '10"3/ul', '107 3/uL', '10” 3/ulL', '1073 pul.']) expect(repairOcrUnit(read)).toBe('10^3/uL');
    for (const read of ['10~6/uL.', '10” 6/uL']) expect(repairOcrUnit(read)).toBe('10^6/uL');
    // Not a power of ten: as read.
    expect(repairOcrUnit('1073')).toBe('1073');
  });

  it('reads a µ OCR read as another letter where that makes a unit labs print', () => {
    for (const read of ['Hg/dL', 'hg/dL', 'pg/dL']) expect(repairOcrUnit(read)).toBe('µg/dL');
    for (const read of ['HIU/mL', 'pIU/mL', 'plu/mL']) expect(repairOcrUnit(read)).toBe('µIU/mL');
    // A unit labs print is left as read (`pg/mL`, `ng/dL`), and so is one no µ would make known.
    expect(repairOcrUnit('pg/mL')).toBe('pg/mL');
    expect(repairOcrUnit('hours')).toBe('hours');
  });

  it("puts back Courier's narrow m read as n, and an I read as l, only where no nearer unit is known", () => {
    expect(repairOcrUnit('ncg/dL')).toBe('mcg/dL');
    expect(repairOcrUnit('pg/nL')).toBe('pg/mL');
    expect(repairOcrUnit('IU nL')).toBe('IU/mL');
    expect(repairOcrUnit('ul U nL.')).toBe('uIU/mL');
    // Units labs print are kept as read, n and all (`nmol/L`, `ng/dL`), and so is a word no letter makes a unit.
    for (const read of ['nmol/L', 'ng/dL', 'ng/L', 'min']) expect(repairOcrUnit(read)).toBe(read);
  });

  it('joins a unit OCR read as two or three words, when the first alone is no unit', () => {
    expect(splitOcrUnit(['ng/', 'nl', '30-100'])).toBe('ng/ nl');
    expect(splitOcrUnit(['ul', 'U', 'nL.'])).toBe('ul U nL.');
    expect(repairOcrUnit(splitOcrUnit(['ng/', 'nl']))).toBe('ng/mL');
    // A unit read whole, and a unit followed by a word that is not part of it, stay apart.
    expect(splitOcrUnit(['mg/dL', 'H'])).toBeNull();
    expect(splitOcrUnit(['ng/', 'fasting'])).toBeNull();
    expect(splitOcrUnit(['IU', 'L'])).toBeNull();
  });
});

describe('flags as labs print them in other languages', () => {
  it('reads Spanish ALTO, BAJO and CRÍTICO, and arrows (doubled: critical)', () => {
    expect(['ALTO', 'BAJO', 'CRÍTICO', '↑', '↓', '↑↑', '↓↓'].map((flag) => [isFlag(flag), flagMeaning(flag)])).toEqual([
      [true, 'high'],
      [true, 'low'],
      [true, 'critical'],
      [true, 'high'],
      [true, 'low'],
      [true, 'critical_high'],
      [true, 'critical_low'],
    ]);
  });
});

describe('an interval whose decimal point OCR lost', () => {
  const range = (text: string) => parseRange(text);
  const value = (text: string) => parseValue(text)!;
  it('restores the upper limit to the lower one’s decimals when the value and its flag agree with it', () => {
    expect(restoreIntervalDecimal(range('2.5-89'), value('11.4'), 'high')).toMatchObject({ min: 2.5, max: 8.9 });
    expect(restoreIntervalDecimal(range('3.6-55'), value('5.2'), null)).toMatchObject({ min: 3.6, max: 5.5 });
    // The value's own decimal point lost too (`52` for 5.2): the value at the interval's scale agrees.
    expect(restoreIntervalDecimal(range('3.6-55'), value('52'), null)).toMatchObject({ max: 5.5 });
    expect(restoreIntervalDecimal(range('2.6-249'), value('15.8'), null)).toMatchObject({ max: 24.9 });
  });

  it('leaves an interval as read where the value disagrees, the limit would fall under the lower one, or both limits print alike', () => {
    // `0.5-10` with 3.2 and no flag: 1.0 would make it high.
    expect(restoreIntervalDecimal(range('0.5-10'), value('3.2'), null)).toMatchObject({ max: 10 });
    // `4.0-11` (a WBC's): 1.1 is under 4.0.
    expect(restoreIntervalDecimal(range('4.0-11'), value('6.2'), null)).toMatchObject({ max: 11 });
    expect(restoreIntervalDecimal(range('2.5-8.9'), value('11.4'), 'high')).toMatchObject({ max: 8.9 });
    expect(restoreIntervalDecimal(range('26-249'), value('15.8'), null)).toMatchObject({ max: 249 });
  });
});
