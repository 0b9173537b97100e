import { SetMetadata } from '@nestjs/common';
import { headerOf } from '../common/body-parsers';
import type { TeamPrincipal } from './principal';

/**
 * A user's access token (`authorization: Bearer …`), as the mobile SDKs send it after signing in
 * with a sign-in token (docs/mobile.md). It reaches the routes of its one user marked
 * @UserTokenRoute, nothing of the team's. src/mobile verifies it; this is what the key guard
 * needs of it, so that src/auth does not import src/mobile.
 */
export interface UserTokenPrincipal {
  team: TeamPrincipal;
  userId: string;
}

export interface UserTokenVerifier {
  /** The user the token acts for, or null when it is not a live access token (bad signature, expired, revoked). */
  verify(token: string): Promise<UserTokenPrincipal | null>;
}

export const USER_TOKEN_VERIFIER = Symbol('USER_TOKEN_VERIFIER');

/** The bearer token of `authorization: Bearer <token>`, if any. */
export function presentedBearerToken(request: { headers: Record<string, string | string[] | undefined> }): string | undefined {
  const value = headerOf(request, 'authorization');
  const match = value ? /^Bearer\s+(\S+)\s*$/i.exec(value) : null;
  return match?.[1];
}

/** Where a route names the user it acts on: a path parameter, or a field of the JSON body. */
export type UserLocation = { param: string } | { body: string };

export const USER_TOKEN_ROUTE = 'labflow:user-token-route';

/**
 * Marks a route that a user's own access token may call (besides the team's API key): the user
 * named at `where` must be the token's, or the answer is 401.
 */
export const UserTokenRoute = (where: UserLocation = { param: 'user_id' }) => SetMetadata(USER_TOKEN_ROUTE, where);
