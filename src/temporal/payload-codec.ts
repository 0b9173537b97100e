import type { Payload, PayloadCodec } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { createCipheriv, createDecipheriv, hkdfSync, type KeyObject, randomBytes } from 'node:crypto';
import { Keyring } from '../common/crypto';
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
 * before it, or by another codec) pass through unchanged. A payload opens with the current key
 * or, after a key rotation, with an earlier one (histories outlive rotations: a running workflow
 * replays what it recorded under the old key); only the current key seals.
 */
export class EncryptionCodec implements PayloadCodec {
  private readonly keys: Keyring;

  constructor(key: Buffer, previousKeys: readonly Buffer[] = []) {
    this.keys = new Keyring(key, previousKeys, 'payload encryption key');
  }

  /**
   * The payload key: TEMPORAL_PAYLOAD_KEY if set, else derived from the PHI key (HKDF). It opens
   * payloads with the earlier payload keys too, and with the keys derived from the earlier PHI
   * keys (and from the current one, for histories written before TEMPORAL_PAYLOAD_KEY was set).
   */
  static fromKeys(phiKey: Buffer, payloadKey?: Buffer, previous: { phiKeys?: readonly Buffer[]; payloadKeys?: readonly Buffer[] } = {}): EncryptionCodec {
    const derived = (key: Buffer) => Buffer.from(hkdfSync('sha256', key, Buffer.alloc(0), 'labflow temporal payloads', 32));
    const earlier = [...(previous.payloadKeys ?? []), ...[phiKey, ...(previous.phiKeys ?? [])].map(derived)];
    return new EncryptionCodec(payloadKey ?? derived(phiKey), earlier);
  }

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      const plaintext = temporal.api.common.v1.Payload.encode(payload).finish();
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', this.keys.current, iv);
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
      return temporal.api.common.v1.Payload.decode(this.keys.open((key) => openWith(key, raw)));
    });
  }
}

function openWith(key: KeyObject, raw: Buffer): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
  decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
  return Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
}

export function isEncrypted(payload: Payload): boolean {
  const encoding = payload.metadata?.encoding;
  return encoding !== undefined && encoding !== null && decoder.decode(encoding) === ENCODING;
}

/** The data converter every labflow client and worker uses: payloads encrypted at rest. */
export function labflowDataConverter(
  config: Pick<LabflowConfig, 'phiEncryptionKey' | 'temporalPayloadKey' | 'phiPreviousKeys' | 'temporalPayloadPreviousKeys'>,
) {
  return { payloadCodecs: [codecOf(config)] };
}

/** The payload codec of `config`'s keys. */
export function codecOf(
  config: Pick<LabflowConfig, 'phiEncryptionKey' | 'temporalPayloadKey' | 'phiPreviousKeys' | 'temporalPayloadPreviousKeys'>,
): EncryptionCodec {
  return EncryptionCodec.fromKeys(config.phiEncryptionKey, config.temporalPayloadKey, {
    phiKeys: config.phiPreviousKeys,
    payloadKeys: config.temporalPayloadPreviousKeys,
  });
}
