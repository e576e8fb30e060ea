import { randomUUID } from 'node:crypto';
import type { AgentContext } from '../auth/agent-context.js';
import { requireIdentity, visibleTo } from '../auth/scope.js';
import type { Prisma, PrismaClient, Session } from '../db/generated/client.js';
import { NotFoundError, ValidationError } from '../errors.js';
import type { RemPubSub } from '../events/pubsub.js';
import { copyMessages } from './rows.js';

/** Where a fork starts: the source session and its last message to copy (null: none, an empty fork). */
export interface ForkPoint {
  source: Session;
  at: { id: string; seq: number } | null;
}

/**
 * Copies a session the caller can see (NOT_FOUND otherwise, like every session read) up to and
 * including one of its messages into a new session owned by the caller, which records where it
 * came from. A message of another session is VALIDATION_FAILED.
 */
export async function forkSession(
  deps: { prisma: PrismaClient; pubsub: RemPubSub },
  ctx: AgentContext,
  sessionId: string,
  atMessageId: string,
): Promise<Session> {
  requireIdentity(ctx, 'fork sessions');
  const source = await deps.prisma.session.findFirst({ where: { id: sessionId, ...visibleTo(ctx) } });
  if (!source) throw new NotFoundError('Session');
  const at = await deps.prisma.message.findFirst({ where: { id: atMessageId, ...visibleTo(ctx) }, select: { id: true, seq: true, sessionId: true } });
  if (!at) throw new NotFoundError('Message');
  if (at.sessionId !== source.id)
    throw new ValidationError('atMessageId: is not a message of that session', [{ path: ['atMessageId'], message: 'is not a message of that session' }]);
  const fork = await copySession(deps.prisma, ctx, { source, at });
  deps.pubsub.publish('session:updated', fork.id, { session: fork, deleted: false });
  return fork;
}

/**
 * Stores the fork in one transaction: the session, then the source's messages up to the fork point
 * with the same positions (tool rows, notes and usage included; they belong to no turn of the fork).
 */
export async function copySession(prisma: PrismaClient, ctx: AgentContext, { source, at }: ForkPoint): Promise<Session> {
  const id = randomUUID();
  const [session] = await prisma.$transaction([
    prisma.session.create({
      data: {
        id,
        name: `${source.name} (fork)`,
        agent: source.agent,
        routing: source.routing,
        activeAgent: source.activeAgent,
        metadata: source.metadata as Prisma.InputJsonObject,
        isEval: ctx.isEval,
        tenantId: ctx.tenantId,
        userId: ctx.userId,
        forkedFromId: source.id,
        forkedAtMessageId: at?.id ?? null,
      },
    }),
    prisma.$executeRaw(copyMessages(source.id, id, at?.seq ?? 0, ctx)),
  ]);
  return session;
}
