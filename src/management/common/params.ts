import { z } from 'zod';
import { ENVIRONMENTS, REGIONS } from '../../tenancy/entities';

/** A UUID, lower-cased so it compares equal to what Postgres returns. */
export const uuidParam = z.uuid().toLowerCase();

export const environmentParam = z.enum(ENVIRONMENTS);
export const regionParam = z.enum(REGIONS);

export const orgIdParams = z.object({ org_id: uuidParam });
/** `/v1/org/{org_id}/.../{env}/{region}` */
export const orgEnvRegionParams = z.object({ org_id: uuidParam, env: environmentParam, region: regionParam });

/**
 * Outcome of a bulk delete: ids done, ids that failed, ids unknown. An id outside the caller's
 * teams is unknown to it (`not_found`), never a `failure`: that would tell it the id exists.
 */
export interface BulkResult {
  success: string[];
  failure: string[];
  not_found: string[];
}

/** Fixed page size of management lists that take no limit. */
export const PAGE_SIZE = 50;
