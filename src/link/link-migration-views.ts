import type { ProviderCredentials } from '../adapters/sources/source-adapter';
import type { BulkOpRow } from '../connections/bulk-ops.repository';

/** What OAuth 1 providers' recipes carry as expiry (Junction): the token does not expire. */
const NEVER_EXPIRES = 2_147_483_647;

/** Junction's BulkOp. */
export function bulkOpView(row: BulkOpRow) {
  return {
    type: row.type,
    status: row.status,
    provider: row.provider,
    pending: row.pending,
    processed: row.processed,
    started_at: row.startedAt.toISOString(),
    ended_at: row.endedAt?.toISOString() ?? null,
  };
}

/** Junction's ConnectionRecipe: a connection's grant as another system takes it in. */
export function connectionRecipeView(grant: { userId: string; externalUserId: string | null; credentials: ProviderCredentials }) {
  return {
    user_id: grant.userId,
    access_token: grant.credentials.accessToken,
    refresh_token: grant.credentials.refreshToken ?? '',
    provider_id: grant.externalUserId ?? '',
    expires_at: grant.credentials.expiresAt ? Math.floor(Date.parse(grant.credentials.expiresAt) / 1000) : NEVER_EXPIRES,
    oauth_scopes: grant.credentials.scopes.length > 0 ? grant.credentials.scopes : null,
  };
}
