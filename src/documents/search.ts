import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import type { PrismaClient, Prisma } from '../db/generated/client.js';
import { CHUNK_CATEGORY } from '../rem/ingest/ingest-file.js';
import type { RemService } from '../rem/service.js';
import type { SearchFilter } from '../rem/search-filter.js';
import { parseInput } from '../validation.js';
import { getCorpus, requireInCorpus } from './corpora.js';
import { documentsWhere, documentTitle, getDocument } from './documents.js';

export interface SearchDeps {
  prisma: PrismaClient;
  rem: Pick<RemService, 'search'>;
}

/** The seed's search filters: within a corpus or a document, title contains, content contains, annotation label. */
const scopeInput = z.object({
  corpusId: z.string().uuid().nullish(),
  documentId: z.string().uuid().nullish(),
  titleContains: z.string().trim().min(1).max(500).nullish(),
  contentContains: z.string().trim().min(1).max(500).nullish(),
  label: z.string().trim().min(1).max(100).nullish(),
});
const searchInput = scopeInput.extend({
  query: z.string().trim().min(1, 'must not be empty').max(4000, 'must be at most 4000 characters'),
  k: z.number().int().min(1, 'must be at least 1').max(100, 'must be at most 100').nullish(),
});

export type DocumentScope = z.input<typeof scopeInput>;
export type PassageSearch = z.input<typeof searchInput>;

/** A passage of a document found by similarity: a chunk's text, where it is and how close. */
export interface Passage {
  documentId: string;
  documentKey: string;
  title: string;
  corpusId: string | null;
  page: number | null;
  chunkKey: string;
  text: string;
  score: number;
  /** The label the search was narrowed to, if any. */
  annotationLabel: string | null;
}

const DEFAULT_K = 5;

/**
 * The SEARCH filter that keeps the chunks of the documents in scope: `null` when nothing matches,
 * a filter on every file chunk when nothing narrows the documents, on a corpus's chunks when only
 * the corpus does, else on the chunks of the documents that match. The corpus and document must be
 * visible (NOT_FOUND) and the document in the corpus (VALIDATION_FAILED).
 */
export async function scopeFilter(prisma: PrismaClient, ctx: AgentContext, raw: DocumentScope): Promise<SearchFilter | null> {
  const scope = parseInput(scopeInput, raw);
  if (scope.corpusId) await getCorpus(prisma, ctx, scope.corpusId);
  if (scope.documentId) await getDocument(prisma, ctx, scope.documentId);
  if (scope.corpusId && scope.documentId) await requireInCorpus(prisma, scope.corpusId, [scope.documentId]);
  const filter: SearchFilter = { type: CHUNK_CATEGORY, ...(scope.contentContains ? { contentContains: scope.contentContains } : {}) };
  if (!scope.corpusId && !scope.documentId && !scope.titleContains && !scope.label) return filter;
  // A whole corpus is checked in the search itself, chunk by chunk: listing its documents first
  // would cost as much as the corpus is large, whatever the k asked.
  if (!scope.documentId && !scope.titleContains && !scope.label) return { ...filter, corpus: scope.corpusId! };
  const where: Prisma.ResourceWhereInput = {
    ...documentsWhere(ctx, scope.corpusId),
    ...(scope.documentId ? { id: scope.documentId } : {}),
    ...(scope.titleContains ? { name: { contains: scope.titleContains, mode: 'insensitive' } } : {}),
    ...(scope.label ? { annotations: { some: { label: scope.label, ...(scope.corpusId ? { corpusId: scope.corpusId } : {}) } } } : {}),
  };
  const documents = await prisma.resource.findMany({ where, select: { key: true, userId: true } });
  return documents.length ? { ...filter, parents: documents.map((d) => `${d.userId ?? ''}:${d.key}`) } : null;
}

/** Passages of the documents in scope most similar to the query (k, default 5), best first. */
export async function searchPassages(deps: SearchDeps, ctx: AgentContext, raw: PassageSearch): Promise<Passage[]> {
  const input = parseInput(searchInput, raw);
  const filter = await scopeFilter(deps.prisma, ctx, input);
  if (!filter) return [];
  const hits = await deps.rem.search(ctx, { mode: 'SEARCH', text: input.query, table: 'resources', limit: input.k ?? DEFAULT_K, minSimilarity: 0, filter });
  if (!hits.length) return [];
  const chunks = await deps.prisma.resource.findMany({
    where: { id: { in: hits.map((h) => h.id) } },
    select: { id: true, content: true, metadata: true, userId: true },
  });
  const parents = [...new Set(chunks.map((c) => (c.metadata as { parent?: string }).parent ?? ''))];
  const documents = await deps.prisma.resource.findMany({
    where: { ...documentsWhere(ctx), key: { in: parents } },
    select: { id: true, key: true, name: true, userId: true },
  });
  return hits.flatMap((hit) => {
    const chunk = chunks.find((c) => c.id === hit.id);
    const parent = (chunk?.metadata as { parent?: string } | undefined)?.parent;
    const document = documents.find((d) => d.key === parent && d.userId === chunk?.userId);
    if (!chunk || !document) return [];
    return [
      {
        documentId: document.id,
        documentKey: document.key,
        title: documentTitle(document),
        corpusId: input.corpusId ?? null,
        page: hit.page,
        chunkKey: hit.key,
        text: chunk.content ?? '',
        score: hit.score ?? 0,
        annotationLabel: input.label ?? null,
      },
    ];
  });
}
