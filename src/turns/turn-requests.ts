import { createHash } from 'node:crypto';
import type { AgentContext } from '../auth/agent-context.js';
import type { Turn } from '../db/generated/client.js';
import type { SqlClient } from '../db/sql-client.js';
import { TURN_COLUMNS } from './turn-columns.js';

/** How long after its turn ended a request named by the client (Idempotency-Key) is still answered from it. */
const EXPLICIT_WINDOW_MS = 24 * 60 * 60 * 1000;
/**
 * How long after its turn ended an undelivered answer is still given to a request just like it:
 * longer than any SDK's default retries take (LangChain's seven attempts span about 90 s).
 */
const RETRY_WINDOW_MS = 10 * 60 * 1000;

/** Names the request that starts a turn, so that its retries find that turn. */
export interface TurnRequestKey {
  key: string;
  /** Named by the client's Idempotency-Key rather than read from the request. */
  explicit: boolean;
}

/**
 * The caller's Idempotency-Key if it sent one; otherwise the request itself (route, session header
 * and body as sent): the SDKs' retries (the openai SDK's, the AI SDK's, LangChain's) send the same
 * body again and no key of their own.
 */
export function turnRequestKey(
  ctx: Pick<AgentContext, 'tenantId' | 'userId'>,
  route: string,
  request: { idempotencyKey: string | undefined; sessionHeader: string | undefined; body: string },
): TurnRequestKey {
  const explicit = request.idempotencyKey !== undefined && request.idempotencyKey !== '';
  const named = explicit ? ['key', request.idempotencyKey] : ['body', request.sessionHeader ?? null, request.body];
  const key = createHash('sha256')
    .update(JSON.stringify([ctx.tenantId, ctx.userId, route, ...named]))
    .digest('base64url');
  return { key, explicit };
}

/** The turn an earlier attempt of this request started, while a retry may still join or replay it. */
export async function retriedTurn(sql: SqlClient, { key }: TurnRequestKey, now = Date.now()): Promise<Turn | null> {
  const [row] = await sql.query<Turn & { requestExplicit: boolean }>(
    `SELECT ${TURN_COLUMNS}, r."explicit" AS "requestExplicit" FROM "turn_requests" r JOIN "turns" ON "turns"."id" = r."turn_id" WHERE r."key" = $1`,
    [key],
  );
  if (!row) return null;
  const { requestExplicit, ...turn } = row;
  const window = requestExplicit ? EXPLICIT_WINDOW_MS : RETRY_WINDOW_MS;
  return turn.finishedAt === null || new Date(turn.finishedAt).getTime() > now - window ? turn : null;
}

/** Records which turn answers a request (a stale record under the same key is replaced). */
export async function rememberRequest(sql: SqlClient, { key, explicit }: TurnRequestKey, turnId: string): Promise<void> {
  await sql.query(
    `INSERT INTO "turn_requests" ("key", "turn_id", "explicit") VALUES ($1, $2::uuid, $3)
     ON CONFLICT ("key") DO UPDATE SET "turn_id" = EXCLUDED."turn_id", "explicit" = EXCLUDED."explicit", "created_at" = now()`,
    [key, turnId, explicit],
  );
}

/** Forgets which turn answers a request once a retry of it got the answer: the same request sent later is a new one. */
export async function forgetRequest(sql: SqlClient, { key }: TurnRequestKey, turnId: string): Promise<void> {
  await sql.query(`DELETE FROM "turn_requests" WHERE "key" = $1 AND "turn_id" = $2::uuid`, [key, turnId]);
}

/** Forgets the requests no retry can be answered from any more (their turns ended before the window). */
export async function forgetExpiredRequests(sql: SqlClient, now = Date.now()): Promise<void> {
  await sql.query(
    `DELETE FROM "turn_requests" r USING "turns" t
     WHERE t."id" = r."turn_id" AND t."finished_at" < CASE WHEN r."explicit" THEN $1::timestamptz ELSE $2::timestamptz END`,
    [new Date(now - EXPLICIT_WINDOW_MS), new Date(now - RETRY_WINDOW_MS)],
  );
}
