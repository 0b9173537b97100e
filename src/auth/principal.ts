import { createParamDecorator, type ExecutionContext, SetMetadata } from '@nestjs/common';
import type { ApiEnvironment, ManagementKeyRole, OrgPlan, Region } from '../tenancy/entities';

/** Who is calling the main API: one team, in one environment and region. */
export interface TeamPrincipal {
  teamId: string;
  environment: ApiEnvironment;
  region: Region;
  /** The API key that called; null when labflow acts for the team itself (the patient portal, signed links). */
  apiKeyId: string | null;
}

/** The team a stored row belongs to, as labflow acting for it (no API key): workflows' steps, Link sign-ins. */
export function actingFor(row: Pick<TeamPrincipal, 'teamId' | 'environment' | 'region'>): TeamPrincipal {
  return { teamId: row.teamId, environment: row.environment, region: row.region, apiKeyId: null };
}

/** Who is calling the management API: a management key of one org. */
export interface ManagementPrincipal {
  keyId: string;
  orgId: string;
  orgPlan: OrgPlan;
  role: ManagementKeyRole;
  /** For team_admin keys, the teams it may act on. */
  teamIds: string[];
}

export interface AuthenticatedRequest {
  teamPrincipal?: TeamPrincipal;
  /** Set when a user's access token (not the team's key) called: the one user it may act on. */
  userTokenUserId?: string;
  managementPrincipal?: ManagementPrincipal;
}

/** The calling team, set by TeamApiKeyGuard. */
export const CurrentTeam = createParamDecorator((_: unknown, ctx: ExecutionContext): TeamPrincipal => {
  const principal = ctx.switchToHttp().getRequest<AuthenticatedRequest>().teamPrincipal;
  if (!principal) throw new Error('CurrentTeam used on a route without TeamApiKeyGuard');
  return principal;
});

/** The calling management key, set by ManagementKeyGuard. */
export const CurrentManagementKey = createParamDecorator((_: unknown, ctx: ExecutionContext): ManagementPrincipal => {
  const principal = ctx.switchToHttp().getRequest<AuthenticatedRequest>().managementPrincipal;
  if (!principal) throw new Error('CurrentManagementKey used on a route without ManagementKeyGuard');
  return principal;
});

export const PUBLIC_ROUTE = 'labflow:public';
/** Marks a route that needs no key (health, docs). */
export const Public = () => SetMetadata(PUBLIC_ROUTE, true);
