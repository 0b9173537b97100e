/**
 * Nest injection tokens of the clients CoreModule provides (src/core.module.ts). A module that
 * injects one imports it from here, never from core.module.ts: the root modules import every
 * module, so a module importing them back would close an import cycle.
 */
export const TEMPORAL_CLIENT = Symbol('TEMPORAL_CLIENT');
export const REDIS = Symbol('REDIS');
