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
  const secrets = [decrypted(endpoint.secretEnc, cipher)];
  if (endpoint.previousSecretEnc && endpoint.previousSecretExpiresAt && endpoint.previousSecretExpiresAt > now) {
    secrets.push(decrypted(endpoint.previousSecretEnc, cipher));
  }
  return secrets;
}

/**
 * Decrypted secrets by ciphertext (per cipher): every delivery to an endpoint carries the same
 * encrypted secret, and decrypting it each time was a measurable part of a delivery. A rotated
 * secret has a new ciphertext (new random IV), so the cache never answers with a stale one.
 */
const cache = new WeakMap<PhiCipher, Map<string, string>>();
function decrypted(sealed: string, cipher: PhiCipher): string {
  let secrets = cache.get(cipher);
  if (!secrets) cache.set(cipher, (secrets = new Map()));
  let secret = secrets.get(sealed);
  if (secret === undefined) {
    secret = cipher.decrypt(sealed);
    if (secrets.size >= 10_000) secrets.clear();
    secrets.set(sealed, secret);
  }
  return secret;
}
