import { type CanActivate, type ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { headerOf } from '../common/body-parsers';
import { hashSecretHex } from '../common/crypto';
import { forbidden, unauthorized } from '../common/errors';
import { ApiKeysService, looksLikeManagementKey, looksLikeTeamKey } from './api-keys.service';
import { type AuthenticatedRequest, PUBLIC_ROUTE } from './principal';
import { TeamKeyCache } from './team-key-cache';
import { presentedBearerToken, USER_TOKEN_ROUTE, USER_TOKEN_VERIFIER, type UserLocation, type UserTokenVerifier } from './user-tokens';

type HeaderRequest = AuthenticatedRequest & {
  headers: Record<string, string | string[] | undefined>;
  params?: Record<string, string | undefined>;
  body?: unknown;
};

/**
 * The team API key a request presents to the main API: `x-service-api-key`, or `x-vital-api-key`,
 * which the official Junction SDK sends for its `apiKey` option.
 */
export function presentedTeamKey(request: Pick<HeaderRequest, 'headers'>): string | undefined {
  return headerOf(request, 'x-service-api-key') ?? headerOf(request, 'x-vital-api-key');
}

/**
 * The hash of the key a request presented, kept on the request: the rate limits count by it and
 * the key cache looks the key up by it. (On the request object: a WeakMap by request cost more
 * than the second SHA-256 it saves, levers.mjs.)
 */
const KEY_HASH = Symbol('labflow:keyHash');

/** hashSecretHex(key) of the key `request` presents, computed once per request. */
export function keyHashOf(request: object, key: string): string {
  const holder = request as { [KEY_HASH]?: { key: string; hash: string } };
  const known = holder[KEY_HASH];
  if (known !== undefined && known.key === key) return known.hash;
  const hash = hashSecretHex(key);
  holder[KEY_HASH] = { key, hash };
  return hash;
}

/** The management key a request presents: `X-Management-Key`, or the deprecated `X-Service-Org-Key`. */
export function presentedManagementKey(request: Pick<HeaderRequest, 'headers'>): string | undefined {
  return headerOf(request, 'x-management-key') ?? headerOf(request, 'x-service-org-key');
}

export function isPublic(reflector: Reflector, context: ExecutionContext): boolean {
  return routeMetadata(reflector, PUBLIC_ROUTE, context) === true;
}

/** Route metadata read, by key, handler and class (a handler inherited by two controllers has one per class). */
const routeMetadataRead = new Map<string, WeakMap<object, WeakMap<object, { value: unknown }>>>();

/**
 * `reflector.getAllAndOverride(key, [handler, class])`, read once per route: metadata is fixed
 * when the controllers are declared, and the guards ask for it on every request.
 */
export function routeMetadata<T>(reflector: Reflector, key: string, context: ExecutionContext): T | undefined {
  const handler = context.getHandler();
  const controller = context.getClass();
  let byHandler = routeMetadataRead.get(key);
  if (!byHandler) routeMetadataRead.set(key, (byHandler = new WeakMap()));
  let byClass = byHandler.get(handler);
  if (!byClass) byHandler.set(handler, (byClass = new WeakMap()));
  let read = byClass.get(controller);
  if (!read) byClass.set(controller, (read = { value: reflector.getAllAndOverride<T>(key, [handler, controller]) }));
  return read.value as T | undefined;
}

/** Shared by both guards: @Public routes pass; otherwise the request and its key are handed on. */
@Injectable()
abstract class KeyGuard implements CanActivate {
  constructor(
    protected readonly keys: ApiKeysService,
    private readonly reflector: Reflector,
  ) {}

  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (isPublic(this.reflector, context)) return true;
    const request = context.switchToHttp().getRequest<HeaderRequest>();
    const authenticating = this.authenticate(request, context);
    return authenticating ? authenticating.then(() => true) : true;
  }

  /** Sets the request's principal or throws; a promise only when that takes a lookup (a key not in the cache). */
  protected abstract authenticate(request: HeaderRequest, context: ExecutionContext): Promise<void> | undefined;
}

/** Main API: a team API key in `x-service-api-key` on every route not marked @Public. */
@Injectable()
export class TeamApiKeyGuard extends KeyGuard {
  constructor(
    keys: ApiKeysService,
    private readonly routes: Reflector,
    private readonly cache: TeamKeyCache,
    @Optional() @Inject(USER_TOKEN_VERIFIER) private readonly userTokens?: UserTokenVerifier,
  ) {
    super(keys, routes);
  }

  protected authenticate(request: HeaderRequest, context: ExecutionContext): Promise<void> | undefined {
    const value = presentedTeamKey(request);
    const bearer = value ? undefined : presentedBearerToken(request);
    if (bearer && this.userTokens) return this.authenticateUser(request, context, bearer);
    if (!value) throw unauthorized('Missing API key: send your team API key in the x-service-api-key header.');
    if (looksLikeManagementKey(value)) {
      throw unauthorized('A management key cannot be used on the main API; use a team API key.');
    }
    const hash = keyHashOf(request, value);
    const cached = this.cache.cached(hash);
    if (cached) {
      request.teamPrincipal = cached;
      return undefined;
    }
    return this.cache
      .lookUp(hash, () => this.keys.authenticateTeamKey(value))
      .then((principal) => {
        if (!principal) throw unauthorized('Invalid or revoked API key.');
        request.teamPrincipal = principal;
      });
  }

  /**
   * A user's access token (the mobile SDKs'): only on a route marked @UserTokenRoute, and only for
   * the user that route names; it acts as the user's team, so the route's own team checks hold.
   */
  private async authenticateUser(request: HeaderRequest, context: ExecutionContext, token: string): Promise<void> {
    const principal = await this.userTokens!.verify(token);
    if (!principal) throw unauthorized('Invalid, expired or revoked access token.');
    const where = this.routes.getAllAndOverride<UserLocation | undefined>(USER_TOKEN_ROUTE, [context.getHandler(), context.getClass()]);
    if (!where) throw forbidden("A user's access token reaches only that user's own routes; this one needs the team API key.");
    if (namedUser(request, where) !== principal.userId) throw unauthorized('This access token belongs to another user.');
    request.teamPrincipal = principal.team;
    request.userTokenUserId = principal.userId;
  }
}

function namedUser(request: HeaderRequest, where: UserLocation): string | undefined {
  if ('param' in where) return request.params?.[where.param];
  const body = request.body;
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[where.body] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/**
 * Management API: a management key in `X-Management-Key` (or the deprecated
 * `X-Service-Org-Key`). Management routes are only for orgs on the Scale plan.
 */
@Injectable()
export class ManagementKeyGuard extends KeyGuard {
  protected async authenticate(request: HeaderRequest): Promise<void> {
    const value = presentedManagementKey(request);
    if (!value) throw unauthorized('Missing management key: send it in the X-Management-Key header.');
    if (looksLikeTeamKey(value)) {
      throw unauthorized('A team API key cannot be used on the management API; use a management key.');
    }
    const principal = await this.keys.authenticateManagementKey(value);
    if (!principal) throw unauthorized('Invalid or revoked management key.');
    if (principal.orgPlan !== 'scale') {
      throw forbidden(`The management API requires the Scale plan; this org is on the ${principal.orgPlan} plan.`);
    }
    request.managementPrincipal = principal;
  }
}
