import type { AgentContext } from '../auth/agent-context.js';
import { ownedBy } from '../auth/scope.js';
import type { Prisma, PrismaClient } from '../db/generated/client.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { storable } from '../events/storable.js';

/**
 * Notes about the latest answer of a session (REM's register_metadata, made outside a turn):
 * merged into that assistant message's `metadata.notes`, where a turn keeps the notes its agent
 * registered. The session must be the caller's own.
 */
export async function noteLatestAnswer(prisma: PrismaClient, ctx: AgentContext, sessionId: string, notes: Record<string, unknown>) {
  const session = await prisma.session.findFirst({ where: { id: sessionId, ...ownedBy(ctx) }, select: { id: true } });
  if (!session) throw new NotFoundError('Session');
  const answer = await prisma.message.findFirst({
    where: { sessionId, type: 'assistant' },
    orderBy: { seq: 'desc' },
    select: { id: true, seq: true, metadata: true },
  });
  if (!answer) throw new ValidationError('session_id: the session has no answer to note yet', [{ path: ['session_id'], message: 'no answer yet' }]);
  const metadata = (answer.metadata ?? {}) as Record<string, unknown>;
  const merged = { ...((metadata.notes as Record<string, unknown> | undefined) ?? {}), ...notes };
  await prisma.message.update({ where: { id: answer.id }, data: { metadata: storable({ ...metadata, notes: merged }) as Prisma.InputJsonObject } });
  return { seq: answer.seq, notes: merged };
}
