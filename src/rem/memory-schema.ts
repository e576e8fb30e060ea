import type { AgentContext } from '../auth/agent-context.js';
import type { PrismaClient } from '../db/generated/client.js';
import { visibleTo } from '../auth/scope.js';

/** The fields REM rows have, per table: what a client may write and query. */
const TABLES = {
  entities: ['key', 'name', 'entityType', 'summary', 'content', 'extractedData', 'tags', 'graphEdges', 'metadata', 'uri'],
  resources: ['key', 'name', 'uri', 'category', 'summary', 'content', 'tags', 'graphEdges', 'metadata'],
  moments: ['key', 'name', 'momentType', 'summary', 'content', 'startsAt', 'endsAt', 'tags', 'graphEdges', 'metadata'],
};

/** The shape of the caller's memory: each table's fields and the entity types in use, most common first. */
export async function memorySchema(prisma: PrismaClient, ctx: AgentContext) {
  const types = await prisma.entity.groupBy({ by: ['entityType'], where: visibleTo(ctx), _count: { _all: true } });
  return {
    tables: TABLES,
    entityTypes: types
      .map((t) => ({ entityType: t.entityType, count: t._count._all }))
      .sort((a, b) => b.count - a.count || String(a.entityType).localeCompare(String(b.entityType))),
  };
}
