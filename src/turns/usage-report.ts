import type { AgentContext } from '../auth/agent-context.js';
import type { SqlClient } from '../db/sql-client.js';
import { ValidationError } from '../errors.js';

export const USAGE_GROUPS = ['AGENT', 'MODEL', 'DAY'] as const;
export type UsageGroupBy = (typeof USAGE_GROUPS)[number];

/** One group of the caller's model calls: what they cost in tokens, requests and time. */
export interface UsageGroup {
  /** The agent's name, the `provider:model`, or the UTC day (`2026-11-28`). */
  key: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  totalLatencyMs: number;
  avgLatencyMs: number;
}

// Group keys as SQL over llm_calls c joined to its turn t (a call outside a turn has no agent).
const GROUP_KEYS = {
  AGENT: `COALESCE(t.agent, '(none)')`,
  MODEL: `c.provider || ':' || c.model`,
  DAY: `to_char(c.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
} as const satisfies Record<UsageGroupBy, string>;

/**
 * The caller's model calls (llm_calls: every request a turn sent, as the provider billed it)
 * between `since` (inclusive) and `until` (exclusive), grouped; largest token use first.
 */
export async function usageReport(
  sql: SqlClient,
  ctx: Pick<AgentContext, 'tenantId' | 'userId'>,
  input: { groupBy: UsageGroupBy; since?: Date | null; until?: Date | null },
): Promise<UsageGroup[]> {
  const { since, until } = input;
  if (since && until && since >= until) {
    throw new ValidationError('since must be before until', [{ path: ['since'], message: 'must be before until' }]);
  }
  const key = GROUP_KEYS[input.groupBy];
  const rows = await sql.query<{ key: string; requests: number; input: number; output: number; latency: number }>(
    `SELECT ${key} AS key, count(*)::int AS requests, COALESCE(sum(c.input_tokens), 0)::float8 AS input,
            COALESCE(sum(c.output_tokens), 0)::float8 AS output, COALESCE(sum(c.latency_ms), 0)::float8 AS latency
       FROM llm_calls c LEFT JOIN turns t ON t.id = c.turn_id
      WHERE c.tenant_id = $1 AND c.user_id IS NOT DISTINCT FROM $2
        AND c.created_at >= COALESCE($3::timestamptz, '-infinity') AND c.created_at < COALESCE($4::timestamptz, 'infinity')
      GROUP BY 1 ORDER BY sum(c.input_tokens + c.output_tokens) DESC, 1`,
    [ctx.tenantId, ctx.userId, since?.toISOString() ?? null, until?.toISOString() ?? null],
  );
  return rows.map((row) => ({
    key: row.key,
    requests: row.requests,
    inputTokens: row.input,
    outputTokens: row.output,
    totalTokens: row.input + row.output,
    totalLatencyMs: row.latency,
    avgLatencyMs: Math.round(row.latency / row.requests),
  }));
}
