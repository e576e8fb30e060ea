import type { AgentContext } from './agent-context.js';

/**
 * Prisma filter for rows the caller may read: their own rows and the tenant's shared rows
 * (user_id NULL), never another user's or another tenant's.
 */
export function visibleTo(ctx: Pick<AgentContext, 'tenantId' | 'userId'>) {
  return ctx.userId === null
    ? { tenantId: ctx.tenantId, userId: null }
    : { tenantId: ctx.tenantId, OR: [{ userId: ctx.userId }, { userId: null }] };
}

/** Prisma filter for rows the caller may change: their own rows, or shared rows for admins. */
export function ownedBy(ctx: Pick<AgentContext, 'tenantId' | 'userId' | 'isAdmin'>) {
  if (ctx.isAdmin) return visibleTo(ctx);
  return { tenantId: ctx.tenantId, userId: ctx.userId };
}
