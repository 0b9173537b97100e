import { parseReport } from '../../src/lab-reports/parsing';
import { matchResult } from '../../src/lab-reports/parsing/loinc/match';
import { readName } from '../../src/lab-reports/parsing/names';
import { curpNameLetters, readNationalId } from '../../src/lab-reports/parsing/national-ids';
import { curatedLoincCatalogue, parsedResult, topLoincCode } from '../helpers/lab-report-catalogue';
import { line, metadataOf, textPage } from '../helpers/lab-report-lines';

/** Reports printed in Poland, Greece and Mexico: their identity numbers, names, doctors, test names and qualitative results. */

describe('identity numbers that carry the birth date', () => {
  it('reads a PESEL, a CURP and an AMKA whose check digits hold, and nothing from one whose check digit does not', () => {
    expect(readNationalId('pesel', '51112205478', 2025)).toEqual({ dob: '1951-11-22', sex: 'male' });
    // The month plus 20: born in the 2000s.
    expect(readNationalId('pesel', '02270803624', 2025)).toEqual({ dob: '2002-07-08', sex: 'female' });
    expect(readNationalId('pesel', '51112205479', 2025)).toBeNull();
    expect(readNationalId('curp', 'PEXA711105MNENXL80', 2025)).toEqual({ dob: '1971-11-05', sex: 'female' });
    expect(readNationalId('curp', 'IAHJ731209HBCBRS82', 2025)).toEqual({ dob: '1973-12-09', sex: 'male' });
    expect(readNationalId('curp', 'IAHJ731209HBCBRS83', 2025)).toBeNull();
    expect(curpNameLetters('CURP PEXA711105MNENXL80')).toBe('PEXA');
    expect(readNationalId('amka', '19047430186', 2025)).toEqual({ dob: '1974-04-19', sex: null });
    expect(readNationalId('amka', '19047430187', 2025)).toBeNull();
    // The Scandinavian numbers, as before.
    expect(readNationalId('cpr', '201046-1743', 2025)?.dob).toBe('1946-10-20');
    expect(readNationalId('personnummer', '461020-1234', 2025)?.dob).toBe('1946-10-20');
  });

  it('takes the birth date and sex from a PESEL when the report prints neither, never over a printed one', () => {
    expect(metadataOf(line(40, [0, 'PESEL:'], [150, '51112205478']))).toMatchObject({ dob: '1951-11-22', gender: 'male' });
    expect(metadataOf(line(40, [0, 'PESEL:'], [150, '51112205478']), line(54, [0, 'DOB:'], [150, '23/11/1951'])).dob).toBe('1951-11-23');
  });
});

describe('names and doctors as Polish, Greek and Mexican reports print them', () => {
  it('turns a name printed surname first by its CURP, joins a second surname printed apart, and leaves two unknown words in capitals unread', () => {
    expect(metadataOf(line(40, [0, 'Nombre / Name:'], [150, 'PENA ALEJANDRA']), line(54, [0, 'CURP:'], [150, 'PEXA711105MNENXL80']))).toMatchObject({
      patient_first_name: 'ALEJANDRA',
      patient_last_name: 'PENA',
      dob: '1971-11-05',
      gender: 'female',
    });
    expect(
      metadataOf(
        line(40, [0, 'Apellido paterno / Paternal surname:'], [250, 'LOPEZ']),
        line(54, [0, 'Apellido materno / Maternal surname:'], [250, 'GUTIERREZ']),
        line(68, [0, 'Nombre(s) / Given name(s):'], [250, 'JOSE MANUEL']),
        line(82, [0, 'CURP:'], [250, 'LOGM411108HCHPTN30']),
      ),
    ).toMatchObject({ patient_first_name: 'JOSE MANUEL', patient_last_name: 'LOPEZ GUTIERREZ' });
    // `WHITAKER MEGAN` or `LISA BRANDT`: which word is the surname, a Spanish-labelled report does not say.
    expect(metadataOf(line(40, [0, 'Nombre / Name:'], [150, 'WHITAKER MEGAN']), line(54, [0, 'Sexo / Sex:'], [150, 'Mujer']))).toMatchObject({
      patient_first_name: null,
      patient_last_name: null,
      gender: 'female',
    });
  });

  it('turns a name by its CURP where the given names start with María (the CURP takes the next one), and keeps a surname’s particles with it', () => {
    // `VINA…`: VIllaseñor, Núñez, (María de los) Ángeles.
    expect(
      metadataOf(line(40, [0, 'Nombre / Name:'], [150, 'VILLASENOR NUNEZ MARIA DE LOS ANGELES']), line(54, [0, 'CURP:'], [150, 'VINA880520MSLLNN90'])),
    ).toMatchObject({ patient_first_name: 'MARIA DE LOS ANGELES', patient_last_name: 'VILLASENOR NUNEZ' });
    expect(readName('DE LA GARZA GOMEZ GUADALUPE', 'mexico')).toMatchObject({ first: 'GUADALUPE', last: 'DE LA GARZA GOMEZ' });
  });

  it('reads a name printed in Poland surname first or given name first by which word is a Polish given name, and neither way when none is', () => {
    const named = (name: string) => {
      const metadata = metadataOf(line(20, [0, 'ul. Marii Konopnickiej 28, 30-302 Kraków']), line(40, [0, 'Pacjent / Patient:'], [150, name]));
      return [metadata.patient_first_name, metadata.patient_last_name];
    };
    expect(named('SIKORA MARCIN STANISŁAW')).toEqual(['MARCIN', 'SIKORA']);
    expect(named('Lewandowska Katarzyna')).toEqual(['Katarzyna', 'Lewandowska']);
    expect(named('Wróbel-Kaczmarek Żaneta Helena')).toEqual(['Żaneta', 'Wróbel-Kaczmarek']);
    expect(named('Piotr Woźniak')).toEqual(['Piotr', 'Woźniak']);
    expect(named('Nowicka Bednarek')).toEqual([null, null]);
  });

  it('reads a Mexican doctor with both surnames and two given names, no doctor in `A quien corresponda`, a Greek doctor without his specialty', () => {
    const mexican = (doctor: string) => metadataOf(line(40, [0, 'CURP:'], [150, 'IAHJ731209HBCBRS82']), line(54, [0, 'Médico / Physician:'], [150, doctor]));
    expect(mexican('Dra. Ana Sofía Villarreal Cantú').ordering_provider).toBe('Ana Sofía Villarreal Cantú');
    expect(mexican('Dr. Ernesto Salinas Ochoa').ordering_provider).toBe('Ernesto Salinas Ochoa');
    expect(mexican('A QUIEN CORRESPONDA').ordering_provider).toBeNull();
    const greek = (doctor: string) =>
      metadataOf(line(40, [0, 'Επώνυμο / Surname:'], [150, 'Μακρής']), line(54, [0, 'Θεράπων ιατρός / Physician:'], [200, doctor]));
    expect(greek('Δρ. Θεόδωρος Καλογεράκης, Νεφρολόγος').ordering_provider).toBe('Θεόδωρος Καλογεράκης');
    expect(greek('Δρ. Χαρίκλεια Ρήγα, Γενική Ιατρός').ordering_provider).toBe('Χαρίκλεια Ρήγα');
    expect(metadataOf(line(40, [0, 'Επώνυμο / Surname:'], [150, 'Μακρής']), line(54, [0, 'Φύλο / Sex:'], [150, 'Θ'])).gender).toBe('female');
    expect(metadataOf(line(40, [0, 'Πρωτόκολλο / Protocol no.:'], [200, '388017'])).specimen_number).toBe('388017');
  });
});

describe('results printed in Polish, Greek and Spanish', () => {
  const catalogue = curatedLoincCatalogue();
  const codeOf = (name: string, units: string | null) => topLoincCode(parsedResult(name, units), catalogue);

  it.each([
    ['Żelazo', 'µg/dl', '2498-4'],
    ['Kwas foliowy', 'ng/ml', '2284-8'],
    ['TIBC (całk. zdolność wiązania Fe)', 'µg/dl', '2500-7'],
    ['Cholesterol nie-HDL', 'mg/dl', '43396-1'],
    ['Λεμφοκύτταρα %', '%', '736-9'],
    ['Χοληστερίνη ολική', 'mg/dL', '2093-3'],
    ['Σάκχαρο νηστείας', 'mg/dL', '1558-6'],
    ['Κορεσμός τρανσφερρίνης', '%', '2502-3'],
    ['Leucocitos', '10^3/µL', '6690-2'],
    ['Capacidad total de fijación de hierro', 'µg/dL', '2500-7'],
    ['Neutrófilos totales', '10^3/µL', '751-8'],
    ['Ancho de distribución eritrocitaria', '%', '788-0'],
    ['T4 libre', 'ng/dL', '3024-7'],
  ])('matches %s to its LOINC', (name, units, code) => {
    expect(codeOf(name, units)).toBe(code);
  });

  it('keeps a name in another script as printed (no OCR folding onto its English half)', () => {
    expect(matchResult(parsedResult('Φερριτίνη / Ferritin', 'ng/mL'), catalogue)).toMatchObject({
      test_name: 'Φερριτίνη / Ferritin',
      loinc_matches: [{ loinc_code: '2276-4' }],
    });
  });

  it('reads a Greek urinalysis table under its Greek headings, its words as results, and no row from an address or a place and date', () => {
    const parsed = parseReport(
      textPage(
        [[0, 'Akropolis Diagnostic Laboratories']],
        [
          [0, 'Διεύθυνση / Address'],
          [200, 'Οδός Κωνσταντίνου Καραμανλή 40, 151 25 Μαρούσι'],
        ],
        [[0, 'ΓΕΝΙΚΗ ΟΥΡΩΝ / URINALYSIS']],
        [
          [0, 'Εξέταση / Test'],
          [200, 'Αποτέλεσμα'],
          [300, 'Μονάδες / Units'],
          [420, 'Όρια αναφοράς / Ref. range'],
        ],
        [
          [0, 'Χρώμα / Colour'],
          [200, 'Ανοιχτό κίτρινο'],
          [420, 'Κίτρινο'],
        ],
        [
          [0, 'Λεύκωμα / Protein'],
          [200, 'Αρνητικό'],
          [420, 'Αρνητικό'],
        ],
        [
          [0, 'Przejrzystość / Clarity'],
          [200, 'lekko mętny'],
          [420, 'przejrzysty'],
        ],
        [[0, 'Αθήνα, 12 Σεπτεμβρίου 2025']],
      ),
    );
    expect(parsed.results.map((r) => [r.test_name, r.value, r.type, r.specimen])).toEqual([
      ['Χρώμα / Colour', 'Ανοιχτό κίτρινο', 'comment', 'urine'],
      ['Λεύκωμα / Protein', 'Αρνητικό', 'boolean', 'urine'],
      ['Przejrzystość / Clarity', 'lekko mętny', 'comment', 'urine'],
    ]);
  });
});
