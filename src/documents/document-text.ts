import type { PrismaClient, Resource } from '../db/generated/client.js';
import { CHUNK_CATEGORY } from '../rem/ingest/ingest-file.js';

/** Where a chunk's own text lies in its document's text. */
interface TextPiece {
  start: number;
  end: number;
  page: number | null;
  chunkKey: string;
}

export interface DocumentText {
  text: string;
  pieces: TextPiece[];
  /** The last page of a paged (PDF) document; null for others. */
  pageCount: number | null;
}

/** Between two chunks' texts in a document's text. */
const SEPARATOR = '\n\n';

interface ChunkMetadata {
  index?: number;
  page?: number;
  overlap?: number;
}

/**
 * A document's plain text: its chunks in order, each without the words it repeats from the one
 * before (metadata.overlap), joined by blank lines. Character offsets (annotations, text(start, end))
 * are offsets into this text.
 */
export async function documentText(prisma: PrismaClient, document: Pick<Resource, 'key' | 'tenantId' | 'userId'>): Promise<DocumentText> {
  const chunks = await prisma.resource.findMany({
    where: { tenantId: document.tenantId, userId: document.userId, category: CHUNK_CATEGORY, metadata: { path: ['parent'], equals: document.key } },
    select: { key: true, content: true, metadata: true },
  });
  const ordered = chunks
    .map((chunk) => ({ key: chunk.key, content: chunk.content ?? '', meta: (chunk.metadata ?? {}) as ChunkMetadata }))
    .sort((a, b) => (a.meta.index ?? 0) - (b.meta.index ?? 0));
  const pieces: TextPiece[] = [];
  let text = '';
  for (const chunk of ordered) {
    const own = chunk.content.slice(chunk.meta.overlap ?? 0);
    if (pieces.length) text += SEPARATOR;
    pieces.push({ start: text.length, end: text.length + own.length, page: typeof chunk.meta.page === 'number' ? chunk.meta.page : null, chunkKey: chunk.key });
    text += own;
  }
  const pages = pieces.map((p) => p.page).filter((p): p is number => p !== null);
  return { text, pieces, pageCount: pages.length ? Math.max(...pages) : null };
}

/** The page a character offset is on (the page of the chunk holding it or the next one). */
export function pageAt(text: DocumentText, offset: number): number | null {
  return text.pieces.find((piece) => offset < piece.end)?.page ?? text.pieces.at(-1)?.page ?? null;
}
