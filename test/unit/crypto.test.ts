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

describe('PhiCipher after a key rotation', () => {
  const oldKey = randomBytes(32);
  const newKey = randomBytes(32);
  const before = new PhiCipher(oldKey);
  const rotated = new PhiCipher(newKey, [oldKey]);

  it('opens text and binary PHI the earlier key sealed, and seals with the current key only', () => {
    const text = before.encrypt('Ada Lovelace');
    const bytes = before.encryptBytes(Buffer.from('%PDF-1.7'));
    expect(rotated.decrypt(text)).toBe('Ada Lovelace');
    expect(rotated.decryptBytes(bytes).toString()).toBe('%PDF-1.7');
    expect(() => new PhiCipher(newKey).decrypt(text)).toThrow();
    const sealedNow = rotated.encrypt('Ada Lovelace');
    expect(new PhiCipher(newKey).decrypt(sealedNow)).toBe('Ada Lovelace');
    expect(() => before.decrypt(sealedNow)).toThrow();
  });

  it('tells what the current key sealed, and seals the rest again with it', () => {
    const text = before.encrypt('Ada Lovelace');
    const bytes = before.encryptBytes(Buffer.from('%PDF-1.7'));
    expect(rotated.sealedWithCurrentKey(text)).toBe(false);
    expect(rotated.sealedWithCurrentKey(bytes)).toBe(false);
    const [resealedText, resealedBytes] = [rotated.reseal(text), rotated.resealBytes(bytes)];
    expect(rotated.sealedWithCurrentKey(resealedText)).toBe(true);
    expect(rotated.sealedWithCurrentKey(resealedBytes)).toBe(true);
    expect(new PhiCipher(newKey).decrypt(resealedText)).toBe('Ada Lovelace');
    expect(new PhiCipher(newKey).decryptBytes(resealedBytes).toString()).toBe('%PDF-1.7');
  });

  it('refuses a value no configured key sealed, and a tampered one', () => {
    expect(() => rotated.decrypt(new PhiCipher(randomBytes(32)).encrypt('x'))).toThrow();
    const raw = Buffer.from(before.encrypt('secret').slice(3), 'base64');
    raw[raw.length - 1] ^= 1;
    expect(() => rotated.decrypt(`v1.${raw.toString('base64')}`)).toThrow();
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
