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

/** Names as their countries print them, seen on seeds 99, 1234 and 4242 (session 51). */
describe('given names of two words and Dutch surnames of several', () => {
  it.each([
    ['Patient: JANG, MI KYUNG', 'MI KYUNG', 'JANG'],
    ['Name: Cho, Jae Hee', 'Jae Hee', 'Cho'],
  ])('reads a Korean given name of two syllables after the comma (`%s`)', (printed, first, last) => {
    const printedInKorea = line(20, [0, 'Hanbit University Hospital, Seoul, Korea']);
    expect(metadataOf(printedInKorea, line(40, [0, printed]))).toMatchObject({ patient_first_name: first, patient_last_name: last });
  });

  it('keeps the first word alone where the report is not printed in Korea', () => {
    expect(metadataOf(line(40, [0, 'Patient: JANG, MI KYUNG'])).patient_first_name).toBe('MI');
  });

  it.each([
    ['Patient Name : Mr MAK Tai Man', 'Tai Man', 'MAK'],
    ['Patient Name : Miss LAM Mei Kuen', 'Mei Kuen', 'LAM'],
  ])('reads a Hong Kong given name of two syllables (`%s`)', (printed, first, last) => {
    expect(metadataOf(line(40, [0, printed]))).toMatchObject({ patient_first_name: first, patient_last_name: last });
  });

  it.each([
    ['Name : REYES, MARIA CRISTINA R.', 'MARIA CRISTINA', 'REYES'],
    ['Name : TOLENTINO, KRISTINE JOY AQUINO', 'KRISTINE JOY', 'TOLENTINO'],
    ['Name : SANTOS, JERICHO M.', 'JERICHO', 'SANTOS'],
    ['Patient : Jose Miguel S. Reyes', 'Jose Miguel', 'Reyes'],
  ])('reads the given names before the middle name on a report printed in the Philippines (`%s`)', (printed, first, last) => {
    const printedThere = line(20, [0, 'Sumulong Highway, Marikina City 1800 - PhilHealth Accredited']);
    expect(metadataOf(printedThere, line(40, [0, printed]))).toMatchObject({ patient_first_name: first, patient_last_name: last });
  });

  it('reads every given name under a Turkish given-name label', () => {
    const parsed = metadataOf(line(40, [0, 'Adı / Name'], [150, 'AYŞE NAZ']), line(55, [0, 'Soyadı / Surname'], [150, 'KURT']));
    expect([parsed.patient_first_name, parsed.patient_last_name]).toEqual(['AYŞE NAZ', 'KURT']);
  });

  it.each([
    ["Patient: Sander in 't Veld", 'Sander', "in 't Veld"],
    ["Patient: Marieke in 't Veld-de Vries", 'Marieke', "in 't Veld-de Vries"],
  ])('keeps a Dutch surname’s contracted article and hyphenated particles (`%s`)', (printed, first, last) => {
    expect(metadataOf(line(40, [0, printed]))).toMatchObject({ patient_first_name: first, patient_last_name: last });
  });

  it.each([
    ['Geb.datum / DOB: 12 mrt 1957', '1957-03-12'],
    ['Geb.datum / DOB: 3 mei 1960', '1960-05-03'],
    ['Geburtsdatum / DOB: 1. März 1971', '1971-03-01'],
  ])('reads a Dutch or German month (`%s`)', (printed, dob) => {
    expect(metadataOf(line(40, [0, printed])).dob).toBe(dob);
  });
});

describe('Gulf, Malay and South Asian names', () => {
  it.each([
    ['Name: Mohammed bin Ali Al Mansoori', 'Mohammed', 'Al Mansoori'],
    ['Name : Khalid bin Ali Almutairi', 'Khalid', 'Almutairi'],
    ['Name : AHMAD FAIZAL BIN MOHD YUSOF', 'AHMAD FAIZAL', 'MOHD YUSOF'],
  ])('reads the family name after the father’s name, where there is one (`%s`)', (printed, first, last) => {
    expect(metadataOf(line(40, [0, printed]))).toMatchObject({ patient_first_name: first, patient_last_name: last });
  });

  it.each([
    ['Name: MOHD AZLAN MOHAMAD NOOR', 'MOHD AZLAN', 'MOHAMAD NOOR'],
    ['Name: Siti Hajar Osman', 'Siti Hajar', 'Osman'],
  ])('reads a Malay name’s father’s name from the word a man’s name begins with (`%s`)', (printed, first, last) => {
    const printedInMalaysia = line(20, [0, 'Jalan Telawi 3, Bangsar, 59100 Kuala Lumpur, Malaysia']);
    expect(metadataOf(printedInMalaysia, line(40, [0, printed]))).toMatchObject({ patient_first_name: first, patient_last_name: last });
  });

  it('drops `Sri` before a name printed in Bangladesh, and keeps it elsewhere', () => {
    const printedInDhaka = line(20, [0, 'House # 14/A, Road # 5, Dhanmondi R/A, Dhaka-1205']);
    expect(metadataOf(printedInDhaka, line(40, [0, 'Patient Name : SRI SUJIT KUMAR DAS']))).toMatchObject({
      patient_first_name: 'SUJIT',
      patient_last_name: 'DAS',
    });
    expect(metadataOf(line(40, [0, 'Patient Name : Sri Wahyuni Lestari'])).patient_first_name).toBe('Sri');
  });
});

describe('particles, compound given names and credentials of other countries', () => {
  it('reads an Italian surname with its particle, printed surname first (`DALLA VALLE SALVATORE`)', () => {
    const parsed = metadataOf(line(20, [0, 'Codice fiscale: DLLSVT58A01F205X']), line(40, [0, 'Paziente: Sig. DALLA VALLE SALVATORE']));
    expect([parsed.patient_first_name, parsed.patient_last_name]).toEqual(['SALVATORE', 'DALLA VALLE']);
  });

  it.each([
    ['Referred By : PROF. DR. HOSSAM EL DIN MAHMOUD', 'HOSSAM EL DIN MAHMOUD'],
    ['Requester : Henrik Dahl, leg. läkare', 'Henrik Dahl'],
  ])('reads the provider of `%s`', (printed, provider) => {
    expect(metadataOf(line(40, [0, printed])).ordering_provider).toBe(provider);
  });
});

describe('an episode number beside a lab number', () => {
  it('reads the lab number as the specimen number, and the episode number only where there is none', () => {
    expect(metadataOf(line(40, [0, 'Episode No.: OP2502-54621']), line(55, [0, 'Lab No.: L25-614333'])).specimen_number).toBe('L25-614333');
    expect(metadataOf(line(40, [0, 'Episode No.: 25-6677889'])).specimen_number).toBe('25-6677889');
  });
});

describe('names and dates printed in Hong Kong, Korea and Thailand, and ranks and titles in small letters', () => {
  const printedInHongKong = line(20, [0, '2 Lion Rock Road, Kowloon Tong, Kowloon, Hong Kong - Tel: (852) 2339 5188']);

  it.each([
    ['Name : SINGH SITI', 'SITI', 'SINGH'],
    ['Name: Mr AU YEUNG Chun Kit', 'Chun Kit', 'AU YEUNG'],
    ['Patient : LIMBU ANALYN', 'ANALYN', 'LIMBU'],
    ['Name : CHOW KA HO', 'KA HO', 'CHOW'],
  ])('reads the family name first (`%s`)', (printed, first, last) => {
    expect(metadataOf(printedInHongKong, line(40, [0, printed]))).toMatchObject({ patient_first_name: first, patient_last_name: last });
  });

  it('reads a Hong Kong birth date day first', () => {
    expect(metadataOf(printedInHongKong, line(40, [0, 'DOB : 02/12/1982'])).dob).toBe('1982-12-02');
  });

  it('reads a Korean name in capitals family name first when its last word is a family name too (`KWON MIN SEO`)', () => {
    const printedInKorea = line(20, [0, 'Hanbit University Hospital, Seoul, Korea']);
    expect(metadataOf(printedInKorea, line(40, [0, 'Patient: KWON MIN SEO']))).toMatchObject({ patient_first_name: 'MIN SEO', patient_last_name: 'KWON' });
  });

  it.each([
    ['Name: LCpl Alyssa L. Tuiasosopo', 'patient_first_name', 'Alyssa'],
    ['Referred By : ASS. PROF. DR. GHADA MOSTAFA', 'ordering_provider', 'GHADA MOSTAFA'],
    ['Req. Doctor : DR WONG MEI FONG', 'ordering_provider', 'MEI FONG WONG'],
  ])('drops the rank or title of `%s`', (printed, field, value) => {
    expect(metadataOf(line(40, [0, printed]))[field as 'ordering_provider']).toBe(value);
  });
});

describe('seed 8080’s names and credentials', () => {
  it('reads a Sicilian surname with its Li printed surname first (`LI CAUSI GIUSEPPE`)', () => {
    const parsed = metadataOf(line(20, [0, 'Codice fiscale: LCSGPP58A01F205X']), line(40, [0, 'Paziente: Sig. LI CAUSI GIUSEPPE']));
    expect([parsed.patient_first_name, parsed.patient_last_name]).toEqual(['GIUSEPPE', 'LI CAUSI']);
  });

  it('reads a Brazilian given name of two words (`MARIA APARECIDA DOS SANTOS`)', () => {
    const printedInBrazil = line(20, [0, 'Av. Paulista 1000, São Paulo - SP - CNES 1234567']);
    expect(metadataOf(printedInBrazil, line(40, [0, 'Patient: MARIA APARECIDA DOS SANTOS']))).toMatchObject({
      patient_first_name: 'MARIA APARECIDA',
      patient_last_name: 'DOS SANTOS',
    });
  });

  it('drops an Ontario nurse practitioner’s NP-PHC', () => {
    expect(metadataOf(line(40, [0, 'Attending: Jennifer Kwan, NP-PHC'])).ordering_provider).toBe('Jennifer Kwan');
  });
});

describe('Mexican names without a CURP', () => {
  const printedInMexico = line(20, [0, 'Blvd. Agua Caliente 10535, 22014 Tijuana, B.C. - Responsable sanitario: Q.F.B. Rosalía Camacho, Céd. Prof. 2291874']);

  it('reads a given name with its devotion before the surnames (`MARIA DE LOS ANGELES DE LA GARZA`)', () => {
    expect(metadataOf(printedInMexico, line(40, [0, 'Nombre / Name: MARIA DE LOS ANGELES DE LA GARZA']))).toMatchObject({
      patient_first_name: 'MARIA DE LOS ANGELES',
      patient_last_name: 'DE LA GARZA',
    });
  });

  it('keeps a doctor’s two given names on a report printed in Mexico, and drops the second elsewhere in Spanish', () => {
    const doctor = line(40, [0, 'Médico / Physician: Dr. Luis Enrique Castañeda Beltrán']);
    expect(metadataOf(printedInMexico, doctor).ordering_provider).toBe('Luis Enrique Castañeda Beltrán');
    expect(metadataOf(line(20, [0, 'Paciente / Patient: Marisol Luisa Rivera Soto']), doctor).ordering_provider).toBe('Luis Castañeda Beltrán');
  });
});

describe('a VistA accession with a one-digit serial', () => {
  it('reads `CH 1022 9` whole, and stops before words after the number', () => {
    expect(metadataOf(line(40, [0, 'Specimen: PLASMA'], [200, 'Accession: CH 1022 9'])).specimen_number).toBe('CH 1022 9');
    expect(metadataOf(line(40, [0, 'Accession: CH 0312 45 PLASMA'])).specimen_number).toBe('CH 0312 45');
  });
});
