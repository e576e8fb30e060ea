import type { AgentContext } from '../auth/agent-context.js';
import { visibleTo } from '../auth/scope.js';
import type { Prisma, PrismaClient, Resource } from '../db/generated/client.js';
import { NotFoundError } from '../errors.js';
import { FILE_CATEGORY } from '../rem/ingest/ingest-file.js';

/**
 * A document is an ingested file: its REM resource (category `file`), whose chunks (category
 * `file_chunk`, `metadata.parent` = its key, same owner) hold its text and pages.
 */
export type Document = Resource;

/** The documents the caller can see, optionally only those of one corpus. */
export function documentsWhere(ctx: AgentContext, corpusId?: string | null): Prisma.ResourceWhereInput {
  return { ...visibleTo(ctx), category: FILE_CATEGORY, ...(corpusId ? { corpusDocuments: { some: { corpusId } } } : {}) };
}

/** A document's title: the file name it was ingested from (else its key). */
export function documentTitle(document: Pick<Resource, 'name' | 'key'>): string {
  return document.name ?? document.key;
}

/** A document the caller can see; NOT_FOUND otherwise (another user's documents included). */
export async function getDocument(prisma: PrismaClient, ctx: AgentContext, id: string): Promise<Document> {
  const document = await prisma.resource.findFirst({ where: { id, ...documentsWhere(ctx) } });
  if (!document) throw new NotFoundError('Document', id);
  return document;
}

/** Every one of these documents, visible to the caller; NOT_FOUND names the first that is not. */
export async function getDocuments(prisma: PrismaClient, ctx: AgentContext, ids: readonly string[]): Promise<Document[]> {
  const unique = [...new Set(ids)];
  const found = await prisma.resource.findMany({ where: { id: { in: unique }, ...documentsWhere(ctx) } });
  const missing = unique.find((id) => !found.some((d) => d.id === id));
  if (missing) throw new NotFoundError('Document', missing);
  return found;
}
