import { findUnstorableString, unstorableProblem } from '../../src/common/validation';
import { field } from '../../src/portal/portal-http';

describe('findUnstorableString (what Postgres text and jsonb cannot hold)', () => {
  it('finds a NUL in a value or a key anywhere, with its path', () => {
    expect(findUnstorableString('a\u0000')).toEqual({ path: [], value: 'a\u0000', problem: 'nul' });
    expect(findUnstorableString({ data: [{ value: 1 }, { note: 'x\u0000y' }] })).toEqual({ path: ['data', 1, 'note'], value: 'x\u0000y', problem: 'nul' });
    expect(findUnstorableString({ a: { 'k\u0000': 1 } })).toEqual({ path: ['a', 'k\u0000'], value: 'k\u0000', problem: 'nul' });
    expect(findUnstorableString([[['\u0000']]])).toEqual({ path: [0, 0, 0], value: '\u0000', problem: 'nul' });
  });

  it('finds a lone UTF-16 surrogate, high or low, at the end, start or middle, in a value or a key', () => {
    expect(findUnstorableString({ address: { first_line: 'a\ud800' } })).toEqual({
      path: ['address', 'first_line'],
      value: 'a\ud800',
      problem: 'lone_surrogate',
    });
    expect(findUnstorableString(['ok', '\udfffx'])).toEqual({ path: [1], value: '\udfffx', problem: 'lone_surrogate' });
    expect(findUnstorableString({ 'k\udbff': 'v' })).toEqual({ path: ['k\udbff'], value: 'k\udbff', problem: 'lone_surrogate' });
    for (const lone of ['\ud800', '\udc00', 'a\ud800b', '\udc00\ud800', '😀\ud83d', '\ude00😀', '\ud800\ud800']) {
      expect(unstorableProblem(lone)).toBe('lone_surrogate');
    }
  });

  it('stores what Postgres stores: surrogate pairs, other control characters, U+FFFD, BOM, RTL marks', () => {
    for (const fine of ['😀', '🧪🧬', 'a😀b', '\u0001\u001f\u007f', '\ufffd', '\ufeffbom', '\u202eevil', 'ﷺ', '']) {
      expect(unstorableProblem(fine)).toBeNull();
    }
    expect(findUnstorableString({ data: Array.from({ length: 1000 }, (_, i) => ({ timestamp: `t${i}`, value: i, tags: ['a', null, '😀'] })) })).toBeNull();
    expect(findUnstorableString(null)).toBeNull();
    expect(findUnstorableString(5)).toBeNull();
  });

  it('does not walk binary bodies', () => {
    expect(findUnstorableString(Buffer.from([0, 0xd8, 0]))).toBeNull();
    expect(findUnstorableString({ file: new Uint8Array([0]) })).toBeNull();
  });
});

describe('portal and Link form fields (urlencoded, outside the validation pipe)', () => {
  it('read a value Postgres cannot store as absent, and keep every other value', () => {
    expect(field({ otp: '12\u000034' }, 'otp')).toBe('');
    expect(field({ reason: ['a\ud800', 'b'] }, 'reason')).toBe('');
    expect(field({ reason: 'Moved 😀' }, 'reason')).toBe('Moved 😀');
    expect(field({ csrf: 'x'.repeat(3000) }, 'csrf')).toHaveLength(2000);
    expect(field(null, 'csrf')).toBe('');
    // Cut to length without leaving half of a pair behind.
    const cut = field({ reason: `${'a'.repeat(1999)}😀😀` }, 'reason');
    expect(cut).toBe('a'.repeat(1999));
    expect(unstorableProblem(cut)).toBeNull();
  });
});
