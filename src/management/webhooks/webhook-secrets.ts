import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/** Standard Webhooks secrets: `whsec_` + base64 of the key bytes (24 when labflow makes one). */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';
const GENERATED_SECRET_BYTES = 24;

/** After a rotation the previous secret keeps signing, beside the new one, this long. */
export const PREVIOUS_SECRET_GRACE_MS = 24 * 60 * 60 * 1000;

export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(GENERATED_SECRET_BYTES).toString('base64')}`;
}

/** A secret a client supplies: `whsec_` + base64 of 24 to 64 bytes. */
export const webhookSecret = z
  .string()
  .max(200)
  .regex(/^whsec_[A-Za-z0-9+/]+={0,2}$/, { message: 'Must be whsec_ followed by base64 (Standard Webhooks format).' })
  .refine(
    (value) => {
      const bytes = Buffer.from(value.slice(WEBHOOK_SECRET_PREFIX.length), 'base64').length;
      return bytes >= 24 && bytes <= 64;
    },
    { message: 'The secret must encode 24 to 64 bytes.' },
  );
