import { z } from 'zod';
import { domainEnv } from './env-domains';
import { platformEnv } from './env-platform';

export { CONFIG_GROUPS, toMs, WORKER_ROLES, type WorkerRole } from './env-values';

/**
 * The environment variables labflow reads and how each is validated (config.ts turns them into
 * the typed LabflowConfig once at start-up): the platform's (./env-platform.ts) and the domains'
 * (./env-domains.ts), each described for docs/configuration.md.
 */
export const envSchema = z.object({ ...platformEnv, ...domainEnv });

export type Environment = z.infer<typeof envSchema>;
