import type { ManagementPrincipal } from '../../auth/principal';
import { forbidden, notFound } from '../../common/errors';

/**
 * Who may do what on the management API. Pure checks on the calling key, run by controllers
 * before a service is called; existence checks (404) stay with the services.
 *
 * - An org id other than the key's own answers 404: a key never learns that another org exists.
 * - `org_admin` keys act on the whole org.
 * - `team_admin` keys act only on their bound teams: a team outside the bindings answers 403,
 *   org-level operations (org get/patch, team create/delete, management keys) answer 403.
 *   Listing teams or resolving one by integration_team_id shows only the bound teams.
 */
export function authorizeOrg(key: ManagementPrincipal, orgId: string): void {
  if (orgId !== key.orgId) throw notFound('Org');
}

/** Org-level operations: an org key (`org_admin`) only. */
export function authorizeOrgAdmin(key: ManagementPrincipal, orgId: string, operation: string): void {
  authorizeOrg(key, orgId);
  if (key.role !== 'org_admin') {
    throw forbidden(`${operation} needs an org management key (org_admin); this team-admin key may only act on its bound teams.`);
  }
}

/** Team-scoped operations: an org key, or a team-admin key bound to the team. */
export function authorizeTeam(key: ManagementPrincipal, orgId: string, teamId: string): void {
  authorizeOrg(key, orgId);
  if (!canActOnTeam(key, teamId)) {
    throw forbidden(`This management key is not bound to team ${teamId}.`);
  }
}

export function canActOnTeam(key: ManagementPrincipal, teamId: string): boolean {
  return key.role === 'org_admin' || key.teamIds.includes(teamId);
}

/** The team ids a key is limited to, or null for an org key (every team of the org). */
export function teamRestriction(key: ManagementPrincipal): string[] | null {
  return key.role === 'org_admin' ? null : key.teamIds;
}
