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
});
