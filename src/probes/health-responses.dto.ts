import { responseDto } from '../common/openapi';
import { z } from 'zod';

/** The probes' answers (readiness.ts `ReadinessReport`), documented in both documents. */

export class LivenessResponse extends responseDto(z.object({ status: z.literal('ok') })) {}

const checks = z.record(z.string(), z.looseObject({ status: z.string() })).describe("One entry per dependency: `{status: 'up' | 'down', ...details}`.");

export class ReadinessResponse extends responseDto(z.object({ status: z.enum(['ok', 'error']), checks })) {}

/** 503: a dependency is down; the report beside the detail. */
export class NotReadyResponse extends responseDto(z.object({ detail: z.string(), status: z.enum(['ok', 'error']), checks })) {}
