/**
 * The REM query dialect's execution: LOOKUP, FUZZY, SEARCH, TRAVERSE and SQL, each scoped to the
 * caller (their rows and the tenant's shared rows, user_id IS NULL) on PGlite and PostgreSQL alike.
 */
import type { Config } from '../config/config.js';
import type { AgentContext } from '../auth/agent-context.js';
import type { Database } from '../db/database.js';
import type { Watchdog } from '../db/pglite-thread.js';
import type { PrismaClient } from '../db/generated/client.js';
import type { SqlClient } from '../db/sql-client.js';
import { isSyntaxOrAccessRuleViolation, SqlState } from '../db/sql-state.js';
import { ForbiddenError, isAppError, LimitExceededError, QuerySyntaxError, ValidationError } from '../errors.js';
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
import { checkSqlQuery, REM_SQL_TABLES } from './sql-guard.js';
import type { SearchFilter } from './search-filter.js';
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
   * threshold are ranked, which bounds the work of one query.
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
    const { embedder } = this.deps;
    const [vector] = await embedder.embed([query.text]);
    const minSimilarity = query.minSimilarity ?? this.settings.searchMinSimilarity;
    const rows = await this.deps.sql.query<KvRow & { distance: number; page: number | null }>(
      `SELECT entity_type, entity_id::text AS entity_id, entity_key, content_summary, graph_edges, user_id, distance, page
       FROM "rem_search_custom"($1, $2, $3, $4::int, $5, $6::text[], $7::int, $8::float8, $9::jsonb, $10::int)`,
      [
        ctx.tenantId,
        ctx.userId,
        vectorLiteral(vector!),
        embedder.dimension,
        embedder.model,
        query.table ? [query.table] : ['entities', 'resources', 'moments'],
        query.limit,
        1 - minSimilarity,
        query.filter ? JSON.stringify(query.filter) : null,
        this.settings.searchExactRows ?? SEARCH_EXACT_ROWS,
      ],
    );
    return rows.map((row) => ({ ...kvHit(row), score: round(1 - Number(row.distance)), page: row.page }));
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

  /**
   * Runs a checked SELECT in a READ ONLY transaction as rem_reader_custom, whose only readable
   * relations are the views of rem_sql_custom, scoped by per-transaction settings that the query
   * cannot change (the guard refuses set_config and SET). Planner cost, time, rows and bytes are
   * capped: PostgreSQL enforces the statement timeout; on PGlite, which cannot interrupt a statement,
   * `interruptAfter` stops the database and reopens it once the time is up.
   */
  async sql(ctx: AgentContext, query: SqlQuery, offset = 0): Promise<Omit<RemResult, 'mode' | 'tookMs'>> {
    const { rowCap, maxCost, maxBytes, statementTimeoutMs, maxSeriesRows } = this.settings.sql;
    await checkSqlQuery(query.sql, offset, { maxSeriesRows });
    // Each row as JSON text with the running total of bytes, so rows past the byte cap leave the
    // database as NULLs, not as the values themselves.
    const wrapped = `SELECT CASE WHEN rem_sql_bytes <= ${maxBytes} THEN rem_sql_row END AS row, rem_sql_bytes::float8 AS bytes
      FROM (SELECT rem_sql_row, sum(octet_length(rem_sql_row)) OVER (ROWS UNBOUNDED PRECEDING) AS rem_sql_bytes
            FROM (SELECT to_json(rem_sql_q)::text AS rem_sql_row FROM (\n${query.sql}\n) AS rem_sql_q LIMIT ${rowCap + 1}) AS rem_sql_rows) AS rem_sql_out`;
    const timeLimit = () =>
      new LimitExceededError(`SQL query stopped: it ran longer than the ${statementTimeoutMs} ms SQL mode allows; add filters or a LIMIT`);
    let watchdog: Watchdog | undefined;
    const rows = await this.deps.prisma
      .$transaction(
        async (tx) => {
          watchdog = this.deps.interruptAfter?.(statementTimeoutMs, timeLimit);
          try {
            await tx.$executeRawUnsafe('SET TRANSACTION READ ONLY');
            await tx.$queryRawUnsafe(
              `SELECT set_config('statement_timeout', $1, true), set_config('search_path', 'rem_sql_custom', true),
                    set_config('standard_conforming_strings', 'on', true),
                    set_config('remgraph.tenant_id', $2, true), set_config('remgraph.user_id', $3, true)`,
              String(statementTimeoutMs),
              ctx.tenantId,
              ctx.userId ?? '',
            );
            await tx.$executeRawUnsafe('SET LOCAL ROLE "rem_reader_custom"');
            const plan = await tx.$queryRawUnsafe<{ 'QUERY PLAN': unknown }[]>(`EXPLAIN (FORMAT JSON) ${wrapped}`);
            const cost = planCost(plan[0]?.['QUERY PLAN']);
            if (cost > maxCost) {
              throw new ForbiddenError(`SQL query refused: its estimated cost ${Math.round(cost)} exceeds the limit ${maxCost}; add filters or a LIMIT`);
            }
            return await tx.$queryRawUnsafe<{ row: string | null; bytes: number }[]>(wrapped);
          } finally {
            watchdog?.disarm();
          }
        },
        { timeout: statementTimeoutMs + 5000, maxWait: 10_000 },
      )
      .catch((error: unknown) => {
        // Prisma wraps what the stopped database answered; the watchdog knows what happened.
        throw watchdog?.fired ? timeLimit() : mapSqlError(error, offset, timeLimit);
      });
    const kept = rows.filter((r, i) => i < rowCap && r.row !== null && r.bytes <= maxBytes);
    const objects = kept.map((r) => JSON.parse(r.row!) as Record<string, unknown>);
    return { hits: [], rows: objects, truncated: kept.length < rows.length };
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

function planCost(plan: unknown): number {
  const parsed = typeof plan === 'string' ? JSON.parse(plan) : plan;
  const cost = (parsed as { Plan?: { 'Total Cost'?: number } }[] | undefined)?.[0]?.Plan?.['Total Cost'];
  return typeof cost === 'number' ? cost : 0;
}

/** PostgreSQL error codes reported by either driver adapter, as our coded errors. */
function mapSqlError(error: unknown, offset: number, timeLimit: () => LimitExceededError): unknown {
  if (isAppError(error)) return error;
  const e = error as {
    code?: string;
    message?: string;
    meta?: { code?: string; message?: string; driverAdapterError?: { cause?: { originalCode?: string; originalMessage?: string; code?: string } } };
  };
  const cause = e.meta?.driverAdapterError?.cause;
  const code = cause?.originalCode ?? e.meta?.code ?? (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code) ? e.code : undefined);
  const message = cause?.originalMessage ?? e.meta?.message ?? e.message ?? 'SQL query failed';
  if (!code) return error;
  const tables = REM_SQL_TABLES.join(', ');
  if (code === SqlState.insufficientPrivilege) return new ForbiddenError(`SQL mode reads only the REM tables (${tables}): ${message}`);
  if (code === SqlState.readOnlySqlTransaction) return new ForbiddenError(`SQL mode is read-only: ${message}`);
  if (code === SqlState.queryCanceled) return timeLimit();
  if (code === SqlState.undefinedTable) return new QuerySyntaxError(`${message}; SQL mode can read ${tables}`, offset, [...REM_SQL_TABLES]);
  if (isSyntaxOrAccessRuleViolation(code)) return new QuerySyntaxError(`SQL error: ${message}`, offset, []);
  return new ValidationError(`SQL query failed: ${message}`, [{ path: ['query'], message }]);
}
