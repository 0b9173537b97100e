import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { looksLikeManagementKey, looksLikeTeamKey } from '../auth/api-keys.service';
import { isPublic, keyHashOf, presentedManagementKey, presentedTeamKey, routeMetadata } from '../auth/guards';
import { presentedBearerToken } from '../auth/user-tokens';
import { ApiError } from '../common/errors';
import { type AddressFamily, RATE_LIMIT_FAMILY } from './rate-limit-family';
import { type BudgetState, type LimitScope, RequestLimiter, type Verdict } from './request-limiter';

/** The answers that count as a refused attempt: a key refused; a code, token or signature unknown. */
const KEY_FAILURES = new Set([401]);
const ADDRESS_FAILURES = new Set([401, 404]);

/** What a request is counted against, and which of its answers count as refused attempts. */
interface Counting {
  scope: LimitScope;
  failureStatuses: Set<number>;
}

/**
 * The rate limits (docs/rate-limits.md) as the first global guard of each HTTP app, registered
 * before the key guard: a request over its budget, or from an address that used up its refused
 * attempts, is answered 429 before its key is looked up or anything else runs. Every counted
 * request carries X-RateLimit-Limit, -Remaining and -Reset (Unix seconds, as the Junction SDK
 * reads it); a 429 adds Retry-After (seconds). The answer of an admitted request is watched: a
 * refused attempt (401, and 404 on unauthenticated families) is counted against the address, and
 * any other answer tells a leased key budget that the key was accepted.
 */
@Injectable()
abstract class RateLimitGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly limiter: RequestLimiter,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const http = context.switchToHttp();
    const request = http.getRequest<FastifyRequest>();
    const reply = http.getResponse<FastifyReply>();
    const counting = this.countingOf(context, request);
    if (!counting) return true;
    // Answered from this process's lease without a promise when it can be (most keyed requests).
    const verdict = this.limiter.admitNow(counting.scope);
    if (verdict) return this.apply(verdict, counting, reply);
    return this.limiter.admit(counting.scope).then((later) => this.apply(later, counting, reply));
  }

  /** The verdict on the reply: the budget headers, a 429, and the watch on a counted answer. */
  private apply(verdict: Verdict, counting: Counting, reply: FastifyReply): boolean {
    if (verdict.state) setBudgetHeaders(reply, verdict.state);
    if (verdict.kind === 'refused') {
      const seconds = retryAfterSeconds(verdict.state);
      void reply.header('retry-after', String(seconds));
      throw new ApiError(429, refusal(verdict, seconds));
    }
    if (counting.scope.failures) {
      reply.raw.once('finish', () => void this.limiter.settle(counting.scope, counting.failureStatuses.has(reply.raw.statusCode)));
    }
    return true;
  }

  private countingOf(context: ExecutionContext, request: FastifyRequest): Counting | null {
    if (isPublic(this.reflector, context)) {
      const family = routeMetadata<AddressFamily>(this.reflector, RATE_LIMIT_FAMILY, context);
      if (!family) return null;
      return { scope: { requests: { family, subject: request.ip }, failures: { family, address: request.ip } }, failureStatuses: ADDRESS_FAILURES };
    }
    const key = this.presentedKey(request);
    // No key: refused at once by the key guard, without a lookup; nothing to count.
    if (!key) return null;
    return {
      scope: {
        requests: { family: this.keyFamily, subject: keyHashOf(request, key) },
        // A key without this API's prefix is refused without a lookup and can never be right:
        // it guesses nothing (a team key sent to the management API, a management key to the API).
        failures: this.couldBeKey(key) ? { family: 'invalidKey', address: request.ip } : null,
      },
      failureStatuses: KEY_FAILURES,
    };
  }

  protected abstract readonly keyFamily: 'apiKey' | 'managementKey';
  protected abstract presentedKey(request: FastifyRequest): string | undefined;
  protected abstract couldBeKey(key: string): boolean;
}

/**
 * Main API: per team API key, or per user access token (the mobile SDKs': counted in the same
 * family, but against the token, so one phone spends no other's budget nor the team key's);
 * @Public routes of a family per client address.
 */
@Injectable()
export class ApiRateLimitGuard extends RateLimitGuard {
  protected readonly keyFamily = 'apiKey';
  protected presentedKey = (request: FastifyRequest) => presentedTeamKey(request) ?? presentedBearerToken(request);
  protected couldBeKey = (key: string) => looksLikeTeamKey(key) || JWT_SHAPE.test(key);
}

/** Three base64url parts: what an access token looks like (anything else is refused unlooked-up). */
const JWT_SHAPE = /^[\w-]+\.[\w-]+\.[\w-]+$/;

/** Management API: per management key. */
@Injectable()
export class ManagementRateLimitGuard extends RateLimitGuard {
  protected readonly keyFamily = 'managementKey';
  protected presentedKey = presentedManagementKey;
  protected couldBeKey = looksLikeManagementKey;
}

function setBudgetHeaders(reply: FastifyReply, state: BudgetState): void {
  void reply.header('x-ratelimit-limit', String(state.limit));
  void reply.header('x-ratelimit-remaining', String(state.remaining));
  void reply.header('x-ratelimit-reset', String(Math.ceil((Date.now() + state.resetMs) / 1000)));
}

/** Whole seconds until the window closes, at least 1 (Retry-After: 0 would invite a retry loop). */
function retryAfterSeconds(state: BudgetState): number {
  return Math.max(1, Math.ceil(state.resetMs / 1000));
}

function refusal(verdict: Extract<Verdict, { kind: 'refused' }>, seconds: number): string {
  return verdict.reason === 'failures'
    ? `Too many refused attempts from this address: try again in ${seconds} seconds.`
    : `Rate limit exceeded (${verdict.state.limit} requests per window): try again in ${seconds} seconds.`;
}
