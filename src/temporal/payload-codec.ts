import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { LabflowConfig } from '../config/config';

const ENCODING = 'binary/encrypted';
const KEY_ID = 'labflow-phi-v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Encrypts every Temporal payload (workflow inputs, activity arguments and results, update and
 * query payloads) with AES-256-GCM, so the history store holds only ciphertext of the patient
 * details that flow through workflows. Payloads this codec did not write (histories recorded
 * before it, or by another codec) pass through unchanged.
 */
export class EncryptionCodec implements PayloadCodec {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('payload encryption key must be 32 bytes');
  }

  /** The payload key: TEMPORAL_PAYLOAD_KEY if set, else derived from the PHI key (HKDF). */
  static fromKeys(phiKey: Buffer, payloadKey?: Buffer): EncryptionCodec {
    return new EncryptionCodec(payloadKey ?? Buffer.from(hkdfSync('sha256', phiKey, Buffer.alloc(0), 'labflow temporal payloads', 32)));
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const plaintext = temporal.api.common.v1.Payload.encode(payload).finish();
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', this.key, iv);
      const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
      return {
        metadata: { encoding: encoder.encode(ENCODING), 'encryption-key-id': encoder.encode(KEY_ID) },
        data: Buffer.concat([iv, cipher.getAuthTag(), body]),
      };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (!isEncrypted(payload)) return payload;
      const raw = Buffer.from(payload.data ?? new Uint8Array());
      const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, IV_BYTES));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      const plaintext = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
      return temporal.api.common.v1.Payload.decode(plaintext);
    });
  }
}

export function isEncrypted(payload: Payload): boolean {
  const encoding = payload.metadata?.encoding;
  return encoding !== undefined && encoding !== null && decoder.decode(encoding) === ENCODING;
}

/** The data converter every labflow client and worker uses: payloads encrypted at rest. */
export function labflowDataConverter(config: Pick<LabflowConfig, 'phiEncryptionKey' | 'temporalPayloadKey'>) {
  return { payloadCodecs: [EncryptionCodec.fromKeys(config.phiEncryptionKey, config.temporalPayloadKey)] };
}
