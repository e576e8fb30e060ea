import type { Config } from '../../config/config.js';
import { createHash } from 'node:crypto';
import type { AgentContext } from '../../auth/agent-context.js';
import type { Resource } from '../../db/generated/client.js';
import { PayloadTooLargeError, ValidationError } from '../../errors.js';
import type { IngestProgress } from '../../events/pubsub.js';
import { normalizeKey } from '../keys.js';
import { ingest } from '../memory/ingest.js';
import type { MemoryItemInput } from '../memory/inputs.js';
import type { MemoryDeps } from '../memory/kinds.js';
import { chunkSections } from './chunk-text.js';
import { extractSections, fileFormat } from './extract-text.js';

/** INGEST_MAX_FILE_BYTES and the chunking (config/ingest.ts). */
type IngestFileSettings = Config['ingest'];

export interface IngestFileInput {
  filename: string;
  contentType?: string | null;
  bytes: Uint8Array;
  /** The file's resource key; defaults to the file name (kebab-cased). */
  key?: string | null;
  tags?: string[] | null;
  /** Told as the work moves on: extracting, embedding (the chunks are known), storing, done. */
  onProgress?: (progress: IngestProgress) => void;
}

export interface IngestFileResult {
  /** The file's parent resource, with a `has_chunk` edge to each of its chunks: resources `<key>-chunk-<n>` with a `chunk_of` edge back. */
  resource: Resource;
  chunks: number;
  /** The same content was already ingested under this key: nothing was written. */
  unchanged: boolean;
  contentHash: string;
}

/** Category of an ingested file's resource, and of its chunks' (whose `metadata.parent` is the file's key). */
export const FILE_CATEGORY = 'file';
export const CHUNK_CATEGORY = 'file_chunk';
const SUMMARY_CHARS = 500;
/** TRAVERSE follows edges one way: the file links to each chunk, each chunk back to the file. */
const HAS_CHUNK = 'has_chunk';
const CHUNK_OF = 'chunk_of';

/**
 * Ingests a text, Markdown, HTML or PDF file into REM as the caller's resources: one for the file,
 * one per chunk (by headings and paragraphs, with overlap), embedded and searchable once this
 * returns. Everything is written in one transaction, so a bad file stores nothing; the same key
 * ingested again with other content replaces its chunks, with the same content (by SHA-256) it
 * changes nothing. A PDF chunk's metadata holds its page (chunks never span pages).
 */
export async function ingestFile(deps: MemoryDeps, ctx: AgentContext, input: IngestFileInput, settings: IngestFileSettings): Promise<IngestFileResult> {
  if (input.bytes.length > settings.maxBytes) throw new PayloadTooLargeError(settings.maxBytes, 'File');
  if (input.bytes.length === 0) throw invalid('file: empty');
  const format = fileFormat(input.filename, input.contentType);
  const key = normalizeKey(input.key ?? input.filename.replace(/\.[a-z0-9]+$/i, ''));
  if (!key) throw new ValidationError('key: must contain letters or digits', [{ path: ['key'], message: 'must contain letters or digits' }]);
  const contentHash = createHash('sha256').update(input.bytes).digest('hex');
  const owner = { tenantId: ctx.tenantId, userId: ctx.userId };

  const existing = await deps.prisma.resource.findFirst({ where: { ...owner, key } });
  const stored = existing?.metadata as { contentHash?: string; chunks?: number } | undefined;
  const progress = input.onProgress ?? (() => {});
  if (existing && stored?.contentHash === contentHash) {
    progress({ stage: 'done', chunks: stored.chunks ?? 0 });
    return { resource: existing, chunks: stored.chunks ?? 0, unchanged: true, contentHash };
  }

  progress({ stage: 'extracting', chunks: null });
  const chunks = chunkSections(await extractSections(format, input.bytes), settings);
  if (chunks.length === 0) throw invalid('file: no text found in it');
  progress({ stage: 'embedding', chunks: chunks.length });
  const chunkKeys = chunks.map((_, i) => `${key}-chunk-${i + 1}`);
  const tags = input.tags ?? [];
  const items: MemoryItemInput[] = [
    {
      resource: {
        key,
        name: input.filename,
        uri: `file:${input.filename}`,
        category: FILE_CATEGORY,
        summary: chunks[0]!.text.slice(0, SUMMARY_CHARS),
        tags,
        graphEdges: chunkKeys.map((dst) => ({ dst, relType: HAS_CHUNK })),
        metadata: { filename: input.filename, contentType: input.contentType ?? null, format, bytes: input.bytes.length, contentHash, chunks: chunks.length },
      },
    },
    ...chunks.map((chunk, i) => ({
      resource: {
        key: chunkKeys[i]!,
        name: [input.filename, ...chunk.headings].join(' › '),
        category: CHUNK_CATEGORY,
        content: chunk.text,
        tags,
        graphEdges: [{ dst: key, relType: CHUNK_OF }],
        metadata: {
          parent: key,
          index: i + 1,
          headings: chunk.headings,
          ...(chunk.page === undefined ? {} : { page: chunk.page }),
          ...(chunk.overlap === undefined ? {} : { overlap: chunk.overlap }),
        },
      },
    })),
  ];
  const written = await ingest(deps, ctx, items, {
    maxItems: items.length,
    maxEdges: chunks.length,
    beforeWrite: () => progress({ stage: 'storing', chunks: chunks.length }),
    // Chunks of an earlier version beyond the new count go in the same transaction.
    afterWrite: (tx) =>
      tx.resource.deleteMany({ where: { ...owner, category: CHUNK_CATEGORY, metadata: { path: ['parent'], equals: key }, key: { notIn: chunkKeys } } }),
  });
  progress({ stage: 'done', chunks: chunks.length });
  return { resource: written.resources[0]!, chunks: chunks.length, unchanged: false, contentHash };
}

function invalid(message: string): ValidationError {
  return new ValidationError(message, [{ path: ['file'], message }]);
}
