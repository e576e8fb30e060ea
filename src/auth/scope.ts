import { ForbiddenError } from '../errors.js';
import type { AgentContext } from './agent-context.js';

/**
 * Prisma filter for rows the caller may read: their own rows and the tenant's shared rows
 * (user_id NULL), never another user's or another tenant's.
 */
export function visibleTo(ctx: Pick<AgentContext, 'tenantId' | 'userId'>) {
  return ctx.userId === null ? { tenantId: ctx.tenantId, userId: null } : { tenantId: ctx.tenantId, OR: [{ userId: ctx.userId }, { userId: null }] };
}

/** `visibleTo` for a row already read (a lookup by primary key alone plans the same however stale the statistics). */
export function isVisibleTo(ctx: Pick<AgentContext, 'tenantId' | 'userId'>, row: { tenantId: string; userId: string | null }): boolean {
  return row.tenantId === ctx.tenantId && (row.userId === null || row.userId === ctx.userId);
}

/** Prisma filter for rows the caller may change: their own rows, or shared rows for admins. Anonymous callers change nothing. */
export function ownedBy(ctx: Pick<AgentContext, 'tenantId' | 'userId' | 'isAdmin'>) {
  if (ctx.isAdmin) return visibleTo(ctx);
  if (ctx.userId === null) return { tenantId: ctx.tenantId, AND: [{ userId: null }, { NOT: { userId: null } }] };
  return { tenantId: ctx.tenantId, userId: ctx.userId };
}

/**
 * Anonymous callers (no identity in header mode and no DEFAULT_USER, per REMLight's
 * get_user_id_or_default) read the tenant's shared rows and write nothing: what they wrote would
 * be shared with everyone.
 */
export function requireIdentity(ctx: Pick<AgentContext, 'userId' | 'isAdmin'>, what: string): void {
  if (ctx.userId === null && !ctx.isAdmin) throw new ForbiddenError(`Anonymous callers cannot ${what}: send X-User-Id (or a token), or set DEFAULT_USER`);
}
