import { WorkflowUpdateFailedError } from '@temporalio/client';
import { randomUUID } from 'node:crypto';
import { temporal } from '@temporalio/proto';
import { call, createTenant, startStack, type Tenant, type TestStack } from '../helpers/stack';
import { SEARCH_ATTRIBUTES, undoUserDeletion, userDeletionState, userDeletionWorkflowId } from '../../workflows/contract';

const EventType = temporal.api.enums.v1.EventType;

/** The history as a list of readable event names, e.g. TIMER_STARTED. */
async function eventNames(stack: TestStack, workflowId: string): Promise<string[]> {
  const history = await stack.temporal.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).map((event) => EventType[event.eventType ?? 0].replace(/^EVENT_TYPE_/, ''));
}

describe('user-deletion workflow on the real dev server', () => {
  let stack: TestStack;
  let tenant: Tenant;

  const createUser = async (clientUserId = `wf-${randomUUID()}`) => {
    const response = await call(stack.apiUrl, 'POST', '/v2/user', { key: tenant.apiKey, body: { client_user_id: clientUserId } });
    return response.body as { user_id: string; client_user_id: string };
  };

  beforeAll(async () => {
    // Short enough to wait out, long enough that a query or undo sent right after the DELETE
    // still finds the grace period on a loaded machine (2 s left little room).
    stack = await startStack({ env: { USER_DELETION_GRACE: '5s' } });
    tenant = await createTenant(stack.db);
  });
  afterAll(() => stack.close());

  it('waits out the grace period as a durable timer, then erases the user', async () => {
    const user = await createUser();
    await call(stack.apiUrl, 'DELETE', `/v2/user/${user.user_id}`, { key: tenant.apiKey });
    const handle = stack.temporal.workflow.getHandle(userDeletionWorkflowId(user.user_id));

    expect(await handle.query(userDeletionState)).toEqual({ phase: 'grace_period' });
    expect(await handle.result()).toBe('erased');

    const names = await eventNames(stack, handle.workflowId);
    expect(names[0]).toBe('WORKFLOW_EXECUTION_STARTED');
    expect(names).toEqual(expect.arrayContaining(['TIMER_STARTED', 'TIMER_FIRED', 'ACTIVITY_TASK_COMPLETED']));
    expect(names.indexOf('TIMER_FIRED')).toBeLessThan(names.indexOf('ACTIVITY_TASK_SCHEDULED'));
    expect(names.at(-1)).toBe('WORKFLOW_EXECUTION_COMPLETED');

    const description = await handle.describe();
    expect(description.typedSearchAttributes.get(SEARCH_ATTRIBUTES.teamId)).toBe(tenant.teamId);
  });

  it('records an undo as an accepted update that cancels the timer and restores the user', async () => {
    const user = await createUser();
    await call(stack.apiUrl, 'DELETE', `/v2/user/${user.user_id}`, { key: tenant.apiKey });
    const handle = stack.temporal.workflow.getHandle(userDeletionWorkflowId(user.user_id));
    await handle.executeUpdate(undoUserDeletion);
    expect(await handle.result()).toBe('restored');

    const names = await eventNames(stack, handle.workflowId);
    expect(names).toEqual(expect.arrayContaining(['WORKFLOW_EXECUTION_UPDATE_ACCEPTED', 'WORKFLOW_EXECUTION_UPDATE_COMPLETED', 'TIMER_CANCELED']));
    expect(names).not.toContain('TIMER_FIRED');
    const rows = await stack.db.query('SELECT deletion_requested_at FROM users WHERE id = $1', [user.user_id]);
    expect(rows).toEqual([{ deletion_requested_at: null }]);
  });

  it('refuses an undo once the user is erased', async () => {
    const user = await createUser();
    await call(stack.apiUrl, 'DELETE', `/v2/user/${user.user_id}`, { key: tenant.apiKey });
    const handle = stack.temporal.workflow.getHandle(userDeletionWorkflowId(user.user_id));
    await handle.result();
    // A completed workflow takes no update at all.
    await expect(handle.executeUpdate(undoUserDeletion)).rejects.toThrow();
    expect(await stack.db.query('SELECT id FROM users WHERE id = $1', [user.user_id])).toEqual([]);
  });

  it('fails the undo update when the client_user_id was taken, and still erases at the end', async () => {
    const user = await createUser();
    await call(stack.apiUrl, 'DELETE', `/v2/user/${user.user_id}`, { key: tenant.apiKey });
    await createUser(user.client_user_id);
    const handle = stack.temporal.workflow.getHandle(userDeletionWorkflowId(user.user_id));

    const failure = await handle.executeUpdate(undoUserDeletion).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((failure as WorkflowUpdateFailedError).cause?.message).toMatch(/taken/);
    expect(await handle.result()).toBe('erased');
  });
});
