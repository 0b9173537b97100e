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
  const url = new URL(path, apiUrl);
  for (const [name, value] of Object.entries(query)) url.searchParams.set(name, value);
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json' },
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  if (!response.ok) {
    const detail = (await response.text().catch(() => '')).slice(0, 300);
    throw new ProviderHttpError(response.status, `${provider} ${path} answered ${response.status}${detail ? `: ${detail}` : ''}`);
  }
  return (await response.json()) as T;
}

/** Whether the provider answered 401 (the access token expired or was revoked before its time). */
export const isUnauthorized = (error: unknown): boolean => error instanceof ProviderHttpError && error.status === 401;
