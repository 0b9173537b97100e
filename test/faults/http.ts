/** The fault run's HTTP client (the API and management API as a team's backend calls them) and a bounded pool. */
import { sleep } from './log';
import { LOG_DIR } from './settings';

export interface Reply {
  status: number;
  body: any;
}

/**
 * How long the runner waits for one answer. Generous: with both fault runs, or a fault run and
 * Jest, on two loaded cores a setup request took over 15 s; a wait this long still ends a hung run.
 */
const REQUEST_TIMEOUT_MS = 60_000;

export async function http(
  base: string,
  method: string,
  path: string,
  options: { key?: string; managementKey?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers['x-service-api-key'] = options.key;
  if (options.managementKey) headers['x-management-key'] = options.managementKey;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // keep the text
  }
  return { status: response.status, body };
}

export async function waitHealthy(base: string, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await http(base, 'GET', '/health')).status === 200) return;
    } catch {
      // not up yet
    }
    await sleep(250);
  }
  throw new Error(`${what} did not answer ${base}/health within ${timeoutMs / 1000} s (log: ${LOG_DIR})`);
}

/** Runs `task` over `items` with at most `limit` in flight. */
export async function pool<T, R>(items: T[], limit: number, task: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await task(items[index], index);
      }
    }),
  );
  return results;
}
