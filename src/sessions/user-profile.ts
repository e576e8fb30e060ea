import type { AgentContext } from '../auth/agent-context.js';
import type { PrismaClient } from '../db/generated/client.js';
import { NotFoundError } from '../errors.js';
import { normalizeKey } from '../rem/keys.js';

/**
 * The key of a user's profile entity, `user-<id>`: the one the seed's `user://profile/{user_id}`
 * resource names, read by turns (injected as memory) and by the MCP resource alike.
 */
export function profileKey(userId: string): string {
  return normalizeKey(`user-${userId}`);
}

/**
 * What remgraph knows about a user, for agents and MCP clients: the user's own profile entity
 * (`profileKey`, written by upsertEntity or by agents that take notes) and their activity. Only the
 * user may read it; any other id is NOT_FOUND, like an id that does not exist.
 */
export async function userProfile(prisma: PrismaClient, ctx: AgentContext, userId: string) {
  if (ctx.userId === null || userId !== ctx.userId) throw new NotFoundError('Profile');
  const key = profileKey(userId);
  const mine = { tenantId: ctx.tenantId, userId };
  const [entity, sessions, messages, latest] = await Promise.all([
    prisma.entity.findFirst({
      where: { ...mine, key },
      select: { key: true, name: true, summary: true, content: true, tags: true, extractedData: true, updatedAt: true },
    }),
    prisma.session.count({ where: mine }),
    prisma.message.count({ where: { ...mine, type: 'user' } }),
    prisma.session.findFirst({ where: mine, orderBy: { updatedAt: 'desc' }, select: { updatedAt: true } }),
  ]);
  return {
    userId,
    tenantId: ctx.tenantId,
    profile: entity,
    activity: { sessions, messagesSent: messages, lastActiveAt: latest?.updatedAt ?? null },
  };
}
