import { z } from 'zod';
import { ENVIRONMENTS, REGIONS } from '../../tenancy/entities';

/** A UUID, lower-cased so it compares equal to what Postgres returns. */
export const uuidParam = z.uuid().toLowerCase();

export const environmentParam = z.enum(ENVIRONMENTS);
export const regionParam = z.enum(REGIONS);

/**
 * A repeatable query parameter (`?region=us&region=eu`). Fastify's parser gives a string for
 * one occurrence and an array for several; both become an array here.
 */
export function repeatable<T extends z.ZodType>(item: T, options: { min?: number; max?: number } = {}) {
  return z.preprocess(
    (value) => (value === undefined || Array.isArray(value) ? value : [value]),
    z.array(item).min(options.min ?? 0).max(options.max ?? 100),
  );
}

export const orgIdParams = z.object({ org_id: uuidParam });
/** `/v1/org/{org_id}/.../{env}/{region}` */
export const orgEnvRegionParams = z.object({ org_id: uuidParam, env: environmentParam, region: regionParam });

/** Outcome of a bulk delete: ids done, ids refused (outside the key's teams), ids unknown. */
export interface BulkResult {
  success: string[];
  failure: string[];
  not_found: string[];
}

/** Fixed page size of management lists that take no limit. */
export const PAGE_SIZE = 50;
