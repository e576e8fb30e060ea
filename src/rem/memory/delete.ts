import type { AgentContext } from '../../auth/agent-context.js';
import { ownedBy } from '../../auth/scope.js';
import { ForbiddenError, NotFoundError } from '../../errors.js';
import { parseInput } from '../../validation.js';
import { keySchema } from './inputs.js';
import { delegate, type MemoryDeps, type MemoryKind, type MemoryRowOf } from './kinds.js';

/** Deletes the caller's row with this key (or the shared one, for admins). kv_store and embeddings follow by trigger. */
export async function deleteMemory<K extends MemoryKind>(
  deps: Pick<MemoryDeps, 'prisma'>,
  ctx: AgentContext,
  kind: K,
  rawKey: string,
  shared = false,
): Promise<MemoryRowOf[K]> {
  const key = parseInput(keySchema, rawKey, ['key']);
  if (shared && !ctx.isAdmin) throw new ForbiddenError('shared: only admins delete shared memory');
  const where = { key, ...(shared ? { tenantId: ctx.tenantId, userId: null } : ownedBy({ ...ctx, isAdmin: false })) };
  const row = await delegate(deps.prisma, kind).findFirst({ where });
  if (!row) throw new NotFoundError(kind === 'entity' ? 'Entity' : kind === 'resource' ? 'Resource' : 'Moment', key);
  return (await delegate(deps.prisma, kind).delete({ where: { id: row.id } })) as MemoryRowOf[K];
}
