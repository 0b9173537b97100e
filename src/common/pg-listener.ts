import { Client as PgClient } from 'pg';

export interface PgListenerHandlers {
  /** Runs the LISTEN on the new connection (the SQL lives in the channel's repository). */
  subscribe(client: PgClient): Promise<void>;
  /** A NOTIFY on the channel, with its payload. */
  onNotification(payload: string | undefined): void;
  /** Connected and subscribed (again): anything notified while not listening was missed. */
  onListening(): void;
  /** The connection failed or ended; another is tried after `retryMs`. */
  onLost(error: Error): void;
}

/**
 * A dedicated Postgres connection LISTENing on a channel, reconnected after a failure until
 * stopped. Each user says what a lost connection means for it: the outbox relay polls
 * meanwhile, the team key cache stops caching.
 */
export class PgListener {
  private client: PgClient | null = null;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private stopped = true;

  constructor(
    private readonly databaseUrl: string,
    private readonly handlers: PgListenerHandlers,
    private readonly retryMs = 1000,
  ) {}

  /** Connects in the background; `onListening` says when it listens. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    const client = new PgClient({ connectionString: this.databaseUrl });
    let lost = false;
    const retry = (error: Error) => {
      if (lost) return;
      lost = true;
      if (this.client === client) this.client = null;
      client.end().catch(() => undefined);
      if (this.stopped) return;
      this.handlers.onLost(error);
      if (this.reconnectTimer) return;
      this.reconnectTimer = setTimeout(() => {
        this.reconnectTimer = null;
        void this.connect();
      }, this.retryMs);
    };
    client.on('error', retry);
    client.on('end', () => retry(new Error('the LISTEN connection ended')));
    client.on('notification', (notification) => this.handlers.onNotification(notification.payload));
    try {
      await client.connect();
      await this.handlers.subscribe(client);
      if (this.stopped) {
        lost = true;
        await client.end();
        return;
      }
      this.client = client;
      this.handlers.onListening();
    } catch (error) {
      retry(error instanceof Error ? error : new Error(String(error)));
    }
  }
}
