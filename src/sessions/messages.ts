import { Prisma, type Message, type Session } from '../db/generated/client.js';
import type { ChatMessage } from '../llm/chat-model.js';
import { insertMessagesCte, messageRow } from './rows.js';

/**
 * Appends messages that belong to no turn to a session with the next sequence numbers, in one
 * statement (on a client or in a transaction). The (session_id, seq) unique index makes a concurrent append fail rather than interleave.
 */
export async function appendMessages(
  prisma: Prisma.TransactionClient,
  session: Pick<Session, 'id' | 'tenantId' | 'userId'>,
  rows: Pick<Message, 'type' | 'content' | 'agentName' | 'metadata' | 'isEval'>[],
): Promise<Message[]> {
  const now = new Date();
  const built = rows.map((row) => messageRow({ session, turnId: null, isEval: row.isEval, now }, row));
  const stored = await prisma.$queryRaw<{ id: string; seq: number }[]>(
    Prisma.sql`WITH ${insertMessagesCte('appended', session.id, built, Prisma.sql`TRUE`)} SELECT id::text AS id, seq FROM appended`,
  );
  const seqs = new Map(stored.map((row) => [row.id, row.seq]));
  return built.map((row) => ({ ...row, seq: seqs.get(row.id)! }));
}

/** The REM LOOKUP key of a stored session message, followed by truncation hints: `session-<id>-msg-<seq>`. */
export function messageKey(sessionId: string, seq: number): string {
  return `session-${sessionId.toLowerCase()}-msg-${seq}`;
}

/**
 * How each stored message type enters a model's context (p8's table): user and assistant as they
 * are, system rows (session context) and memory rows (compaction summaries) as system messages,
 * observations as context the user side gives (not user speech). Tool rows stay in the audit
 * trail and think rows are never loaded.
 */
const CONTEXT_ROLE = { user: 'user', assistant: 'assistant', system: 'system', memory: 'system', observation: 'user' } as const;

type ContextType = keyof typeof CONTEXT_ROLE;

export interface ContextRow {
  type: ContextType;
  role: (typeof CONTEXT_ROLE)[ContextType];
  content: string;
  seq: number;
  /** The content is the answer's compaction breadcrumb (dreaming/compact.ts), not the stored answer. */
  crumb: boolean;
}

/** The stored message types a model's context reads (see CONTEXT_ROLE). */
export const CONTEXT_TYPES = Object.keys(CONTEXT_ROLE) as ContextType[];

/** A stored message of a context type (its content not null) as the model sees it. */
export function contextRow(row: { type: ContextType; content: string; seq: number; crumb: boolean }): ContextRow {
  return {
    type: row.type,
    role: CONTEXT_ROLE[row.type],
    content: row.type === 'observation' ? `[Observation] ${row.content}` : row.content,
    seq: row.seq,
    crumb: row.crumb,
  };
}

/** A context row as the model is sent it: an answer longer than `compressAbove` characters (0: never) compressed (compressMessage). */
export function contextMessage(sessionId: string, row: ContextRow, compressAbove: number): ChatMessage {
  const compressed = row.type === 'assistant' && compressAbove > 0 && row.content.length > compressAbove;
  return { role: row.role, content: compressed ? compressMessage(sessionId, row.seq, row.content, compressAbove) : row.content };
}

/**
 * REM's session compression (REMLight): the head and tail of a long message around a breadcrumb
 * that names the REM LOOKUP key of the full text. The stored message is never changed.
 */
function compressMessage(sessionId: string, seq: number, content: string, keepChars: number): string {
  const head = content.slice(0, Math.ceil(keepChars / 2)).trimEnd();
  const tail = content.slice(content.length - Math.floor(keepChars / 2)).trimStart();
  return `${head}\n\n... [Message truncated - REM LOOKUP ${messageKey(sessionId, seq)} to recover full content] ...\n\n${tail}`;
}
