/** An answer of a provider's API that is not the data asked for: 401 (the access token), 403 (a scope), 429, 5xx… */
export class ProviderHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ProviderHttpError';
  }
}

const REQUEST_TIMEOUT_MS = 30_000;

/**
 * GET `path` of a provider's API with the user's bearer token; the JSON answer, or
 * ProviderHttpError naming the provider, path and status (and the start of the body).
 */
export async function getJson<T>(provider: string, apiUrl: string, path: string, query: Record<string, string>, accessToken: string): Promise<T> {
  const response = await send(provider, apiUrl, path, { query, accessToken, accept: 'application/json' });
  return (await response.json()) as T;
}

/**
 * A request to a provider whose answer matters only as success (revoking a grant); ProviderHttpError
 * as for getJson when the provider refuses it.
 */
export async function sendOk(
  provider: string,
  apiUrl: string,
  path: string,
  options: { method?: string; query?: Record<string, string>; accessToken?: string },
): Promise<void> {
  await send(provider, apiUrl, path, options);
}

async function send(
  provider: string,
  apiUrl: string,
  path: string,
  options: { method?: string; query?: Record<string, string>; accessToken?: string; accept?: string },
): Promise<Response> {
  const url = new URL(path, apiUrl);
  for (const [name, value] of Object.entries(options.query ?? {})) url.searchParams.set(name, value);
  const headers: Record<string, string> = {};
  if (options.accessToken) headers.authorization = `Bearer ${options.accessToken}`;
  if (options.accept) headers.accept = options.accept;
  const response = await fetch(url, { method: options.method ?? 'GET', headers, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  if (!response.ok) {
    const detail = (await response.text().catch(() => '')).slice(0, 300);
    throw new ProviderHttpError(response.status, `${provider} ${options.method ?? 'GET'} ${path} answered ${response.status}${detail ? `: ${detail}` : ''}`);
  }
  return response;
}

/** Whether the provider answered 401 (the access token expired or was revoked before its time). */
export const isUnauthorized = (error: unknown): boolean => error instanceof ProviderHttpError && error.status === 401;
