import type { OrderStory, PhiAccessView } from '../ops-queries.service';
import { fields } from './output';

/** One line per access, oldest first. */
export function phiLogLines(rows: PhiAccessView[]): string[] {
  if (rows.length === 0) return ['No PHI access recorded.'];
  return rows.map((row) => {
    const key = row.actor
      ? `operator ${row.actor}`
      : row.api_key
        ? `key ${row.api_key.id}${row.api_key.prefix ? ` (${row.api_key.prefix}…${row.api_key.label ? `, "${row.api_key.label}"` : ''})` : ''}`
        : 'no key';
    return `${row.at}  ${row.action.padEnd(5)}  ${row.resource} ${row.resource_id}  team ${row.team_id ?? 'none'}  ${key}`;
  });
}

/** The story top-down: the order, its workflow, its status events, then each outbox event with its deliveries and their attempts. */
export function orderStoryLines(story: OrderStory): string[] {
  const { order } = story;
  const lines = fields([
    ['order', order.id],
    ['team', `${order.team_id} (${order.environment})`],
    ['user', order.user_id],
    ['status', `${order.status} / ${order.low_level_status}`],
    ['method', `${order.collection_method} (${order.flow}, ${order.origin})`],
    ['sample id', order.sample_id],
    ['created', order.created_at],
    ['updated', order.updated_at],
    ['workflow', `${story.workflow.id} started ${order.workflow_started_at ?? 'not yet'}`],
    ['temporal ui', story.workflow.ui_url],
  ]);
  lines.push('', `status events (${story.events.length}):`);
  for (const event of story.events)
    lines.push(`  ${String(event.seq).padStart(3)}  ${event.created_at}  ${event.status}${event.status_detail ? `  (${event.status_detail})` : ''}`);
  lines.push('', `outbox events (${story.outbox.length}):`);
  for (const event of story.outbox) {
    lines.push(`  ${event.created_at}  ${event.event_type}  ${event.id}  ${event.relayed_at ? `relayed ${event.relayed_at}` : 'not relayed yet'}`);
    if (event.deliveries.length === 0) lines.push('    no deliveries (no endpoint or destination took it)');
    for (const delivery of event.deliveries) {
      const target = delivery.target === 'webhook' ? `webhook endpoint ${delivery.endpoint_id}` : `rabbitmq pipeline ${delivery.pipeline_id}`;
      const due = delivery.next_attempt_at ? `, next attempt ${delivery.next_attempt_at}` : '';
      const reason = delivery.status_reason ? ` (${delivery.status_reason})` : '';
      lines.push(`    delivery ${delivery.id} to ${target}: ${delivery.status}${reason}, ${delivery.attempt_count} attempt(s)${due}`);
      for (const attempt of delivery.attempts) {
        const outcome = attempt.response_status_code !== null ? `HTTP ${attempt.response_status_code}` : (attempt.error ?? '');
        lines.push(`      #${attempt.attempt_number} ${attempt.created_at} ${attempt.trigger} ${attempt.status} ${outcome}`.trimEnd());
      }
    }
  }
  return lines;
}
