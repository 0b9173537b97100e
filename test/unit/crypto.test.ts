import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { generateSecret, hashSecret, hashSecretHex, PhiCipher, secretMatches } from '../../src/common/crypto';

describe('PhiCipher (AES-256-GCM)', () => {
  const cipher = new PhiCipher(randomBytes(32));

  it('round-trips JSON and never repeats a ciphertext', () => {
    const person = { first_name: 'Ada', dob: '1815-12-10' };
    const a = cipher.encryptJson(person);
    const b = cipher.encryptJson(person);
    expect(a).not.toBe(b);
    expect(a).not.toContain('Ada');
    expect(cipher.decryptJson(a)).toEqual(person);
  });

  it('opens the documented format sealed outside it (v1.<base64(iv | tag | ciphertext)>, 0x01 | iv | tag | ciphertext)', () => {
    const key = randomBytes(32);
    const iv = randomBytes(12);
    const seal = () => createCipheriv('aes-256-gcm', key, iv);
    const text = seal();
    const body = Buffer.concat([text.update('{"last_name":"Lovelace"}', 'utf8'), text.final()]);
    const bytes = seal();
    const file = Buffer.concat([bytes.update(Buffer.from([0, 1, 2, 255])), bytes.final()]);
    const opened = new PhiCipher(key);
    expect(opened.decryptJson(`v1.${Buffer.concat([iv, text.getAuthTag(), body]).toString('base64')}`)).toEqual({ last_name: 'Lovelace' });
    const sealedFile = Buffer.concat([Buffer.from([1]), iv, bytes.getAuthTag(), file]);
    expect([...opened.decryptBytes(sealedFile)]).toEqual([0, 1, 2, 255]);
    sealedFile[sealedFile.length - 1] ^= 1;
    expect(() => opened.decryptBytes(sealedFile)).toThrow();
  });

  it('refuses tampered ciphertext and a different key', () => {
    const sealed = cipher.encrypt('secret');
    const raw = Buffer.from(sealed.slice(3), 'base64');
    raw[raw.length - 1] ^= 1;
    expect(() => cipher.decrypt(`v1.${raw.toString('base64')}`)).toThrow();
    expect(() => new PhiCipher(randomBytes(32)).decrypt(sealed)).toThrow();
  });
});

describe('API key secrets', () => {
  it('carry a readable prefix and enough randomness', () => {
    const a = generateSecret('sk_us_');
    const b = generateSecret('sk_us_');
    expect(a).toMatch(/^sk_us_[0-9A-Za-z]{64}$/);
    expect(a).not.toBe(b);
  });

  it('match only their own hash', () => {
    const secret = generateSecret('mg_');
    expect(secretMatches(secret, hashSecret(secret))).toBe(true);
    expect(secretMatches(`${secret}x`, hashSecret(secret))).toBe(false);
  });

  it('hash to SHA-256 of their UTF-8, as bytes (stored) and as hex (the key cache and revocation notices)', () => {
    const secret = generateSecret('sk_us_');
    const expected = createHash('sha256').update(secret, 'utf8').digest();
    expect(hashSecret(secret).equals(expected)).toBe(true);
    expect(hashSecretHex(secret)).toBe(expected.toString('hex'));
    expect(hashSecretHex('é')).toBe(createHash('sha256').update('é', 'utf8').digest('hex'));
  });
});
