/**
 * The REM query dialect's execution: LOOKUP, FUZZY, SEARCH, TRAVERSE and SQL, each scoped to the
 * caller (their rows and the tenant's shared rows, user_id IS NULL) on PGlite and PostgreSQL alike.
 */
import type { Config } from '../config/config.js';
import type { AgentContext } from '../auth/agent-context.js';
import type { Database } from '../db/database.js';
import type { PrismaClient } from '../db/generated/client.js';
import type { SqlClient } from '../db/sql-client.js';
import type { EmbeddingProvider } from './embeddings/provider.js';
import { vectorLiteral } from './embeddings/provider.js';
import type { StoredEdge } from './memory/inputs.js';
import {
  parseRemQuery,
  type FuzzyQuery,
  type LookupQuery,
  type RemParseOptions,
  type RemQuery,
  type RemQueryMode,
  type SearchQuery,
  type SqlQuery,
  type TraverseQuery,
} from './parser.js';
import { FILE_CATEGORY } from './ingest/ingest-file.js';
import type { SearchFilter } from './search-filter.js';
import { runSqlQuery } from './sql-mode.js';
import { inSpan } from '../telemetry/tracing.js';
import type { TableStats } from './table-stats.js';

/** The REM settings the query service reads (config/rem.ts documents each). */
export type RemSettings = Pick<Config['rem'], 'searchMinSimilarity' | 'fuzzyCandidates' | 'sql'> & {
  /**
   * SEARCH ... WHERE: when fewer rows than this pass the filter, they are joined to their vectors;
   * from this many on, the caller's vectors are kept by a test of each one's row. Default 2000.
   */
  searchExactRows?: number;
  parse?: Partial<RemParseOptions>;
};

export interface RemDeps {
  prisma: PrismaClient;
  /** LOOKUP, FUZZY, SEARCH and TRAVERSE: one statement each, the hottest reads. */
  sql: SqlClient;
  embedder: EmbeddingProvider;
  /** The database's own way to stop a query that runs too long (Database.interruptAfter). */
  interruptAfter?: Database['interruptAfter'];
  /** Keeps planner statistics current after bulk memory writes (memory writes report to it). */
  tableStats?: TableStats;
}

export interface RemHit {
  /** Row id (uuid) in its table. */
  id: string;
  key: string;
  /** Table the row lives in: entities, resources, moments (or messages for session message keys). */
  entityType: string;
  name: string | null;
  summary: string | null;
  /** Full stored content: LOOKUP only. */
  content: string | null;
  score: number | null;
  edges: StoredEdge[];
  /** TRAVERSE: keys from the start to this hit. */
  path: string[] | null;
  /** TRAVERSE: relation that led here. */
  relType: string | null;
  depth: number | null;
  /** SEARCH: the page of a PDF chunk (its resource's metadata.page). */
  page: number | null;
}

export interface RemResult {
  mode: RemQueryMode;
  hits: RemHit[];
  /** SQL mode: the rows as JSON objects. */
  rows: Record<string, unknown>[] | null;
  /** SQL mode: more rows matched than the row cap or the byte cap let through. */
  truncated: boolean;
  tookMs: number;
}

/** A chunk of an ingested file found by SEARCH: its text, page and similarity, and its file. */
export interface FileChunkHit {
  id: string;
  key: string;
  content: string;
  score: number;
  page: number | null;
  file: { id: string; key: string; name: string | null };
}

interface FileChunkRow {
  corpus_visible: boolean;
  entity_id: string | null;
  entity_key: string | null;
  content: string | null;
  distance: number;
  page: number | null;
  file_id: string | null;
  file_key: string | null;
  file_name: string | null;
}

interface KvRow {
  entity_type: string;
  entity_id: string;
  entity_key: string;
  content_summary: string | null;
  graph_edges: unknown;
  user_id: string | null;
}

const SEARCH_EXACT_ROWS = 2000;
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const MESSAGE_KEY = new RegExp(`^session-(${UUID})-msg-(\\d{1,9})$`);

export class RemService {
  constructor(
    private readonly deps: RemDeps,
    private readonly settings: RemSettings,
  ) {}

  get embedder(): EmbeddingProvider {
    return this.deps.embedder;
  }

  get tableStats(): TableStats | undefined {
    return this.deps.tableStats;
  }

  /**
   * Parses and runs a REM query; `searchScope` keeps a SEARCH to the chunks of some files or of a
   * corpus (a turn bound to documents; see SearchFilter.parents and .corpus). @throws QuerySyntaxError, ForbiddenError (SQL mode), ValidationError
   */
  async query(ctx: AgentContext, text: string, options: { searchScope?: Pick<SearchFilter, 'parents' | 'corpus'> } = {}): Promise<RemResult> {
    const started = performance.now();
    const parsed = parseRemQuery(text, this.settings.parse);
    const query = parsed.mode === 'SEARCH' && options.searchScope ? { ...parsed, filter: { ...parsed.filter, ...options.searchScope } } : parsed;
    const result = await this.run(ctx, query, text);
    return { ...result, mode: query.mode, tookMs: +(performance.now() - started).toFixed(3) };
  }

  run(ctx: AgentContext, query: RemQuery, source = ''): Promise<Omit<RemResult, 'mode' | 'tookMs'>> {
    return inSpan(`rem ${query.mode}`, { attributes: { 'remgraph.rem.mode': query.mode } }, async (span) => {
      const result = await this.runMode(ctx, query, source);
      span.setAttribute('remgraph.rem.hits', result.rows?.length ?? result.hits.length);
      return result;
    });
  }

  private async runMode(ctx: AgentContext, query: RemQuery, source: string): Promise<Omit<RemResult, 'mode' | 'tookMs'>> {
    switch (query.mode) {
      case 'LOOKUP':
        return hitsOnly(await this.lookup(ctx, query));
      case 'FUZZY':
        return hitsOnly(await this.fuzzy(ctx, query));
      case 'SEARCH':
        return hitsOnly(await this.search(ctx, query));
      case 'TRAVERSE':
        return hitsOnly(await this.traverse(ctx, query));
      case 'SQL':
        return this.sql(ctx, query, Math.max(0, source.indexOf(query.sql)));
    }
  }

  /** O(1) per key: kv_store by (tenant, key), plus the full content of each row found (rem_lookup_custom, planned once per connection). */
  async lookup(ctx: AgentContext, query: LookupQuery): Promise<RemHit[]> {
    const messageKeys = query.keys.filter((k) => MESSAGE_KEY.test(k));
    const keys = query.keys.filter((k) => !MESSAGE_KEY.test(k));
    const rows = keys.length
      ? await this.deps.sql.query<KvRow & { content: string | null; name: string | null }>(
          `SELECT entity_type, entity_id, entity_key, content_summary, graph_edges, user_id, content, name FROM "rem_lookup_custom"($1, $2, $3::text[])`,
          [ctx.tenantId, ctx.userId, keys],
        )
      : [];
    const hits = new Map<string, RemHit[]>();
    for (const row of rows) {
      const list = hits.get(row.entity_key) ?? [];
      list.push({ ...kvHit(row), name: row.name, content: row.content, score: 1 });
      hits.set(row.entity_key, list);
    }
    // One query for every message key asked; a key names (session, seq).
    const asked = new Map<string, string[]>();
    for (const key of messageKeys) {
      const [, sessionId, seq] = MESSAGE_KEY.exec(key)!;
      const id = `${sessionId}:${Number(seq)}`;
      asked.set(id, [...(asked.get(id) ?? []), key]);
    }
    const messages = asked.size
      ? await this.deps.prisma.message.findMany({
          where: {
            OR: [...asked.keys()].map((id) => ({ sessionId: id.split(':')[0]!, seq: Number(id.split(':')[1]) })),
            session: { tenantId: ctx.tenantId, OR: [{ userId: ctx.userId }, { userId: null }] },
          },
        })
      : [];
    for (const message of messages) {
      for (const key of asked.get(`${message.sessionId}:${message.seq}`) ?? []) {
        hits.set(key, [
          {
            ...emptyHit(),
            id: message.id,
            key,
            entityType: 'messages',
            name: message.type,
            summary: message.content?.slice(0, 1000) ?? null,
            content: message.content,
            score: 1,
          },
        ]);
      }
    }
    // In the order asked; the caller's own row before the shared one.
    return query.keys.flatMap((key) => (hits.get(key) ?? []).sort((a, b) => ownFirst(rows, a, b)));
  }

  /**
   * Keys whose words resemble the text (pg_trgm word_similarity, GIN trigram index on keys): a hit's
   * score is the share of the text's trigrams found in the best-matching run of whole words of its
   * key; hits score at least THRESHOLD, best first. At most `fuzzyCandidates` keys at or above the
   * threshold are ranked, which bounds the ranking; the index scan before it grows with the number of
   * keys that share the text's trigrams.
   */
  async fuzzy(ctx: AgentContext, query: FuzzyQuery): Promise<RemHit[]> {
    const rows = await this.deps.sql.query<KvRow & { score: number }>(
      `SELECT entity_type, entity_id::text AS entity_id, entity_key, content_summary, graph_edges, user_id, score
       FROM "rem_fuzzy_custom"($1, $2, $3, $4::real, $5::int, $6::int)`,
      [ctx.tenantId, ctx.userId, query.text, query.threshold, query.limit, Math.max(query.limit, this.settings.fuzzyCandidates)],
    );
    return rows.map((row) => ({ ...kvHit(row), score: round(row.score) }));
  }

  /**
   * Cosine similarity over the current model's vectors (HNSW index per dimension), one statement;
   * a WHERE filter is applied inside it (the limit counts only rows that pass), as one JSON parameter.
   */
  async search(ctx: AgentContext, query: SearchQuery): Promise<RemHit[]> {
    const { embedded, bounds } = await this.searchArguments(query);
    const rows = await this.deps.sql.query<KvRow & { distance: number; page: number | null }>(
      `SELECT entity_type, entity_id::text AS entity_id, entity_key, content_summary, graph_edges, user_id, distance, page
       FROM "rem_search_custom"($1, $2, $3, $4::int, $5, $6::text[], $7::int, $8::float8, $9::jsonb, $10::int)`,
      [ctx.tenantId, ctx.userId, ...embedded, query.table ? [query.table] : ['entities', 'resources', 'moments'], ...bounds],
    );
    return rows.map((row) => ({ ...kvHit(row), score: round(1 - Number(row.distance)), page: row.page }));
  }

  /**
   * SEARCH over the chunks of ingested files, each found with its text and its file, in one
   * statement; with `filter.corpus`, that statement also tells whether the caller can see the corpus
   * (and searches nothing if not).
   */
  async searchFileChunks(ctx: AgentContext, query: Omit<SearchQuery, 'mode' | 'table'>): Promise<{ corpusVisible: boolean; chunks: FileChunkHit[] }> {
    const { embedded, bounds } = await this.searchArguments(query);
    const rows = await this.deps.sql.query<FileChunkRow>(
      `SELECT corpus_visible, entity_id::text AS entity_id, entity_key, content, distance, page, file_id::text AS file_id, file_key, file_name
       FROM "rem_search_file_chunks_custom"($1, $2, $3, $4::int, $5, $6, $7::int, $8::float8, $9::jsonb, $10::int)`,
      [ctx.tenantId, ctx.userId, ...embedded, FILE_CATEGORY, ...bounds],
    );
    if (rows[0]?.corpus_visible === false) return { corpusVisible: false, chunks: [] };
    return {
      corpusVisible: true,
      chunks: rows.map((row) => ({
        id: row.entity_id!,
        key: row.entity_key!,
        content: row.content ?? '',
        score: round(1 - Number(row.distance)),
        page: row.page,
        file: { id: row.file_id!, key: row.file_key!, name: row.file_name },
      })),
    };
  }

  /** rem_search_custom's arguments: the query's vector, dimension and model; then limit, distance, filter and the exact-rows threshold. */
  private async searchArguments(query: Omit<SearchQuery, 'mode' | 'table'>): Promise<{ embedded: unknown[]; bounds: unknown[] }> {
    const { embedder } = this.deps;
    const [vector] = await embedder.embed([query.text]);
    const minSimilarity = query.minSimilarity ?? this.settings.searchMinSimilarity;
    return {
      embedded: [vectorLiteral(vector!), embedder.dimension, embedder.model],
      bounds: [query.limit, 1 - minSimilarity, query.filter ? JSON.stringify(query.filter) : null, this.settings.searchExactRows ?? SEARCH_EXACT_ROWS],
    };
  }

  /**
   * Breadth-first over graph_edges in one statement (rem_traverse_custom): one indexed kv_store
   * lookup per level inside the database, cycle-safe, bounded by DEPTH and LIMIT.
   */
  async traverse(ctx: AgentContext, query: TraverseQuery): Promise<RemHit[]> {
    const rows = await this.deps.sql.query<KvRow & { path: string[]; rel_type: string; depth: number; score: number }>(
      `SELECT entity_type, entity_id::text AS entity_id, entity_key, content_summary, graph_edges, user_id, path, rel_type, depth, score
       FROM "rem_traverse_custom"($1, $2, $3, $4, $5::int, $6::int)`,
      [ctx.tenantId, ctx.userId, query.from, query.relType?.toLowerCase() ?? null, query.depth, query.limit],
    );
    return rows.map((row) => ({ ...kvHit(row), path: row.path, relType: row.rel_type, depth: row.depth, score: round(row.score) }));
  }

  /** SQL mode (src/rem/sql-mode.ts). */
  sql(ctx: AgentContext, query: SqlQuery, offset = 0): Promise<Omit<RemResult, 'mode' | 'tookMs'>> {
    return runSqlQuery(this.deps, this.settings.sql, ctx, query, offset).then((result) => ({ hits: [], ...result }));
  }
}

function hitsOnly(hits: RemHit[]): Omit<RemResult, 'mode' | 'tookMs'> {
  return { hits, rows: null, truncated: false };
}

function emptyHit(): RemHit {
  return {
    id: '',
    key: '',
    entityType: '',
    name: null,
    summary: null,
    content: null,
    score: null,
    edges: [],
    path: null,
    relType: null,
    depth: null,
    page: null,
  };
}

function kvHit(row: KvRow): RemHit {
  return {
    ...emptyHit(),
    id: row.entity_id,
    key: row.entity_key,
    entityType: row.entity_type,
    summary: row.content_summary,
    edges: edgesOf(row.graph_edges),
  };
}

function ownFirst(rows: KvRow[], a: RemHit, b: RemHit): number {
  const own = (h: RemHit) => (rows.find((r) => r.entity_id === h.id)?.user_id == null ? 1 : 0);
  return own(a) - own(b);
}

function edgesOf(value: unknown): StoredEdge[] {
  const list = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  if (!Array.isArray(list)) return [];
  return list.filter((e): e is StoredEdge => typeof e === 'object' && e !== null && typeof e.dst === 'string' && typeof e.rel_type === 'string');
}

function round(x: number): number {
  return Math.round(Number(x) * 1e6) / 1e6;
}
