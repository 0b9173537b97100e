import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** Where Postgres puts its Unix socket on Debian/Ubuntu packages, and its own default. */
const SOCKET_DIRECTORIES = ['/var/run/postgresql', '/tmp'];
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

/**
 * DATABASE_URL as the pool connects (DATABASE_SOCKET): over Postgres's Unix socket when `socket`
 * is its directory, or `auto` finds one for a DATABASE_URL on this machine; else unchanged. The
 * socket directory goes in as the `host` parameter (pg reads it over the URL's host), so the
 * database, user and password stay as DATABASE_URL says.
 */
export function overSocket(databaseUrl: string, socket: string, exists: (path: string) => boolean = existsSync): string {
  if (socket === 'off') return databaseUrl;
  const url = new URL(databaseUrl);
  if (url.searchParams.has('host')) return databaseUrl;
  let directory: string | undefined = socket;
  if (socket === 'auto') {
    if (!LOOPBACK.has(url.hostname)) return databaseUrl;
    const port = url.port || '5432';
    directory = SOCKET_DIRECTORIES.find((candidate) => exists(join(candidate, `.s.PGSQL.${port}`)));
    if (!directory) return databaseUrl;
  }
  url.searchParams.set('host', directory);
  return url.toString();
}
