import { z } from 'zod';
import { openaiVariables } from './llm.js';
import { securityVariables } from './security.js';

/** REM memory: embeddings, the search modes' bounds, upkeep of its tables, and SQL mode's limits. */
export const remSettings = z
  .object({
    ...openaiVariables.shape,
    /** LOOKUP takes at most as many keys as any list argument. */
    MAX_LIST_ARGUMENT: securityVariables.shape.MAX_LIST_ARGUMENT,
    /** REM embeddings: `hashed-lexical` (offline, deterministic, lexical not semantic) or `openai` (any OpenAI-compatible endpoint). */
    EMBEDDING_PROVIDER: z.enum(['hashed-lexical', 'openai']).default('hashed-lexical'),
    /** Embedding model name stored with every vector; defaults to `hashed-lexical-v1` or `text-embedding-3-small`. */
    EMBEDDING_MODEL: z.string().min(1).optional(),
    /** Vector dimension; defaults to 384 (hashed-lexical) or 1536 (openai). HNSW indexes exist for 384 and 1536. */
    EMBEDDING_DIMENSION: z.coerce.number().int().min(8).max(4096).optional(),
    /** Base URL of the embeddings endpoint for `openai`; defaults to OPENAI_BASE_URL (key: EMBEDDING_API_KEY, or OPENAI_API_KEY when on OPENAI_BASE_URL's host). */
    EMBEDDING_BASE_URL: z.url().optional(),
    EMBEDDING_API_KEY: z.string().optional(),
    /** SEARCH hits below this cosine similarity are dropped (per query: MIN_SIMILARITY x). */
    REM_SEARCH_MIN_SIMILARITY: z.coerce.number().min(0).max(1).default(0.3),
    /** FUZZY ranks at most this many keys at or above its threshold: a bound on the work of one query. */
    REM_FUZZY_CANDIDATES: z.coerce.number().int().min(1).max(100_000).default(200),
    /**
     * ANALYZE a memory table once this many rows (or 10% of its rows, if more) were written to it by
     * this process (ingest, upserts, save_memory, reembed) since its last ANALYZE: PGlite has no
     * autovacuum, and LOOKUP/TRAVERSE keep their plans until their tables are analyzed. 0 turns it off.
     */
    REM_ANALYZE_AFTER_ROWS: z.coerce.number().int().min(0).default(1000),
    /**
     * Rows per batch of a re-embed (the reembed job, `remgraph reembed`): each batch is a few short
     * statements and one embeddings request, and other requests run between batches.
     */
    REM_REEMBED_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(256),
    /**
     * A bulk import (`remgraph import`, importFile) of more rows than this, and than the vector index
     * already holds, drops the index before loading and builds it once afterwards; smaller imports
     * keep it maintained row by row.
     */
    IMPORT_REINDEX_THRESHOLD: z.coerce.number().int().min(0).default(10_000),
    /** Lines per batch of a bulk import: one statement per kind and batch, one embeddings request per batch. */
    IMPORT_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
    /**
     * SQL mode: longest run of one query. PostgreSQL cancels it (statement_timeout); PGlite, which
     * cannot cancel a statement, has its worker thread stopped and the database reopened.
     */
    REM_SQL_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(1).max(600_000).default(2000),
    /** SQL mode: most rows returned (`truncated: true` beyond). */
    REM_SQL_ROW_CAP: z.coerce.number().int().min(1).max(100_000).default(500),
    /** SQL mode: most bytes of JSON rows returned (`truncated: true` beyond). */
    REM_SQL_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .default(1024 * 1024),
    /** SQL mode: queries whose planner cost estimate exceeds this are refused before they run. */
    REM_SQL_MAX_COST: z.coerce.number().positive().default(5_000_000),
    /** SQL mode: rows all generate_series calls of one query may produce together (integer constants only). */
    REM_SQL_MAX_SERIES_ROWS: z.coerce.number().int().min(1).max(1_000_000_000).default(10_000),
  })
  .transform((e) => {
    const openai = e.EMBEDDING_PROVIDER === 'openai';
    const baseUrl = e.EMBEDDING_BASE_URL ?? e.OPENAI_BASE_URL;
    return {
      embedding: {
        provider: e.EMBEDDING_PROVIDER,
        model: e.EMBEDDING_MODEL ?? (openai ? 'text-embedding-3-small' : 'hashed-lexical-v1'),
        dimension: e.EMBEDDING_DIMENSION ?? (openai ? 1536 : 384),
        baseUrl,
        // OPENAI_API_KEY goes only to OPENAI_BASE_URL's host; another embeddings host needs EMBEDDING_API_KEY.
        apiKey: e.EMBEDDING_API_KEY ?? (sameOrigin(baseUrl, e.OPENAI_BASE_URL) ? (e.OPENAI_API_KEY ?? null) : null),
      },
      searchMinSimilarity: e.REM_SEARCH_MIN_SIMILARITY,
      fuzzyCandidates: e.REM_FUZZY_CANDIDATES,
      analyzeAfterRows: e.REM_ANALYZE_AFTER_ROWS,
      reembedBatchSize: e.REM_REEMBED_BATCH_SIZE,
      import: { batchSize: e.IMPORT_BATCH_SIZE, reindexThreshold: e.IMPORT_REINDEX_THRESHOLD },
      sql: {
        statementTimeoutMs: e.REM_SQL_STATEMENT_TIMEOUT_MS,
        rowCap: e.REM_SQL_ROW_CAP,
        maxBytes: e.REM_SQL_MAX_BYTES,
        maxCost: e.REM_SQL_MAX_COST,
        maxSeriesRows: e.REM_SQL_MAX_SERIES_ROWS,
      },
      parse: { maxKeys: e.MAX_LIST_ARGUMENT },
    };
  });

/** Same scheme, host and port: a key for one must not travel to the other. */
function sameOrigin(a: string, b: string): boolean {
  return new URL(a).origin === new URL(b).origin;
}
