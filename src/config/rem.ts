import { z } from 'zod';
import { openaiVariables } from './llm.js';
import { securityVariables } from './security.js';

/** REM memory: embeddings, the search modes' bounds, upkeep of its tables, and SQL mode's limits. */
export const remSettings = z
  .object({
    ...openaiVariables.shape,
    // LOOKUP takes at most as many keys as any list argument.
    MAX_LIST_ARGUMENT: securityVariables.shape.MAX_LIST_ARGUMENT,
    EMBEDDING_PROVIDER: z
      .enum(['hashed-lexical', 'openai'])
      .default('hashed-lexical')
      .describe('REM embeddings: `hashed-lexical` (offline, deterministic, lexical not semantic) or `openai` (any OpenAI-compatible `/embeddings` endpoint)'),
    EMBEDDING_MODEL: z.string().min(1).optional().meta({
      description: 'model name stored with every vector; changing it needs `reembed`',
      shownDefault: '`hashed-lexical-v1` / `text-embedding-3-small`',
    }),
    EMBEDDING_DIMENSION: z.coerce.number().int().min(8).max(4096).optional().meta({
      description: 'vector dimension (HNSW indexes exist for 384 and 1536; other sizes search without an index)',
      shownDefault: '`384` / `1536`',
    }),
    EMBEDDING_BASE_URL: z.url().optional().meta({ description: 'endpoint of the `openai` embedding provider', shownDefault: '`OPENAI_BASE_URL`' }),
    EMBEDDING_API_KEY: z.string().optional().meta({
      description: 'key of the `openai` embedding provider; `OPENAI_API_KEY` is used only when the endpoint has `OPENAI_BASE_URL`’s origin',
      shownDefault: '`OPENAI_API_KEY` (same origin only)',
    }),
    REM_SEARCH_MIN_SIMILARITY: z.coerce
      .number()
      .min(0)
      .max(1)
      .default(0.3)
      .describe('SEARCH drops hits below this cosine similarity (per query: `MIN_SIMILARITY x`)'),
    REM_FUZZY_CANDIDATES: z.coerce
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(200)
      .describe('FUZZY ranks at most this many keys at or above its threshold (at least its LIMIT): the bound on one query’s ranking'),
    REM_ANALYZE_AFTER_ROWS: z.coerce
      .number()
      .int()
      .min(0)
      .default(1000)
      .describe(
        'memory writes (`ingest`, upserts, `save_memory`, `reembed`) run `ANALYZE` on a memory table once this many rows (or 10% of its rows, if more) were written to it since its last one (PGlite has no autovacuum; LOOKUP and TRAVERSE keep their plans until their tables are analyzed); `0` turns it off',
      ),
    REM_REEMBED_BATCH_SIZE: z.coerce
      .number()
      .int()
      .min(1)
      .max(10_000)
      .default(256)
      .describe('rows per batch of a re-embed (`queueReembed` job, `remgraph reembed`); other requests run between batches'),
    IMPORT_REINDEX_THRESHOLD: z.coerce
      .number()
      .int()
      .min(0)
      .default(10_000)
      .describe(
        'a bulk import (`remgraph import`, `importFile`) of more rows than this, and than the vector index already holds, drops the HNSW index and the GIN indexes of tags and key trigrams before loading and builds them once after; smaller imports keep them maintained row by row',
      ),
    IMPORT_BATCH_SIZE: z.coerce
      .number()
      .int()
      .min(1)
      .max(10_000)
      .default(500)
      .describe('lines per batch of a bulk import: one statement per kind and batch, one embeddings request per batch'),
    REM_SQL_STATEMENT_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(1)
      .max(600_000)
      .default(2000)
      .describe(
        'longest run of one SQL-mode query: PostgreSQL cancels it (`statement_timeout`), on PGlite its worker thread is stopped and the database reopened; the caller gets `LIMIT_EXCEEDED`',
      ),
    REM_SQL_ROW_CAP: z.coerce.number().int().min(1).max(100_000).default(500).describe('SQL mode returns at most this many rows (`truncated: true` beyond)'),
    REM_SQL_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .default(1024 * 1024)
      .describe('SQL mode returns at most this many bytes of JSON rows (`truncated: true` beyond)'),
    REM_SQL_MAX_COST: z.coerce.number().positive().default(5_000_000).describe('SQL mode refuses (`FORBIDDEN`) queries whose planner cost estimate is higher'),
    REM_SQL_MAX_SERIES_ROWS: z.coerce
      .number()
      .int()
      .min(1)
      .max(1_000_000_000)
      .default(10_000)
      .describe('rows all `generate_series` calls of one SQL-mode query may produce together (integer constants only)'),
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
