import type { PhiCipher } from '../common/crypto';

/** A webhook endpoint's encrypted secrets (the columns of webhook_endpoints that sign). */
export interface EncryptedSigningSecrets {
  secretEnc: string;
  previousSecretEnc: string | null;
  previousSecretExpiresAt: Date | null;
}

/**
 * The secrets a delivery is signed with at `now`: the current one, and the previous one while
 * its grace period lasts (Standard Webhooks receivers accept any listed signature).
 */
export function signingSecrets(endpoint: EncryptedSigningSecrets, cipher: PhiCipher, now: Date = new Date()): string[] {
  const secrets = [cipher.decrypt(endpoint.secretEnc)];
  if (endpoint.previousSecretEnc && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) {
    secrets.push(cipher.decrypt(endpoint.previousSecretEnc));
  }
  return secrets;
}
