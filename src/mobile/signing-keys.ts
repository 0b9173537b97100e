import { Inject, Injectable } from '@nestjs/common';
import { calculateJwkThumbprint, exportJWK, exportPKCS8, generateKeyPair, importJWK, importPKCS8, type JWK, type KeyLike } from 'jose';
import { createPublicKey } from 'node:crypto';
import { PhiCipher } from '../common/crypto';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { SigningKeysRepository } from './signing-keys.repository';

export const SIGNING_ALG = 'RS256';

export interface SigningKey {
  kid: string;
  privateKey: KeyLike;
}

/**
 * The RS256 keys mobile SDK tokens are signed with (docs/mobile.md). Without MOBILE_SIGNING_KEY,
 * labflow makes its own: the first token minted makes one, sealed with PhiCipher in
 * `sdk_signing_keys`, and one older than MOBILE_SIGNING_KEY_ROTATION is replaced by a new one at
 * the next mint (two processes replacing it at once make two keys: both are published, the newest
 * signs). A key is published (JWKS) and verifies for as long as a token it signed can live.
 */
@Injectable()
export class SigningKeys {
  private current: { key: SigningKey; createdAt: number } | null = null;
  /** Public keys by kid, as verification meets them (a kid never changes its key). */
  private readonly publicKeys = new Map<string, KeyLike | Uint8Array>();
  private configured: Promise<{ key: SigningKey; jwk: JWK }> | null = null;

  constructor(
    private readonly keys: SigningKeysRepository,
    private readonly cipher: PhiCipher,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
  ) {}

  /** The key to sign with now. */
  async signingKey(): Promise<SigningKey> {
    const fixed = this.config.mobile.signingKey;
    if (fixed) return (await this.configuredKey(fixed)).key;
    const now = Date.now();
    if (this.current && now - this.current.createdAt < this.config.mobile.signingKeyRotationMs) return this.current.key;
    let newest = await this.keys.newest();
    if (!newest || now - newest.createdAt.getTime() >= this.config.mobile.signingKeyRotationMs) {
      await this.generate();
      newest = await this.keys.newest();
    }
    if (!newest) throw new Error('No signing key after generating one');
    const key = { kid: newest.kid, privateKey: await importPKCS8(this.cipher.decrypt(newest.privateKeyEnc), SIGNING_ALG) };
    this.current = { key, createdAt: newest.createdAt.getTime() };
    return key;
  }

  /** The public key of `kid`, if it may still verify a token; null otherwise. */
  async publicKey(kid: string): Promise<KeyLike | Uint8Array | null> {
    const known = this.publicKeys.get(kid);
    if (known) return known;
    const fixed = this.config.mobile.signingKey;
    if (fixed) {
      const { key, jwk } = await this.configuredKey(fixed);
      if (key.kid === kid) return this.remember(kid, jwk);
    }
    const row = await this.keys.find(kid);
    if (!row || row.createdAt.getTime() < this.publishedSince().getTime()) return null;
    return this.remember(kid, row.publicJwk);
  }

  /** The JWKS (`/.well-known/jwks.json`): every key whose tokens may still be alive. */
  async jwks(): Promise<{ keys: JWK[] }> {
    const keys: JWK[] = [];
    const fixed = this.config.mobile.signingKey;
    if (fixed) keys.push((await this.configuredKey(fixed)).jwk);
    for (const row of await this.keys.since(this.publishedSince())) keys.push(row.publicJwk);
    return { keys };
  }

  /**
   * A key signs for at most the rotation period, and what it signs lives at most the longest
   * token lifetime: older keys verify nothing any more.
   */
  private publishedSince(): Date {
    const { signingKeyRotationMs, accessTokenTtlMs, signInTokenTtlMs } = this.config.mobile;
    return new Date(Date.now() - signingKeyRotationMs - Math.max(accessTokenTtlMs, signInTokenTtlMs));
  }

  private async generate(): Promise<void> {
    const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { modulusLength: 2048, extractable: true });
    const jwk = await publicJwk(publicKey);
    await this.keys.insert(jwk.kid!, this.cipher.encrypt(await exportPKCS8(privateKey)), jwk);
  }

  private configuredKey(pem: string): Promise<{ key: SigningKey; jwk: JWK }> {
    this.configured ??= (async () => {
      const privateKey = await importPKCS8(pem, SIGNING_ALG, { extractable: true });
      const jwk = await publicJwk(createPublicKey(pem));
      return { key: { kid: jwk.kid!, privateKey }, jwk };
    })();
    return this.configured;
  }

  private async remember(kid: string, jwk: JWK): Promise<KeyLike | Uint8Array> {
    const key = await importJWK(jwk, SIGNING_ALG);
    this.publicKeys.set(kid, key);
    return key;
  }
}

/** The public half as a JWK for the JWKS, its kid the RFC 7638 thumbprint. */
async function publicJwk(publicKey: KeyLike): Promise<JWK> {
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { kty: jwk.kty, n: jwk.n, e: jwk.e, kid, alg: SIGNING_ALG, use: 'sig' };
}
