import { defaultPayloadConverter } from '@temporalio/common';
import { randomBytes } from 'node:crypto';
import { EncryptionCodec } from '../../src/temporal/payload-codec';

describe('EncryptionCodec', () => {
  const codec = EncryptionCodec.fromKeys(randomBytes(32));
  const payload = defaultPayloadConverter.toPayload({ first_name: 'Ada', dob: '1815-12-10' });

  it('round-trips a payload and hides its content', async () => {
    const [encrypted] = await codec.encode([payload]);
    expect(Buffer.from(encrypted.data!).toString('latin1')).not.toContain('Ada');
    const [decoded] = await codec.decode([encrypted]);
    expect(defaultPayloadConverter.fromPayload(decoded)).toEqual({ first_name: 'Ada', dob: '1815-12-10' });
  });

  it('passes through payloads it did not encrypt (histories recorded before it)', async () => {
    expect(await codec.decode([payload])).toEqual([payload]);
  });

  it('refuses ciphertext made with another key', async () => {
    const [encrypted] = await codec.encode([payload]);
    await expect(EncryptionCodec.fromKeys(randomBytes(32)).decode([encrypted])).rejects.toThrow();
  });

  it('after a rotation opens what the earlier PHI key or payload key sealed, and seals only with the current one', async () => {
    const [oldPhi, newPhi, oldPayload] = [randomBytes(32), randomBytes(32), randomBytes(32)];
    const [underOldPhi] = await EncryptionCodec.fromKeys(oldPhi).encode([payload]);
    const [underOldPayload] = await EncryptionCodec.fromKeys(oldPhi, oldPayload).encode([payload]);
    const rotated = EncryptionCodec.fromKeys(newPhi, undefined, { phiKeys: [oldPhi], payloadKeys: [oldPayload] });
    for (const sealed of [underOldPhi, underOldPayload]) {
      expect(defaultPayloadConverter.fromPayload((await rotated.decode([sealed]))[0])).toEqual({ first_name: 'Ada', dob: '1815-12-10' });
    }
    const [underNew] = await rotated.encode([payload]);
    await expect(EncryptionCodec.fromKeys(oldPhi).decode([underNew])).rejects.toThrow();
    expect(defaultPayloadConverter.fromPayload((await EncryptionCodec.fromKeys(newPhi).decode([underNew]))[0])).toEqual({
      first_name: 'Ada',
      dob: '1815-12-10',
    });
    // Without the earlier key, what it sealed stays closed.
    await expect(EncryptionCodec.fromKeys(newPhi).decode([underOldPhi])).rejects.toThrow();
  });
});
