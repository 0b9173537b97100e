import { randomInt } from 'node:crypto';

/**
 * A patient nobody else is called, reachable at addresses nobody else has, born on one of ~14,000
 * days: values a test can look for in logs or tables without finding an earlier run's (the test
 * database is kept between runs). `areaCode`: the phone number's, so two suites' patients differ;
 * `suffix` (uniqueSuffix) ends the names and the e-mail.
 */
export function uniquePatient(firstName: string, lastName: string, areaCode: string, suffix = uniqueSuffix()) {
  return {
    first_name: `${firstName}${suffix}`,
    last_name: `${lastName}${suffix}`,
    email: `${firstName[0].toLowerCase()}${lastName[0].toLowerCase()}.${suffix}@example.org`,
    phone_number: `+1${areaCode}555${String(randomInt(1000, 9999))}`,
    dob: `19${randomInt(20, 60)}-${String(randomInt(1, 13)).padStart(2, '0')}-${String(randomInt(1, 29)).padStart(2, '0')}`,
    gender: 'female',
  };
}

/** Eight random letters: what makes a test's names its own. */
export function uniqueSuffix(): string {
  return Array.from({ length: 8 }, () => String.fromCharCode(97 + randomInt(26))).join('');
}
