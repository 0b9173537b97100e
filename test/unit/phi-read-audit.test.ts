import type { DataSource } from 'typeorm';
import { PhiReadAudit } from '../../src/common/phi-access-log';

/** A data source whose pool hands out one fake connection: each INSERT waits until `release` is called. */
function fakeDb(options: { fail?: (call: number) => Error | undefined } = {}) {
  const inserts: unknown[][][] = [];
  const waiting: Array<() => void> = [];
  const client = {
    on: () => undefined,
    removeListener: () => undefined,
    release: () => undefined,
    query: (config: { values: unknown[][] }) =>
      new Promise((resolve, reject) => {
        const call = inserts.push(config.values) - 1;
        waiting.push(() => {
          const error = options.fail?.(call);
          if (error) reject(error);
          else resolve({ rows: [] });
        });
      }),
  };
  const db = { driver: { master: { connect: async () => client } } } as unknown as DataSource;
  const settle = async () => {
    for (let i = 0; i < 5; i += 1) await new Promise((done) => setImmediate(done));
  };
  /** Lets the INSERT in flight finish. */
  const commit = async () => {
    await settle();
    waiting.shift()?.();
    await settle();
  };
  return { db, inserts, commit };
}

const by = { teamId: '00000000-0000-4000-8000-00000000000a', apiKeyId: '00000000-0000-4000-8000-00000000000b' };

describe('PhiReadAudit (group commit of PHI read audit rows)', () => {
  it('answers a read only once its row has committed; reads arriving meanwhile share the next INSERT', async () => {
    const { db, inserts, commit } = fakeDb();
    const audit = new PhiReadAudit(db);
    const answered: string[] = [];
    const first = audit.record(by, 'order', 'o1').then(() => answered.push('o1'));
    await new Promise((done) => setImmediate(done));
    const later = ['o2', 'o3', 'o4'].map((id) => audit.record(by, 'order', id).then(() => answered.push(id)));
    expect(answered).toEqual([]);
    await commit();
    await first;
    expect(answered).toEqual(['o1']);
    await commit();
    await Promise.all(later);
    expect(answered).toEqual(['o1', 'o2', 'o3', 'o4']);
    // One row per read: the first INSERT alone, the three behind it together, column by column.
    expect(inserts).toEqual([
      [[by.teamId], [by.apiKeyId], ['order'], ['o1']],
      [
        [by.teamId, by.teamId, by.teamId],
        [by.apiKeyId, by.apiKeyId, by.apiKeyId],
        ['order', 'order', 'order'],
        ['o2', 'o3', 'o4'],
      ],
    ]);
  });

  it('fails a read whose row cannot be written (so it never answers with PHI); its batch mates are written alone, and it goes on', async () => {
    // The INSERT of o2 and o3 together fails (call 1); written alone, o2's goes through (call 2) and o3's fails again (call 3).
    const { db, commit } = fakeDb({ fail: (call) => (call === 1 || call === 3 ? new Error('invalid input syntax for type uuid') : undefined) });
    const audit = new PhiReadAudit(db);
    const first = audit.record(by, 'order', 'o1');
    await new Promise((done) => setImmediate(done));
    // Both behind the first INSERT: the second INSERT, which fails, holds them both.
    const reads = [audit.record(by, 'order', 'o2'), audit.record({ ...by, apiKeyId: null }, 'order', 'not-a-uuid')].map((read) =>
      read.then(
        () => 'committed',
        (error: Error) => error.message,
      ),
    );
    await commit();
    await expect(first).resolves.toBeUndefined();
    await commit(); // the shared INSERT fails
    await commit(); // o2 alone
    await commit(); // o3 alone, fails
    expect(await Promise.all(reads)).toEqual(['committed', 'invalid input syntax for type uuid']);
    const after = audit.record(by, 'order', 'o4');
    await commit();
    await expect(after).resolves.toBeUndefined();
  });
});
