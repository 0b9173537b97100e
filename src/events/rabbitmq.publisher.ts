import { type ChannelModel, type ConfirmChannel, connect } from 'amqplib';
import type { LookupFunction } from 'node:net';
import { errorListener, type WarnLogger } from '../common/logger';
import { amqpUriProblem, maskAmqpUri } from './amqp-uri';
import { publicOnlyLookup } from './webhook-sender';

export interface RabbitMqMessage {
  exchange: string;
  /** The event type. */
  routingKey: string;
  /** The event id: consumers de-duplicate on it, as webhook receivers do on webhook-id. */
  messageId: string;
  body: Buffer;
  /** Seconds since the epoch (AMQP timestamp). */
  timestamp: number;
  headers?: Record<string, string>;
}

interface Link {
  connection: ChannelModel;
  channel: ConfirmChannel;
}

/**
 * Publishes events to a team's RabbitMQ exchange (an ETL pipeline's `rabbitmq` destination):
 * persistent messages on a confirm channel, one cached connection per URI. `publish` resolves
 * only once the broker confirmed the message, so a delivery succeeds only when RabbitMQ owns it.
 * The exchange is the team's: labflow neither declares nor binds it (a missing exchange fails
 * the attempt, and it is retried on the webhook schedule).
 *
 * Unless `allowPrivate`, a URI naming localhost or a private address is refused, and so is a host
 * name that resolves to one when connecting (as for webhooks: DNS may change after the URI was
 * accepted).
 */
export class RabbitMqPublisher {
  private readonly links = new Map<string, Promise<Link>>();

  private readonly lookup: LookupFunction | undefined;

  constructor(
    private readonly timeoutMs: number,
    private readonly allowPrivate = true,
    private readonly logger: WarnLogger = console,
  ) {
    this.lookup = allowPrivate ? undefined : publicOnlyLookup();
  }

  /**
   * Publishes and waits for the broker's confirm, connecting first if need be: all of it within
   * `timeoutMs` (default, and at most, the publisher's own timeout), so an attempt never runs past
   * its claim's lease.
   */
  async publish(uri: string, message: RabbitMqMessage, options: { timeoutMs?: number } = {}): Promise<void> {
    const problem = amqpUriProblem(uri, this.allowPrivate);
    if (problem) throw new Error(`Refused: ${problem}`);
    const timeoutMs = Math.min(options.timeoutMs ?? this.timeoutMs, this.timeoutMs);
    let timer: NodeJS.Timeout | undefined;
    let stage = 'connection';
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(stage === 'connection' ? `No connection to ${maskAmqpUri(uri)} within ${timeoutMs} ms` : `No publisher confirm within ${timeoutMs} ms`),
          ),
        timeoutMs,
      );
    });
    try {
      const link = await Promise.race([this.link(uri), deadline]);
      stage = 'confirm';
      try {
        await Promise.race([
          new Promise<void>((resolve, reject) => {
            link.channel.publish(
              message.exchange,
              message.routingKey,
              message.body,
              {
                messageId: message.messageId,
                persistent: true,
                contentType: 'application/json',
                contentEncoding: 'utf-8',
                type: message.routingKey,
                timestamp: message.timestamp,
                appId: 'labflow',
                headers: message.headers,
              },
              (error: unknown) => (error ? reject(error instanceof Error ? error : new Error(String(error))) : resolve()),
            );
          }),
          deadline,
        ]);
      } catch (error) {
        // A failed publish may have closed the channel (e.g. 404 NOT_FOUND for a missing exchange).
        this.drop(uri, link);
        throw error;
      }
    } finally {
      // Both races listen to the deadline, so its rejection is always handled; cleared, it never comes.
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    const links = [...this.links.values()];
    this.links.clear();
    await Promise.all(links.map(async (pending) => (await pending.catch(() => null))?.connection.close().catch(() => undefined)));
  }

  private link(uri: string): Promise<Link> {
    let pending = this.links.get(uri);
    if (!pending) {
      pending = this.open(uri);
      this.links.set(uri, pending);
      pending.catch(() => this.links.delete(uri));
    }
    return pending;
  }

  private async open(uri: string): Promise<Link> {
    let connection: ChannelModel;
    try {
      connection = await connect(uri, { timeout: this.timeoutMs, ...(this.lookup ? { lookup: this.lookup } : {}) });
    } catch (error) {
      throw new Error(`Cannot connect to ${maskAmqpUri(uri)}: ${error instanceof Error ? error.message : String(error)}`);
    }
    const channel = await connection.createConfirmChannel();
    const link = { connection, channel };
    // The publish that hit the error fails (and is recorded as a failed attempt); the link is dropped on 'close'.
    const onError = errorListener(this.logger, `RabbitMQ ${maskAmqpUri(uri)}`);
    connection.on('error', onError);
    channel.on('error', onError);
    connection.on('close', () => this.drop(uri, link));
    channel.on('close', () => this.drop(uri, link));
    return link;
  }

  private drop(uri: string, link: Link): void {
    const current = this.links.get(uri);
    if (!current) return;
    void current.then(
      (value) => {
        if (value !== link) return;
        if (this.links.get(uri) === current) this.links.delete(uri);
        link.connection.close().catch(() => undefined);
      },
      () => undefined,
    );
  }
}
