/**
 * The PHI keys of the environment, for a migration that seals or hashes what it finds (the
 * migrations get no configuration object). `npm run migrate` has validated them through
 * loadConfig; a test migrating a scratch database has the test environment's.
 */
export function phiKeysFromEnvironment(env: NodeJS.ProcessEnv = process.env): { current: Buffer; previous: Buffer[] } | null {
  if (!env.PHI_ENCRYPTION_KEY) return null;
  const previous = (env.PHI_ENCRYPTION_PREVIOUS_KEYS ?? '')
    .split(',')
    .map((value) => value.trim())
    .filter(Boolean);
  return { current: Buffer.from(env.PHI_ENCRYPTION_KEY, 'base64'), previous: previous.map((value) => Buffer.from(value, 'base64')) };
}
