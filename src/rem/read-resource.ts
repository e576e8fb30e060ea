import type { AgentContext } from '../auth/agent-context.js';
import { visibleTo } from '../auth/scope.js';
import type { PrismaClient } from '../db/generated/client.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { CHUNK_CATEGORY, FILE_CATEGORY } from './ingest/ingest-file.js';
import { normalizeKey } from './keys.js';

const FIELDS = {
  key: true,
  name: true,
  uri: true,
  category: true,
  summary: true,
  content: true,
  tags: true,
  graphEdges: true,
  metadata: true,
  updatedAt: true,
};

/**
 * One REM resource the caller can see, by its key (a name works: "Q3 Report" is q3-report) or by
 * the `uri` it was stored with (`file:report.md`), with its content. An ingested file's text is in
 * its chunks, given in order; the caller's own row shadows a shared one of the same key.
 */
export async function readResource(prisma: PrismaClient, ctx: AgentContext, ref: string) {
  const key = normalizeKey(ref);
  if (!key) throw new ValidationError('uri: must name a resource (a key or a uri)', [{ path: ['uri'], message: 'must name a resource' }]);
  const row = await prisma.resource.findFirst({
    where: { ...visibleTo(ctx), AND: [{ OR: [{ key }, { uri: ref }] }] },
    orderBy: [{ userId: { sort: 'asc', nulls: 'last' } }, { key: 'asc' }],
    select: { ...FIELDS, userId: true },
  });
  if (!row) throw new NotFoundError('Resource', ref);
  const { userId, ...resource } = row;
  if (resource.category !== FILE_CATEGORY) return resource;
  const chunks = await prisma.resource.findMany({
    where: { tenantId: ctx.tenantId, userId, category: CHUNK_CATEGORY, metadata: { path: ['parent'], equals: resource.key } },
    select: { key: true, name: true, content: true, metadata: true },
  });
  const index = (chunk: (typeof chunks)[number]) => Number((chunk.metadata as { index?: number }).index ?? 0);
  return { ...resource, chunks: chunks.sort((a, b) => index(a) - index(b)).map(({ key, name, content }) => ({ key, name, content })) };
}

/** The caller's latest resources (chunks of files left out), newest first: what an MCP client lists. */
export function recentResources(prisma: PrismaClient, ctx: AgentContext, limit: number) {
  return prisma.resource.findMany({
    where: { ...visibleTo(ctx), AND: [{ OR: [{ category: null }, { category: { not: CHUNK_CATEGORY } }] }] },
    orderBy: [{ updatedAt: 'desc' }, { key: 'asc' }],
    take: limit,
    select: { key: true, name: true, summary: true },
  });
}
