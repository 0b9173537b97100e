import { Inject, Injectable, Optional } from '@nestjs/common';
import { type Client, WorkflowIdConflictPolicy, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { CLIENT_USER_ID_TAKEN, SEARCH_ATTRIBUTES, undoUserDeletion, userDeletionWorkflowId } from '../../workflows/contract';
import type { TeamPrincipal } from '../auth/principal';
import { PhiCipher } from '../common/crypto';
import { badRequest, notFound, validationError } from '../common/errors';
import { LABFLOW_CONFIG, type LabflowConfig } from '../config/config';
import { TEMPORAL_CLIENT } from '../core.tokens';
import { CONNECTED_SOURCES, type ConnectedSources, type ConnectedSourceView } from './connected-sources';
import type { CreateUserDto, PatchUserDto } from './users.dto';
import { type FallbackBirthDate, UserEntity } from './user.entity';
import { type UserRead, UserReadModel } from './user-read-model';
import { isUniqueViolation, UsersRepository } from './users.repository';
import { SdkSessionsRepository } from './sdk-sessions.repository';

/** The Junction user object (ClientFacingUser). */
export interface UserView {
  user_id: string;
  team_id: string;
  client_user_id: string;
  created_on: string;
  connected_sources: ConnectedSourceView[];
  fallback_time_zone: UserEntity['fallbackTimeZone'];
  fallback_birth_date: FallbackBirthDate | null;
  ingestion_start: string | null;
  ingestion_end: string | null;
}

/** Fields a team sets by hand carry this source slug, as Junction does. */
const MANUAL_SOURCE = 'manual';

@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly reads: UserReadModel,
    private readonly cipher: PhiCipher,
    @Inject(TEMPORAL_CLIENT) private readonly temporal: Client,
    @Inject(LABFLOW_CONFIG) private readonly config: LabflowConfig,
    private readonly sdkSessions: SdkSessionsRepository,
    @Optional() @Inject(CONNECTED_SOURCES) private readonly connectedSources?: ConnectedSources,
  ) {}

  async create(team: TeamPrincipal, body: CreateUserDto): Promise<UserView> {
    checkIngestionBounds(body.ingestion_start ?? null, body.ingestion_end ?? null);
    const now = new Date().toISOString();
    const user = Object.assign(new UserEntity(), {
      id: randomUUID(),
      teamId: team.teamId,
      environment: team.environment,
      clientUserId: body.client_user_id,
      fallbackTimeZone: body.fallback_time_zone ? { id: body.fallback_time_zone, source_slug: MANUAL_SOURCE, updated_at: now } : null,
      fallbackBirthDateEnc: body.fallback_birth_date
        ? this.sealBirthDate({ value: body.fallback_birth_date, source_slug: MANUAL_SOURCE, updated_at: now })
        : null,
      plaintextFallbackBirthDate: null,
      ingestionStart: body.ingestion_start ?? null,
      ingestionEnd: body.ingestion_end ?? null,
      deletionRequestedAt: null,
    });
    try {
      return this.toView(await this.users.insert(user), []);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      throw await this.duplicateClientUserId(team, body.client_user_id);
    }
  }

  async get(team: TeamPrincipal, userId: string): Promise<UserView> {
    const read = await this.reads.readLive(team, userId);
    if (!read) throw notFound('User');
    return this.viewOf(read);
  }

  async resolve(team: TeamPrincipal, clientUserId: string): Promise<UserView> {
    const read = await this.reads.readLiveByClientUserId(team, clientUserId);
    if (!read) throw notFound('User');
    return this.viewOf(read);
  }

  /**
   * `GET /v2/team/users/search?query_id=`: the team's live users whose user id or client_user_id
   * is `queryId` (none when it names no one).
   */
  async search(team: TeamPrincipal, queryId: string): Promise<UserView[]> {
    const byId = z.uuid().safeParse(queryId).success ? await this.reads.readLive(team, queryId) : null;
    const byClientId = await this.reads.readLiveByClientUserId(team, queryId);
    const found = [byId, byClientId].filter((read): read is NonNullable<typeof read> => read !== null);
    return found.filter((read, index) => found.findIndex((other) => other.user.id === read.user.id) === index).map((read) => this.viewOf(read));
  }

  async list(team: TeamPrincipal, offset: number, limit: number) {
    const { users, total } = await this.reads.readLivePage(team, offset, limit);
    return { users: users.map((read) => this.viewOf(read)), total, offset, limit };
  }

  async patch(team: TeamPrincipal, userId: string, body: PatchUserDto): Promise<void> {
    const user = await this.requireLive(team, userId);
    const now = new Date().toISOString();
    if (body.fallback_time_zone !== undefined) {
      user.fallbackTimeZone = { id: body.fallback_time_zone, source_slug: MANUAL_SOURCE, updated_at: now };
    }
    if (body.fallback_birth_date !== undefined) {
      user.fallbackBirthDateEnc = this.sealBirthDate({ value: body.fallback_birth_date, source_slug: MANUAL_SOURCE, updated_at: now });
    } else if (user.plaintextFallbackBirthDate !== null) {
      // One stored in plaintext before birth dates were sealed: sealed now that the row is written anyway.
      user.fallbackBirthDateEnc = this.sealBirthDate(user.plaintextFallbackBirthDate);
    }
    user.plaintextFallbackBirthDate = null;
    if (body.ingestion_start !== undefined) user.ingestionStart = body.ingestion_start;
    if (body.ingestion_end !== undefined) user.ingestionEnd = body.ingestion_end;
    checkIngestionBounds(user.ingestionStart, user.ingestionEnd);
    if (body.client_user_id !== undefined) user.clientUserId = body.client_user_id;
    try {
      await this.users.save(user);
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      throw await this.duplicateClientUserId(team, user.clientUserId);
    }
  }

  /**
   * Deletion: the user becomes invisible at once and `user-deletion:<user_id>` holds the grace
   * period. The mark and the workflow start commit together: if Temporal cannot take the
   * workflow, the mark is rolled back and the user stays as it was.
   */
  async requestDeletion(team: TeamPrincipal, userId: string): Promise<{ success: true }> {
    const user = await this.requireLive(team, userId);
    await this.users.transaction(async (manager) => {
      if (!(await this.users.markPendingDeletion(user.id, new Date(), manager))) throw notFound('User');
      // Signed out of every mobile SDK at once, and for good: undoing the deletion does not sign it back in.
      await this.sdkSessions.revokeAll(user.id, manager);
      await this.temporal.workflow.start('userDeletionWorkflow', {
        workflowId: userDeletionWorkflowId(user.id),
        taskQueue: this.config.temporal.taskQueue,
        args: [{ userId: user.id, teamId: team.teamId, grace: this.config.userDeletionGrace }],
        // A retried DELETE after a lost response joins the deletion already under way.
        workflowIdConflictPolicy: WorkflowIdConflictPolicy.USE_EXISTING,
        typedSearchAttributes: [{ key: SEARCH_ATTRIBUTES.teamId, value: team.teamId }],
      });
    });
    return { success: true };
  }

  async undoDeletion(team: TeamPrincipal, by: { user_id?: string; client_user_id?: string }): Promise<{ success: true }> {
    const user = by.user_id
      ? await this.users.findPendingDeletion(team, by.user_id)
      : await this.users.findPendingDeletionByClientUserId(team, by.client_user_id ?? '');
    if (!user) throw notFound('User pending deletion');
    if (await this.users.findLiveByClientUserId(team, user.clientUserId)) throw clientUserIdTaken();
    try {
      await this.temporal.workflow.getHandle(userDeletionWorkflowId(user.id)).executeUpdate(undoUserDeletion);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) throw notFound('User pending deletion');
      if (error instanceof WorkflowUpdateFailedError) {
        const cause = error.cause;
        if (cause instanceof ApplicationFailure && cause.type === CLIENT_USER_ID_TAKEN) throw clientUserIdTaken();
        throw badRequest(cause?.message ?? 'User deletion can no longer be undone.');
      }
      throw error;
    }
    return { success: true };
  }

  /** Activity side of the undo: clears the mark unless a new user took the client_user_id. */
  async restoreFromDeletion(userId: string): Promise<'restored' | 'taken' | 'gone'> {
    return this.users.clearPendingDeletion(userId);
  }

  /**
   * Activity side of the deletion: erases the user and all it owns, if still pending; then real
   * providers the user had connected are asked to end labflow's access (read first: the
   * connections and their tokens go with the user). A user restored meanwhile is not erased, and
   * its grants are left alone.
   */
  async erase(userId: string): Promise<void> {
    const grants = (await this.connectedSources?.grantsOf(userId)) ?? [];
    const erased = await this.users.erasePendingDeletion(userId);
    if (erased && grants.length > 0) await this.connectedSources?.revokeGrants(grants);
  }

  private viewOf({ user, connections }: UserRead): UserView {
    const sources = this.connectedSources;
    return this.toView(user, sources ? connections.map((connection) => sources.viewOf(connection)) : []);
  }

  private toView(user: UserEntity, connectedSources: ConnectedSourceView[]): UserView {
    const birthDate =
      user.fallbackBirthDateEnc !== null ? this.cipher.decryptJson<FallbackBirthDate>(user.fallbackBirthDateEnc) : user.plaintextFallbackBirthDate;
    return toView(user, birthDate, connectedSources);
  }

  private sealBirthDate(birthDate: FallbackBirthDate): string {
    return this.cipher.encryptJson(birthDate);
  }

  private async requireLive(team: TeamPrincipal, userId: string): Promise<UserEntity> {
    const user = await this.users.findLive(team, userId);
    if (!user) throw notFound('User');
    return user;
  }

  private async duplicateClientUserId(team: TeamPrincipal, clientUserId: string) {
    const existing = await this.users.findLiveByClientUserId(team, clientUserId);
    return badRequest({
      error_type: 'INVALID_REQUEST',
      error_message: 'Client user id already exists.',
      user_id: existing?.id ?? null,
      created_on: existing?.createdOn.toISOString() ?? null,
    });
  }
}

function clientUserIdTaken() {
  return badRequest('Deletion cannot be undone: a new user has taken this client_user_id.');
}

function checkIngestionBounds(start: string | null, end: string | null): void {
  if (start && end && start > end) {
    throw validationError(['body', 'ingestion_start'], 'ingestion_start must not be after ingestion_end.', start);
  }
}

/** The user object of a user whose birth date is already opened (bench/reads' floor shapes its answers with it too). */
export function toView(user: UserEntity, fallbackBirthDate: FallbackBirthDate | null, connectedSources: ConnectedSourceView[]): UserView {
  return {
    user_id: user.id,
    team_id: user.teamId,
    client_user_id: user.clientUserId,
    created_on: user.createdOn.toISOString(),
    connected_sources: connectedSources,
    fallback_time_zone: user.fallbackTimeZone,
    fallback_birth_date: fallbackBirthDate,
    ingestion_start: user.ingestionStart,
    ingestion_end: user.ingestionEnd,
  };
}
