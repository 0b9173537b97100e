import { nonPublicHostProblem } from './webhook-url';

/** An amqp:// or amqps:// URI with a host (RabbitMQ). */
export function isAmqpUri(value: string): boolean {
  if (!/^amqps?:\/\//i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'amqp:' || url.protocol === 'amqps:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/**
 * Why a RabbitMQ URI is refused as an outbound target (server-side request forgery), or null:
 * unless `allowPrivate` (development and tests, ALLOW_PRIVATE_WEBHOOK_URLS), no localhost and no
 * literal non-public address (nonPublicRange). An amqp: URI's host is not normalised by URL as an
 * http: one is, so `amqp://0x7f.1` reaches nonPublicHostProblem as written; ipaddr.js reads it as
 * 127.0.0.1, as the broker connection's getaddrinfo would. The URI's form is checked by isAmqpUri.
 */
export function amqpUriProblem(value: string, allowPrivate: boolean): string | null {
  if (allowPrivate || !isAmqpUri(value)) return null;
  return nonPublicHostProblem(new URL(value).hostname, 'URI');
}

/** A RabbitMQ URI with its password replaced, for reading back. */
export function maskAmqpUri(uri: string): string {
  return uri.replace(/^(amqps?:\/\/[^:@/]*:)[^@/]*@/i, '$1****@');
}
