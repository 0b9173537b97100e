import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { DataSource } from 'typeorm';
import type { ApiEnvironment, Region } from '../tenancy/entities';
import { changedCount } from '../common/write-statements';

export type LinkTokenState = 'pending' | 'pending_provider_mfa' | 'success' | 'error';

/** A link token (`link_tokens`); the token itself is never stored, only its hash. */
export interface LinkTokenRow {
  id: string;
  teamId: string;
  environment: ApiEnvironment;
  region: Region;
  userId: string;
  /** The provider the team fixed when it made the token, or null (any offered provider). */
  provider: string | null;
  filterOnProviders: string[] | null;
  redirectUrl: string | null;
  onError: string | null;
  onClose: string | null;
  createdAt: Date;
  expiresAt: Date;
  state: LinkTokenState;
  /** The provider the user is connecting (chosen, or fixed by the token). */
  chosenProvider: string | null;
  mfaMethod: string | null;
  mfaHint: string | null;
  mfaChallenge: string | null;
  errorType: string | null;
  error: string | null;
  connectedAt: Date | null;
}

export type NewLinkToken = Pick<
  LinkTokenRow,
  'id' | 'teamId' | 'environment' | 'region' | 'userId' | 'provider' | 'filterOnProviders' | 'redirectUrl' | 'onError' | 'onClose' | 'expiresAt'
> & { tokenHash: string };

const COLUMNS = `id, team_id AS "teamId", environment, region, user_id AS "userId", provider,
  filter_on_providers AS "filterOnProviders", redirect_url AS "redirectUrl", on_error AS "onError", on_close AS "onClose",
  created_at AS "createdAt", expires_at AS "expiresAt", state, chosen_provider AS "chosenProvider",
  mfa_method AS "mfaMethod", mfa_hint AS "mfaHint", mfa_challenge AS "mfaChallenge",
  error_type AS "errorType", error, connected_at AS "connectedAt"`;

/** The SQL of `link_tokens`. */
@Injectable()
export class LinkTokensRepository {
  constructor(@InjectDataSource() private readonly db: DataSource) {}

  async insert(token: NewLinkToken): Promise<LinkTokenRow> {
    const rows: LinkTokenRow[] = await this.db.query(
      `INSERT INTO link_tokens (id, token_hash, team_id, environment, region, user_id, provider, filter_on_providers, redirect_url, on_error, on_close, expires_at, chosen_provider)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $7) RETURNING ${COLUMNS}`,
      [
        token.id,
        token.tokenHash,
        token.teamId,
        token.environment,
        token.region,
        token.userId,
        token.provider,
        token.filterOnProviders,
        token.redirectUrl,
        token.onError,
        token.onClose,
        token.expiresAt,
      ],
    );
    return rows[0];
  }

  async findByHash(tokenHash: string): Promise<LinkTokenRow | null> {
    const rows: LinkTokenRow[] = await this.db.query(`SELECT ${COLUMNS} FROM link_tokens WHERE token_hash = $1`, [tokenHash]);
    return rows[0] ?? null;
  }

  async findById(id: string): Promise<LinkTokenRow | null> {
    const rows: LinkTokenRow[] = await this.db.query(`SELECT ${COLUMNS} FROM link_tokens WHERE id = $1`, [id]);
    return rows[0] ?? null;
  }

  async findByOauthState(stateHash: string): Promise<LinkTokenRow | null> {
    const rows: LinkTokenRow[] = await this.db.query(`SELECT ${COLUMNS} FROM link_tokens WHERE oauth_state_hash = $1`, [stateHash]);
    return rows[0] ?? null;
  }

  /** The user picked a provider (start, or the first step of its sign-in); a flow in error starts over. */
  async choose(id: string, provider: string): Promise<void> {
    await this.db.query(
      `UPDATE link_tokens SET chosen_provider = $2, state = 'pending', error_type = NULL, error = NULL,
              mfa_method = NULL, mfa_hint = NULL, mfa_challenge = NULL
        WHERE id = $1 AND state <> 'success'`,
      [id, provider],
    );
  }

  /** An OAuth grant begins: the state the provider will send back (its hash). */
  async beginOauth(id: string, provider: string, stateHash: string): Promise<void> {
    await this.db.query(
      `UPDATE link_tokens SET chosen_provider = $2, oauth_state_hash = $3, state = 'pending', error_type = NULL, error = NULL
        WHERE id = $1 AND state <> 'success'`,
      [id, provider, stateHash],
    );
  }

  async awaitMfa(id: string, mfa: { method: string; hint: string; challenge: string }): Promise<void> {
    await this.db.query(
      `UPDATE link_tokens SET state = 'pending_provider_mfa', mfa_method = $2, mfa_hint = $3, mfa_challenge = $4, error_type = NULL, error = NULL
        WHERE id = $1 AND state <> 'success'`,
      [id, mfa.method, mfa.hint, mfa.challenge],
    );
  }

  /** The provider refused: the flow may be tried again with the same token while it lasts. */
  async fail(id: string, errorType: string, error: string): Promise<void> {
    await this.db.query(
      `UPDATE link_tokens SET state = 'error', error_type = $2, error = $3, mfa_method = NULL, mfa_hint = NULL, mfa_challenge = NULL, oauth_state_hash = NULL
        WHERE id = $1 AND state <> 'success'`,
      [id, errorType, error],
    );
  }

  /** The connection is made: the token is used up. */
  async succeed(id: string): Promise<void> {
    await this.db.query(
      `UPDATE link_tokens SET state = 'success', connected_at = coalesce(connected_at, now()), error_type = NULL, error = NULL,
              mfa_method = NULL, mfa_hint = NULL, mfa_challenge = NULL, oauth_state_hash = NULL
        WHERE id = $1`,
      [id],
    );
  }

  /**
   * Deletes up to `limit` tokens that expired more than `keepMs` ago (the retention sweep); returns
   * how many. No index on expires_at: the table holds about a day of tokens.
   */
  async deleteExpired(keepMs: number, limit: number): Promise<number> {
    const count = await changedCount(
      this.db,
      `DELETE FROM link_tokens WHERE id IN (SELECT id FROM link_tokens WHERE expires_at < now() - make_interval(secs => $1::double precision / 1000) LIMIT $2)`,
      [keepMs, limit],
    );
    return count;
  }
}
