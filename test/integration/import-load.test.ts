import { describe, expect, it, afterAll, beforeAll } from 'vitest';
import { userContext } from '../../src/auth/agent-context.js';
import { loadConfig } from '../../src/config/config.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { applyMigrations } from '../../src/db/migrations.js';
import type { SqlClient } from '../../src/db/sql-client.js';
import { createEmbeddingProvider } from '../../src/rem/embeddings/create.js';
import { importMemory, type ImportSettings } from '../../src/rem/import/import-memory.js';
import { textSource } from '../../src/rem/import/jsonl.js';
import { ValidationError } from '../../src/errors.js';
import { ownPostgresDatabase } from '../support/own-database.js';
import { backend, tempDataDir } from '../support/server.js';

// The load of a large import: on PostgreSQL by COPY in each batch's transaction, on PGlite as one
// JSON parameter; with the vector and GIN indexes dropped meanwhile and built again after. Its own
// database, so that what the import finds there (and so whether it rebuilds) is known.

const TENANT = 'load-test';
/** Text COPY's format must escape (tab, newline, carriage return, backslash, its null marker `\N`, its end marker `\.`), and more. */
const AWKWARD = 'tab\there, line\nbreak, cr\rreturn, back\\slash, \\N, \\.\n\\., "quotes", ünïcødé ✓';
const SETTINGS: ImportSettings = { batchSize: 250, reindexThreshold: 1000 };
const INDEXES = ['embeddings_hnsw_384_custom', 'entities_tags_idx', 'resources_tags_idx', 'moments_tags_idx', 'kv_store_entity_key_trgm_idx'];

const line = (i: number) =>
  i % 500 === 7
    ? JSON.stringify({
        moment: {
          key: `moment-${i}`,
          name: `Moment ${i}`,
          content: AWKWARD,
          startsAt: '2026-03-01T10:00:00.123Z',
          tags: [AWKWARD],
          metadata: { note: AWKWARD },
        },
      })
    : JSON.stringify({
        entity: { key: `thing-${i}`, name: `Thing ${i}`, content: i % 100 === 3 ? AWKWARD : `Thing ${i} is number ${i}.`, tags: [`t${i % 10}`] },
      });

let db: Database;
let drop = async () => {};
const copies: number[] = [];

beforeAll(async () => {
  let url = '';
  if (backend() === 'postgres') {
    const own = await ownPostgresDatabase('remgraph_import_load');
    url = own.url;
    drop = own.drop;
  }
  db = await openDatabase({ url, dataDir: url ? '' : await tempDataDir() });
  await applyMigrations(db);
}, 120_000);
afterAll(async () => {
  await db?.close();
  await drop();
});

/** The database's SQL client, counting the rows each COPY sends. */
function countingCopies(sql: SqlClient): SqlClient {
  if (!sql.copyIn) return sql;
  const copyIn = sql.copyIn.bind(sql);
  return { query: (text, params) => sql.query(text, params), copyIn: (script, rows) => (copies.push(rows.length), copyIn(script, rows)) };
}

const run = (text: string, fromLine = 1, onProgress?: () => Promise<void>) => {
  const embedder = createEmbeddingProvider(loadConfig({ EMBEDDING_DIMENSION: '384' }).rem.embedding);
  const deps = { prisma: db.prisma, sql: countingCopies(db.sql), backend: db.backend, embedder };
  return importMemory(deps, { ...userContext(TENANT, 'loader'), isAdmin: true }, textSource('load.jsonl', text), SETTINGS, { fromLine, onProgress });
};

const count = async (sql: string, ...params: unknown[]) => (await db.sql.query<{ n: number }>(sql, params))[0]!.n;

describe('the load of a large import', () => {
  it(
    'stops at a bad line in the middle with the lines before it written, resumes, and leaves every index built and every value as given',
    { timeout: 300_000 },
    async () => {
      const lines = Array.from({ length: 3000 }, (_, i) => line(i + 1));
      lines[1799] = JSON.stringify({ entity: { key: '!!!', name: 'bad' } });
      const text = `${lines.join('\n')}\n`;

      const indexes = () => count(`SELECT count(*)::int AS n FROM pg_indexes WHERE indexname = ANY($1)`, INDEXES);
      const during = new Set<number>();
      const stopped = await run(text, 1, async () => void during.add(await indexes())).catch((error: unknown) => error);
      expect(stopped).toBeInstanceOf(ValidationError);
      expect((stopped as ValidationError).message).toBe('line 1800: entity.key: must contain letters or digits');
      const rows = `SELECT ((SELECT count(*) FROM entities) + (SELECT count(*) FROM moments))::int AS n`;
      expect(await count(rows)).toBe(1799);
      expect(await count(`SELECT count(*)::int AS n FROM embeddings`)).toBe(1799);
      expect(await indexes()).toBe(INDEXES.length);
      // On PostgreSQL every batch before the bad line came by COPY, whole.
      if (backend() === 'postgres') expect(copies.reduce((a, b) => a + b, 0)).toBe(1799);
      else expect(copies).toEqual([]);
      expect([...during]).toEqual([0]);

      copies.length = 0;
      const resumed = await run(text, 1801);
      // Fewer rows than the index now holds: kept and maintained row by row this time.
      expect(resumed).toMatchObject({ rows: 1200, reindexed: false });
      expect(await count(rows)).toBe(2999);
      expect(await count(`SELECT count(*)::int AS n FROM embeddings`)).toBe(2999);
      expect(await count(`SELECT count(*)::int AS n FROM kv_store`)).toBe(2999);
      expect(await indexes()).toBe(INDEXES.length);
      if (backend() === 'postgres') expect(copies.reduce((a, b) => a + b, 0)).toBe(1200);
      else expect(copies).toEqual([]);

      const [awkward] = await db.sql.query<{ content: string; tags: string[]; metadata: unknown; startsAt: Date }>(
        `SELECT content, tags, metadata, starts_at AS "startsAt" FROM moments WHERE key = 'moment-2507'`,
      );
      expect(awkward).toEqual({ content: AWKWARD, tags: [AWKWARD], metadata: { note: AWKWARD }, startsAt: new Date('2026-03-01T10:00:00.123Z') });
      expect(await count(`SELECT count(*)::int AS n FROM entities WHERE content = $1`, AWKWARD)).toBe(30);
      expect(await count(`SELECT count(*)::int AS n FROM entities WHERE content IS NULL`)).toBe(0);
      expect(await count(`SELECT count(*)::int AS n FROM entities WHERE tags @> ARRAY['t4']`)).toBe(300);
    },
  );

  it.runIf(backend() === 'postgres')(
    'a batch the server refuses, before or inside its COPY, fails (it does not wait forever) and leaves the client usable',
    { timeout: 60_000 },
    async () => {
      const rows = Array.from({ length: 5000 }, (_, i) => `${i}\t${'x'.repeat(200)}\n`);
      const script = (before: string, type: string) =>
        `BEGIN; ${before} CREATE TEMPORARY TABLE refused (a int, b ${type}) ON COMMIT DROP; COPY refused FROM STDIN; COMMIT`;
      await expect(db.sql.copyIn!(script('SELECT 1/0;', 'text'), rows)).rejects.toThrow('division by zero');
      await expect(db.sql.copyIn!(script('', 'int'), rows)).rejects.toThrow('invalid input syntax for type integer');
      await db.sql.copyIn!(script('', 'text'), rows);
      expect(await count(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`)).toBe(0);
    },
  );
});
