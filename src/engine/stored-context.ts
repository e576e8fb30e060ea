import type { AgentContext } from '../auth/agent-context.js';
import { Prisma } from '../db/generated/client.js';
import type { SqlClient } from '../db/sql-client.js';
import { CONTEXT_TYPES, contextRow, type ContextRow } from '../sessions/messages.js';
import { profileKey } from '../sessions/user-profile.js';

const RECENT_MOMENTS = 5;

/**
 * The context rows' condition, written as the partial index messages_context_in_session_custom
 * states it (a parameter would hide from the planner that the index holds exactly these rows).
 */
export const CONTEXT_ROWS = Prisma.raw(`content IS NOT NULL AND type IN (${CONTEXT_TYPES.map((type) => `'${type}'`).join(', ')})`);

/** What a turn's context is built from (history.ts): the user's memory and the session's conversation. */
export interface StoredContext {
  profile: { name: string | null; summary: string | null; content: string | null } | null;
  /** Newest first. */
  moments: { key: string; name: string | null; summary: string | null; content: string | null; startsAt: string | null; endsAt: string | null }[];
  /** Newest first. */
  conversation: ContextRow[];
}

/** What the columns of storedContextColumns hold, as the driver returns them. */
export interface StoredContextRow {
  profile: StoredContext['profile'];
  moments: StoredContext['moments'];
  conversation: { type: ContextRow['type']; content: string; seq: number; crumb: boolean }[];
}

/**
 * What a turn's context reads from the database, as three columns of one statement (a turn's start
 * is the hot path: the statement that stores it reads them too): the user's profile entity and the
 * session's recent moments (when `withMemory`), and the conversation so far, newest first (when
 * `withHistory`; before `beforeSeq`, or all the statement's snapshot holds). An answer compaction
 * has replaced (dreaming/compact.ts) reads as its breadcrumb.
 */
export function storedContextColumns(
  ctx: AgentContext,
  sessionId: string,
  want: { withMemory: boolean; withHistory: boolean; beforeSeq?: number },
): Prisma.Sql {
  const key = ctx.userId ? profileKey(ctx.userId) : null;
  // An anonymous caller's NULL matches no owner, only shared rows (visibleTo).
  return Prisma.sql`
       (SELECT json_build_object('name', e.name, 'summary', e.summary, 'content', e.content) FROM entities e
         WHERE ${want.withMemory} AND e.tenant_id = ${ctx.tenantId} AND e.user_id = ${ctx.userId} AND e.key = ${key} LIMIT 1) AS profile,
       (SELECT COALESCE(json_agg(m ORDER BY m.created_at DESC, m.id DESC), '[]') FROM (
          SELECT key, name, summary, content, starts_at AS "startsAt", ends_at AS "endsAt", created_at, id FROM moments
          WHERE ${want.withMemory} AND session_id = ${sessionId}::uuid AND tenant_id = ${ctx.tenantId} AND (user_id = ${ctx.userId} OR user_id IS NULL)
          ORDER BY created_at DESC, id DESC LIMIT ${RECENT_MOMENTS}) m) AS moments,
       (SELECT COALESCE(json_agg(h ORDER BY h.seq DESC), '[]') FROM (
          SELECT type::text AS type, COALESCE(metadata #>> '{compaction,breadcrumb}', content) AS content, seq,
                 metadata #> '{compaction,breadcrumb}' IS NOT NULL AS crumb FROM messages
          WHERE ${want.withHistory} AND session_id = ${sessionId}::uuid AND ${CONTEXT_ROWS}
            AND seq < COALESCE(${want.beforeSeq ?? null}::int, 2147483647)
          ORDER BY seq DESC LIMIT 500) h) AS conversation`;
}

export function storedContextOf(row: StoredContextRow): StoredContext {
  return { profile: row.profile, moments: row.moments, conversation: row.conversation.map(contextRow) };
}

/** The stored context in a statement of its own (a turn whose start did not read it, a child's history). */
export async function readStored(
  sql: SqlClient,
  ctx: AgentContext,
  sessionId: string,
  want: { withMemory: boolean; withHistory: boolean; beforeSeq?: number },
): Promise<StoredContext> {
  const statement = Prisma.sql`SELECT ${storedContextColumns(ctx, sessionId, want)}`;
  const [row] = await sql.query<StoredContextRow>(statement.text, statement.values);
  return storedContextOf(row!);
}
