import { overSocket } from '../../src/db/database-socket';

/** DATABASE_SOCKET: the pool reaches a Postgres on this machine over its Unix socket, any other as DATABASE_URL says. */
describe('overSocket', () => {
  const socketIn = (directory: string) => (path: string) => path === `${directory}/.s.PGSQL.5432`;

  it('auto: a loopback DATABASE_URL goes over the socket it finds, database and user kept', () => {
    const url = overSocket('postgres://postgres@127.0.0.1:5432/labflow', 'auto', socketIn('/var/run/postgresql'));
    expect(url).toBe('postgres://postgres@127.0.0.1:5432/labflow?host=%2Fvar%2Frun%2Fpostgresql');
    expect(overSocket('postgres://app:secret@localhost/labflow?sslmode=disable', 'auto', socketIn('/tmp'))).toBe(
      'postgres://app:secret@localhost/labflow?sslmode=disable&host=%2Ftmp',
    );
  });

  it('auto: another host (compose: postgres), no socket, or a host parameter already leave DATABASE_URL as it is', () => {
    expect(overSocket('postgres://postgres@postgres:5432/labflow', 'auto', () => true)).toBe('postgres://postgres@postgres:5432/labflow');
    expect(overSocket('postgres://postgres@127.0.0.1:5432/labflow', 'auto', () => false)).toBe('postgres://postgres@127.0.0.1:5432/labflow');
    expect(overSocket('postgres://postgres@127.0.0.1:6543/labflow', 'auto', socketIn('/tmp'))).toBe('postgres://postgres@127.0.0.1:6543/labflow');
    expect(overSocket('postgres://postgres@127.0.0.1/labflow?host=/run/pg', 'auto', () => true)).toBe('postgres://postgres@127.0.0.1/labflow?host=/run/pg');
  });

  it('off keeps DATABASE_URL; a directory is used whatever the host', () => {
    expect(overSocket('postgres://postgres@127.0.0.1:5432/labflow', 'off', () => true)).toBe('postgres://postgres@127.0.0.1:5432/labflow');
    expect(overSocket('postgres://postgres@db.internal:5432/labflow', '/run/postgresql', () => false)).toBe(
      'postgres://postgres@db.internal:5432/labflow?host=%2Frun%2Fpostgresql',
    );
  });
});
