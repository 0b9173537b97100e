import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { JWK } from 'jose';
import type { DataSource } from 'typeorm';

export interface SigningKeyRow {
  kid: string;
  /** PhiCipher-sealed PKCS#8 PEM. */
  privateKeyEnc: string;
  publicJwk: JWK;
  createdAt: Date;
}

const COLUMNS = `kid, private_key_enc AS "privateKeyEnc", public_jwk AS "publicJwk", created_at AS "createdAt"`;

/** The SQL of `sdk_signing_keys`: the keys that sign mobile SDK tokens, newest first. */
@Injectable()
export class SigningKeysRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async newest(): Promise<SigningKeyRow | null> {
    const rows: SigningKeyRow[] = await this.db.query(`SELECT ${COLUMNS} FROM sdk_signing_keys ORDER BY created_at DESC, kid LIMIT 1`);
    return rows[0] ?? null;
  }

  async find(kid: string): Promise<SigningKeyRow | null> {
    const rows: SigningKeyRow[] = await this.db.query(`SELECT ${COLUMNS} FROM sdk_signing_keys WHERE kid = $1`, [kid]);
    return rows[0] ?? null;
  }

  /** Keys made since `since`: the ones whose tokens may still be alive (the JWKS). */
  async since(since: Date): Promise<SigningKeyRow[]> {
    return this.db.query(`SELECT ${COLUMNS} FROM sdk_signing_keys WHERE created_at >= $1 ORDER BY created_at DESC, kid`, [since]);
  }

  async insert(kid: string, privateKeyEnc: string, publicJwk: JWK): Promise<void> {
    await this.db.query(`INSERT INTO sdk_signing_keys (kid, private_key_enc, public_jwk) VALUES ($1, $2, $3) ON CONFLICT (kid) DO NOTHING`, [
      kid,
      privateKeyEnc,
      publicJwk,
    ]);
  }
}
