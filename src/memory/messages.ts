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

/**
 * The conversation so far as model messages: user and assistant text only (tool rows stay in the
 * audit trail), newest kept first when the rough token budget (4 characters a token) runs out.
 */
export async function loadHistory(prisma: PrismaClient, sessionId: string, budgetTokens: number, beforeSeq?: number): Promise<ChatMessage[]> {
  const rows = await prisma.message.findMany({
    where: { sessionId, type: { in: ['user', 'assistant'] }, content: { not: null }, ...(beforeSeq ? { seq: { lt: beforeSeq } } : {}) },
    orderBy: { seq: 'desc' },
    take: 500,
    select: { type: true, content: true },
  });
  const history: ChatMessage[] = [];
  let budget = budgetTokens * 4;
  for (const row of rows) {
    budget -= row.content!.length;
    if (budget < 0) break;
    history.push({ role: row.type === 'user' ? 'user' : 'assistant', content: row.content! });
  }
  return history.reverse();
}
