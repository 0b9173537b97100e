import type { EntityManager } from 'typeorm';
import { PhiAccessLogEntity } from './phi-access-log.entity';

/** Who touched PHI, for the audit trail (one phi_access_log row per resource read or written). */
export interface PhiAccess {
  teamId: string;
  apiKeyId: string | null;
}

/**
 * Writes the audit rows of a PHI read or write of `resourceIds` (of kind `resource`: 'order',
 * 'insurance') on the caller's transaction, so the audit commits with the access. The one writer
 * of phi_access_log for every module (the order read model's single statements aside).
 */
export async function logPhiAccess(manager: EntityManager, by: PhiAccess, action: 'read' | 'write', resource: string, resourceIds: string[]): Promise<void> {
  if (resourceIds.length === 0) return;
  await manager
    .getRepository(PhiAccessLogEntity)
    .insert(resourceIds.map((resourceId) => ({ teamId: by.teamId, apiKeyId: by.apiKeyId, action, resource, resourceId })));
}
