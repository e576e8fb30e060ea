import { z } from 'zod';
import type { AgentContext } from '../auth/agent-context.js';
import type { PrismaClient, Prisma } from '../db/generated/client.js';
import { NotFoundError } from '../errors.js';
import { CHUNK_CATEGORY } from '../rem/ingest/ingest-file.js';
import type { RemService } from '../rem/service.js';
import type { SearchFilter } from '../rem/search-filter.js';
import { parseInput } from '../validation.js';
import { getCorpus, requireInCorpus } from './corpora.js';
import { documentsWhere, documentTitle, getDocument } from './documents.js';

export interface SearchDeps {
  prisma: PrismaClient;
  rem: Pick<RemService, 'searchFileChunks'>;
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
  const { filter, uncheckedCorpus } = await narrowTo(prisma, ctx, parseInput(scopeInput, raw));
  if (uncheckedCorpus) await getCorpus(prisma, ctx, uncheckedCorpus);
  return filter;
}

/**
 * scopeFilter, except that a corpus that alone scopes the search is not looked up: `uncheckedCorpus`
 * names it, for the search to check (searchPassages's one statement does).
 */
async function narrowTo(
  prisma: PrismaClient,
  ctx: AgentContext,
  scope: z.output<typeof scopeInput>,
): Promise<{ filter: SearchFilter | null; uncheckedCorpus: string | null }> {
  const filter: SearchFilter = { type: CHUNK_CATEGORY, ...(scope.contentContains ? { contentContains: scope.contentContains } : {}) };
  const narrowed = (f: SearchFilter | null) => ({ filter: f, uncheckedCorpus: null });
  if (!scope.corpusId && !scope.documentId && !scope.titleContains && !scope.label) return narrowed(filter);
  // A whole corpus is checked in the search itself, chunk by chunk: listing its documents first
  // would cost as much as the corpus is large, whatever the k asked.
  if (!scope.documentId && !scope.titleContains && !scope.label) return { filter: { ...filter, corpus: scope.corpusId! }, uncheckedCorpus: scope.corpusId! };
  if (scope.corpusId) await getCorpus(prisma, ctx, scope.corpusId);
  const document = scope.documentId ? await getDocument(prisma, ctx, scope.documentId) : null;
  if (scope.corpusId && scope.documentId) await requireInCorpus(prisma, scope.corpusId, [scope.documentId]);
  // One document, visible and (if a corpus is given) in it: its chunks, with no list to read.
  if (document && !scope.titleContains && !scope.label) return narrowed({ ...filter, parents: [parentOf(document)] });
  const where: Prisma.ResourceWhereInput = {
    ...documentsWhere(ctx, scope.corpusId),
    ...(scope.documentId ? { id: scope.documentId } : {}),
    ...(scope.titleContains ? { name: { contains: scope.titleContains, mode: 'insensitive' } } : {}),
    ...(scope.label ? { annotations: { some: { label: scope.label, ...(scope.corpusId ? { corpusId: scope.corpusId } : {}) } } } : {}),
  };
  const documents = await prisma.resource.findMany({ where, select: { key: true, userId: true } });
  return narrowed(documents.length ? { ...filter, parents: documents.map(parentOf) } : null);
}

/** How a chunk names its file (SearchFilter.parents). */
const parentOf = (document: { key: string; userId: string | null }) => `${document.userId ?? ''}:${document.key}`;

/** Passages of the documents in scope most similar to the query (k, default 5), best first. */
export async function searchPassages(deps: SearchDeps, ctx: AgentContext, raw: PassageSearch): Promise<Passage[]> {
  const input = parseInput(searchInput, raw);
  const { filter } = await narrowTo(deps.prisma, ctx, input);
  if (!filter) return [];
  // One statement: the chunks with their text and document, and (for a corpus alone) whether the
  // caller sees the corpus, so that a corpus search reads nothing before or after it.
  const found = await deps.rem.searchFileChunks(ctx, { text: input.query, limit: input.k ?? DEFAULT_K, minSimilarity: 0, filter });
  if (!found.corpusVisible) throw new NotFoundError('Corpus', filter.corpus!);
  return found.chunks.map((chunk) => ({
    documentId: chunk.file.id,
    documentKey: chunk.file.key,
    title: documentTitle({ name: chunk.file.name, key: chunk.file.key }),
    corpusId: input.corpusId ?? null,
    page: chunk.page,
    chunkKey: chunk.key,
    text: chunk.content,
    score: chunk.score,
    annotationLabel: input.label ?? null,
  }));
}
