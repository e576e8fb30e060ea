import type { Message, Prisma, PrismaClient } from '../db/generated/client.js';
import type { ChatMessage } from '../llm/chat-model.js';

type Tx = Prisma.TransactionClient | PrismaClient;

export type NewMessage = Omit<Prisma.MessageCreateManyInput, 'sessionId' | 'seq' | 'tenantId' | 'userId'>;

/**
 * Appends messages to a session with the next sequence numbers. The (session_id, seq) unique
 * index makes a concurrent append fail rather than interleave.
 */
export async function appendMessages(
  tx: Tx,
  session: { id: string; tenantId: string; userId: string | null },
  rows: NewMessage[],
): Promise<Message[]> {
  if (rows.length === 0) return [];
  const last = await tx.message.aggregate({ where: { sessionId: session.id }, _max: { seq: true } });
  const start = (last._max.seq ?? 0) + 1;
  return tx.message.createManyAndReturn({
    data: rows.map((row, i) => ({
      ...row,
      sessionId: session.id,
      seq: start + i,
      tenantId: session.tenantId,
      userId: session.userId,
    })),
  });
}

/** The REM LOOKUP key of a stored session message, followed by truncation hints: `session-<id>-msg-<seq>`. */
export function messageKey(sessionId: string, seq: number): string {
  return `session-${sessionId.toLowerCase()}-msg-${seq}`;
}

export interface HistoryOptions {
  /** Rough token budget (4 characters a token); the newest messages are kept. */
  budgetTokens: number;
  /** Only messages before this position (the current turn's user message). */
  beforeSeq?: number;
  /**
   * Assistant messages longer than this are cut, with a hint to fetch the full text by REM LOOKUP
   * (REM's session compression). Leave it out for agents that cannot search memory.
   */
  compressAboveChars?: number;
}

/**
 * The conversation so far as model messages: user and assistant text only (tool rows stay in the
 * audit trail), newest kept first when the budget runs out, long answers compressed on request.
 */
export async function loadHistory(prisma: PrismaClient, sessionId: string, options: HistoryOptions): Promise<ChatMessage[]> {
  const rows = await prisma.message.findMany({
    where: {
      sessionId,
      type: { in: ['user', 'assistant'] },
      content: { not: null },
      ...(options.beforeSeq ? { seq: { lt: options.beforeSeq } } : {}),
    },
    orderBy: { seq: 'desc' },
    take: 500,
    select: { type: true, content: true, seq: true },
  });
  const history: ChatMessage[] = [];
  let budget = options.budgetTokens * 4;
  const limit = options.compressAboveChars;
  for (const row of rows) {
    let content = row.content!;
    if (row.type === 'assistant' && limit && content.length > limit) {
      content = `${content.slice(0, limit)}… [truncated; full message: REM LOOKUP "${messageKey(sessionId, row.seq)}"]`;
    }
    budget -= content.length;
    if (budget < 0) break;
    history.push({ role: row.type === 'user' ? 'user' : 'assistant', content });
  }
  return history.reverse();
}
