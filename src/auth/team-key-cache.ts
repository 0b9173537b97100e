import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { hashSecretHex } from '../common/crypto';
import { PgListener } from '../common/pg-listener';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { ApiKeysRepository } from '../tenancy/api-keys.repository';
import type { TeamPrincipal } from './principal';

/** Keys kept at most; the oldest go first beyond it. */
const MAX_ENTRIES = 10_000;

/**
 * The team API keys this API process verified lately, so a request does not look its key up in
 * Postgres every time (a round trip per request on the hottest path). Safe because revocation
 * reaches every replica at once: a trigger NOTIFYs each revoked or deleted key when its
 * transaction commits, and a LISTEN connection here drops it. Only while that connection is up
 * is anything cached: when it fails, the cache is emptied and every request looks its key up
 * until it is back. A lookup that raced with a revocation is not cached (generation check).
 * API_KEY_CACHE_TTL bounds how long an entry lives at all; 0s turns the cache off.
 */
@Injectable()
export class TeamKeyCache implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('TeamKeyCache');
  private readonly entries = new Map<string, { principal: TeamPrincipal; expiresAt: number }>();
  private readonly listener: PgListener;
  private listening = false;
  /** Bumped by every revocation and lost connection: a lookup begun before it is not cached. */
  private generation = 0;

  constructor(
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
    @InjectDataSource() db: DataSource,
  ) {
    const repo = new ApiKeysRepository(db);
    this.listener = new PgListener(config.databaseUrl, {
      subscribe: (client) => repo.listenForTeamKeyRevocations(client),
      onNotification: (hash) => {
        if (hash) this.forget(hash);
      },
      onListening: () => {
        this.listening = true;
      },
      onLost: (error) => {
        this.forgetAll();
        this.logger.warn(`revocation listener lost (${error.message}); every request looks its key up until it is back`);
      },
    });
  }

  onModuleInit(): void {
    if (this.config.apiKeyCacheTtlMs > 0) this.listener.start();
  }

  async onModuleDestroy(): Promise<void> {
    this.forgetAll();
    await this.listener.stop();
  }

  /** The principal of `value`: from the cache, else from `lookup` (cached when valid and safe to). */
  async authenticate(value: string, lookup: () => Promise<TeamPrincipal | null>, hash = hashSecretHex(value)): Promise<TeamPrincipal | null> {
    return this.cached(hash) ?? this.lookUp(hash, lookup);
  }

  /**
   * The principal of the key with this hash (hashSecretHex) when the cache holds it, synchronously
   * (the key guard's common case takes no promise); undefined when it must be looked up.
   */
  cached(hash: string): TeamPrincipal | undefined {
    if (!this.listening) return undefined;
    const hit = this.entries.get(hash);
    if (!hit) return undefined;
    if (hit.expiresAt > Date.now()) return hit.principal;
    this.entries.delete(hash);
    return undefined;
  }

  /** The principal from `lookup`, cached when valid and safe to. */
  async lookUp(hash: string, lookup: () => Promise<TeamPrincipal | null>): Promise<TeamPrincipal | null> {
    if (!this.listening) return lookup();
    const now = Date.now();
    const generation = this.generation;
    const principal = await lookup();
    if (principal && this.listening && generation === this.generation) {
      if (this.entries.size >= MAX_ENTRIES) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(hash, { principal, expiresAt: now + this.config.apiKeyCacheTtlMs });
    }
    return principal;
  }

  private forget(hash: string): void {
    this.generation += 1;
    this.entries.delete(hash);
  }

  private forgetAll(): void {
    this.generation += 1;
    this.listening = false;
    this.entries.clear();
  }
}
