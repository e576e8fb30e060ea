import { createHash } from 'node:crypto';
import { z } from 'zod';
import { Prisma } from '../db/generated/client.js';
import type { SqlClient } from '../db/sql-client.js';
import type { ChatMessage } from '../llm/chat-model.js';
import { wireMessageText } from '../llm/openai-wire.js';
import { contextMessage, contextRow, type ContextRow } from '../sessions/messages.js';
import { CONTEXT_ROWS } from './stored-context.js';

/**
 * Where a turn's history came from (history.ts): the context rows of session `sessionId` with seq
 * `from`..`to`, all `count` of them, oldest first, at `at` in the messages it is sent among; answers
 * longer than `compressAbove` characters compressed. `crumbs`: the positions among them sent as their
 * compaction breadcrumb (a message's metadata may change after the turn, its content never does).
 */
export const storedHistorySchema = z.object({
  sessionId: z.string(),
  at: z.number().int().min(0),
  count: z.number().int().min(1),
  from: z.number().int(),
  to: z.number().int(),
  compressAbove: z.number().int().min(0),
  crumbs: z.array(z.number().int()),
});

export type StoredHistory = z.output<typeof storedHistorySchema>;

/**
 * What llm_calls.request_history holds: the history was cut out of the stored body at character
 * `at` (with the comma after it, so the rest is still a request body) and is the context rows
 * `from`..`to` of the call's session; `inline` holds, by position, the messages that went out as
 * breadcrumbs. `chars` and `hash` are the cut text's, checked when it is rebuilt.
 */
const requestHistorySchema = storedHistorySchema
  .omit({ sessionId: true, crumbs: true })
  .extend({ inline: z.record(z.string(), z.string()), chars: z.number().int(), hash: z.string() });

type RequestHistory = z.output<typeof requestHistorySchema>;

/** A model call's body as llm_calls stores it: without the history `history` names, when the body holds it as sent. */
export function storedRequest(
  body: string,
  messages: readonly ChatMessage[],
  history: StoredHistory | undefined,
  sessionId: string,
): { request: string; requestHistory: RequestHistory | null } {
  const whole = { request: body, requestHistory: null };
  if (!history || history.sessionId !== sessionId) return whole;
  const texts = messages.slice(history.at, history.at + history.count).map(wireMessageText);
  if (texts.length !== history.count) return whole;
  // Followed by the turn's own message at least: cut with its comma, the rest stays a JSON body.
  const cut = `${texts.join(',')},`;
  const at = body.indexOf(cut);
  if (at < 0) return whole;
  const { sessionId: _, crumbs, ...rows } = history;
  return {
    request: body.slice(0, at) + body.slice(at + cut.length),
    requestHistory: { ...rows, at, inline: Object.fromEntries(crumbs.map((i) => [i, texts[i]!])), chars: cut.length, hash: hashOf(cut) },
  };
}

/** The request body of a stored model call exactly as the provider received it (its history rebuilt from the session's messages). */
export async function requestBody(sql: SqlClient, call: { request: string | null; requestHistory: unknown; sessionId: string | null }): Promise<string | null> {
  if (call.request === null || call.requestHistory === null || call.sessionId === null) return call.request;
  const ref = requestHistorySchema.parse(call.requestHistory);
  const statement = Prisma.sql`SELECT type::text AS type, content, seq FROM messages
    WHERE session_id = ${call.sessionId}::uuid AND seq BETWEEN ${ref.from} AND ${ref.to} AND ${CONTEXT_ROWS} ORDER BY seq`;
  const rows = await sql.query<{ type: ContextRow['type']; content: string; seq: number }>(statement.text, statement.values);
  const texts = rows.map(
    (row, i) => ref.inline[i] ?? wireMessageText(contextMessage(call.sessionId!, contextRow({ ...row, crumb: false }), ref.compressAbove)),
  );
  const cut = `${texts.join(',')},`;
  if (rows.length !== ref.count || cut.length !== ref.chars || hashOf(cut) !== ref.hash) {
    throw new Error(`the history of a stored model request (session ${call.sessionId}, messages ${ref.from}-${ref.to}) no longer matches the session`);
  }
  return call.request.slice(0, ref.at) + cut + call.request.slice(ref.at);
}

function hashOf(text: string): string {
  return createHash('sha256').update(text).digest('base64url').slice(0, 22);
}
