import { line, metadataOf } from '../helpers/lab-report-lines';

/** Labels and names the corpus's families print only on some seeds' reports (seed 7's misses, session 47). */

describe('specimen numbers under a lab’s own wording', () => {
  it.each([
    ['Lab report no.:', 'LN253560926'],
    ['SID No. :', 'KD250670897'],
  ])('reads `%s` as the specimen number', (label, value) => {
    expect(metadataOf(line(40, [0, `${label} ${value}`])).specimen_number).toBe(value);
  });

  it.each([
    ['Atendimento / Protocol:', '2503-531796'],
    ['Exam No.', '251019-475'],
  ])('reads `%s` as the specimen number when no specimen label is printed', (label, value) => {
    expect(metadataOf(line(40, [0, label], [150, value])).specimen_number).toBe(value);
    expect(metadataOf(line(40, [0, label], [150, value]), line(60, [0, 'Specimen No.'], [150, 'H25120702246'])).specimen_number).toBe('H25120702246');
  });
});

describe('dates and doctors under a check-up’s or a visit’s labels', () => {
  it('reads a check-up date as the collection date', () => {
    expect(metadataOf(line(40, [0, 'Check-up Date'], [150, '2025.10.19'])).date_collected).toBe('2025-10-19');
  });

  it.each([
    ['Visit clinician: Leila Haddad, MD', 'Leila Haddad'],
    ['Physician in Charge: Dr. Kenji Tanaka', 'Kenji Tanaka'],
    ['Referred By : Dr. Geeta Pillai, MBBS, DGO', 'Geeta Pillai'],
  ])('reads the provider of `%s`', (printed, provider) => {
    expect(metadataOf(line(40, [0, printed])).ordering_provider).toBe(provider);
  });

  it('still reads a visit’s date as no field of the report', () => {
    expect(metadataOf(line(40, [0, 'Visit Date: 2025-10-19'])).date_collected).toBeNull();
  });

  it('reads a Korean doctor printed family name first with a hyphenated given name', () => {
    const printedInKorea = line(20, [0, 'Hanbit University Hospital, Seoul, Korea']);
    expect(metadataOf(printedInKorea, line(40, [0, 'Doctor: Park Jae-hyun'])).ordering_provider).toBe('Jae-hyun Park');
  });
});

describe('patient names with a title or particles printed apart', () => {
  it('drops a bracketed honorific after a title (`Chief (Mrs.)`)', () => {
    expect(metadataOf(line(40, [0, "Patient's Name"], [150, ': Chief (Mrs.) Oluwakemi Temitope Adeyemi']))).toMatchObject({
      patient_first_name: 'Oluwakemi',
      patient_last_name: 'Adeyemi',
    });
  });

  it('puts a Dutch surname’s particles, printed under their own label, before it', () => {
    const parsed = metadataOf(
      line(40, [0, 'Achternaam / Surname: Dijk'], [300, 'Voorvoegsel / Prefix: van']),
      line(55, [0, 'Voorletters / Initials: A.J.'], [300, 'Roepnaam / First name: Bram']),
    );
    expect([parsed.patient_first_name, parsed.patient_last_name]).toEqual(['Bram', 'van Dijk']);
  });
});
