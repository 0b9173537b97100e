import { findNulString } from '../../src/common/validation';

describe('findNulString (Postgres text cannot hold NUL)', () => {
  it('finds a NUL in a value or a key anywhere, with its path', () => {
    expect(findNulString('a\u0000')).toEqual({ path: [], value: 'a\u0000' });
    expect(findNulString({ data: [{ value: 1 }, { note: 'x\u0000y' }] })).toEqual({ path: ['data', 1, 'note'], value: 'x\u0000y' });
    expect(findNulString({ a: { 'k\u0000': 1 } })).toEqual({ path: ['a', 'k\u0000'], value: 'k\u0000' });
    expect(findNulString([[['\u0000']]])).toEqual({ path: [0, 0, 0], value: '\u0000' });
  });

  it('finds nothing in data without NUL', () => {
    expect(findNulString({ data: Array.from({ length: 1000 }, (_, i) => ({ timestamp: `t${i}`, value: i, tags: ['a', null] })) })).toBeNull();
    expect(findNulString(null)).toBeNull();
    expect(findNulString(5)).toBeNull();
  });
});
