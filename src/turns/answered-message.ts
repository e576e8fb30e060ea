import type { Message, PrismaClient, Turn } from '../db/generated/client.js';
import { NotFoundError, ValidationError } from '../errors.js';

/**
 * The user message a top-level turn answered: the session's last one stored when the turn started
 * (its own row, or for a regenerated turn the row it answered again), since a session runs one
 * top-level turn at a time. An ephemeral turn stored none (VALIDATION_FAILED).
 */
export async function answeredMessage(prisma: PrismaClient, turn: Pick<Turn, 'sessionId' | 'startedAt' | 'ephemeral'>): Promise<Message & { content: string }> {
  if (turn.ephemeral)
    throw new ValidationError('turnId: an ephemeral turn stored no message to answer again', [
      { path: ['turnId'], message: 'is an ephemeral turn: it stored no message to answer again' },
    ]);
  const asked = await prisma.message.findFirst({
    where: { sessionId: turn.sessionId, type: 'user', createdAt: { lte: turn.startedAt } },
    orderBy: { seq: 'desc' },
  });
  if (!asked?.content) throw new NotFoundError('Message');
  return { ...asked, content: asked.content };
}
