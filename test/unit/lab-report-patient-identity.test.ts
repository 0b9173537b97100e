import { identityReviewReason, nameTokens } from '../../src/lab-reports/patient-identity';

const onFile = { first_name: 'José', last_name: "O'Brien-García", dob: '1985-04-12' };
const report = (first: string | null, last: string | null, dob: string | null = '1985-04-12') => ({ patient_first_name: first, patient_last_name: last, dob });

describe("a report's patient against the user's demographics", () => {
  it.each([
    ['the same spelling', 'José', "O'Brien-García"],
    ['capitals and no accents', 'JOSE', 'OBRIEN-GARCIA'],
    ['a middle name', 'Jose Luis', "O'Brien-García"],
    ['a middle initial', 'JOSE L', "O'BRIEN GARCIA"],
    ['a suffix', 'Jose', "O'Brien-Garcia Jr."],
    ['one of two surnames', 'Jose', 'Garcia'],
    ['first and last read the other way round', "O'Brien-García", 'José'],
  ])('matches with %s', (_case, first, last) => {
    expect(identityReviewReason(report(first, last), onFile)).toBeNull();
  });

  it.each([
    ['another given name', 'Joseph', "O'Brien-García"],
    ['another surname', 'José', 'Brien'],
    ['only an initial for the given name', 'J', "O'Brien-García"],
    ['a given name that only starts the same', 'Jos', "O'Brien-García"],
    ['someone else entirely', 'Jane', 'Doe'],
  ])('refuses %s', (_case, first, last) => {
    expect(identityReviewReason(report(first, last), onFile)).toBe('patient_name_mismatch');
  });

  it('is strict on the date of birth: a day, a month or a day/month swap apart is a mismatch', () => {
    for (const dob of ['1985-04-13', '1985-05-12', '1985-12-04', '1984-04-12']) {
      expect(identityReviewReason(report('José', "O'Brien-García", dob), onFile)).toBe('patient_dob_mismatch');
    }
  });

  it('sends an identity it could not read to review, whatever else matches', () => {
    expect(identityReviewReason(report(null, "O'Brien-García"), onFile)).toBe('patient_identity_unreadable');
    expect(identityReviewReason(report('José', ''), onFile)).toBe('patient_identity_unreadable');
    expect(identityReviewReason(report('José', "O'Brien-García", null), onFile)).toBe('patient_identity_unreadable');
    expect(identityReviewReason(report('José', "O'Brien-García", '04/12/1985'), onFile)).toBe('patient_identity_unreadable');
    expect(identityReviewReason(report('Jr.', "O'Brien-García"), onFile)).toBe('patient_identity_unreadable');
  });

  it('normalises names to comparable words', () => {
    expect(nameTokens("  Zoë  D'Angelo-Smith, III ")).toEqual(['zoe', 'dangelo', 'smith']);
    expect(nameTokens('MÜLLER')).toEqual(['muller']);
  });
});
