import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IngestDocument, UpsertEntityDocument } from '../generated/graphql.js';
import { HashedLexicalEmbedder } from '../../src/rem/embeddings/hashed-lexical.js';
import { reembed } from '../../src/rem/memory/reembed.js';
import { TableStats } from '../../src/rem/table-stats.js';
import { contextOf, newUser } from '../support/client.js';
import { backend, startTestServer, type TestServer } from '../support/server.js';

// PGlite has no autovacuum: bulk memory writes past REM_ANALYZE_AFTER_ROWS run ANALYZE themselves,
// so the planner sees the rows ingest wrote (on PostgreSQL the same ANALYZE merely comes early).

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ REM_ANALYZE_AFTER_ROWS: '50' });
});
afterAll(async () => {
  await server?.stop();
});

interface Stats {
  relname: string;
  reltuples: number;
  analyzed: Date | null;
}

async function stats(): Promise<Map<string, Stats>> {
  const rows = await server.db.prisma.$queryRawUnsafe<Stats[]>(
    `SELECT c.relname, c.reltuples::float8 AS reltuples, s.last_analyze AS analyzed
       FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid
      WHERE c.relname IN ('entities', 'embeddings', 'kv_store', 'resources')`,
  );
  return new Map(rows.map((r) => [r.relname, r]));
}

const entities = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({ entity: { key: `stats ${from + i}`, content: `row number ${from + i}` } }));

describe('planner statistics after bulk writes', () => {
  it('ingest past REM_ANALYZE_AFTER_ROWS analyzes the tables it wrote, and only those', async () => {
    const alice = newUser(server.url);
    const before = await stats();
    if (backend() === 'pglite') expect(before.get('entities')!.reltuples).toBe(-1);

    await alice.data(IngestDocument, { items: entities(0, 40) });
    // The PostgreSQL database is shared by every suite of the run, whose bulk writes may ANALYZE it
    // meanwhile: what was not analyzed is checked on PGlite, whose database is this server's own.
    const pglite = backend() === 'pglite';
    const below = await stats();
    if (pglite) for (const table of ['entities', 'embeddings', 'kv_store']) expect(below.get(table)!.analyzed, table).toBeNull();

    await alice.data(IngestDocument, { items: entities(40, 20) });
    const after = await stats();
    for (const table of ['entities', 'embeddings', 'kv_store']) {
      const analyzed = after.get(table)!.analyzed;
      expect(analyzed, table).not.toBeNull();
      expect(analyzed!.getTime(), table).toBeGreaterThan(before.get(table)!.analyzed?.getTime() ?? 0);
      expect(after.get(table)!.reltuples, table).toBeGreaterThanOrEqual(60);
    }
    if (pglite) expect(after.get('resources')!.analyzed).toBeNull();
  });

  it('counts single upserts too: rows written one at a time past the threshold analyze their tables', async () => {
    const bob = newUser(server.url);
    const before = (await stats()).get('entities')!;
    // The first test analyzed entities at about 60 rows: the next ANALYZE is due after 50 more writes.
    // On PostgreSQL other suites fill the shared table meanwhile (the imports of 3,000 rows), and the next
    // one is due after 10% of the rows its last ANALYZE counted, as autovacuum would.
    const due = backend() === 'pglite' ? 50 : Math.max(50, Math.round(before.reltuples * 0.1));
    for (let i = 0; i < due - 1; i++) {
      const data = await bob.data(UpsertEntityDocument, { input: { key: `single ${i}`, content: `written alone ${i}` } });
      expect(data.upsertEntity.__typename).toBe('UpsertEntitySuccess');
    }
    if (backend() === 'pglite') expect((await stats()).get('entities')!.analyzed).toEqual(before.analyzed);
    await bob.data(UpsertEntityDocument, { input: { key: `single ${due - 1}`, content: `written alone ${due - 1}` } });
    const after = (await stats()).get('entities')!;
    expect(after.analyzed!.getTime()).toBeGreaterThan(before.analyzed!.getTime());
    expect(after.reltuples).toBeGreaterThanOrEqual(110);
  });

  it('reembed analyzes embeddings once the vectors it wrote pass the threshold', async () => {
    const alice = newUser(server.url);
    await alice.data(IngestDocument, { items: entities(100, 30) });
    const before = await stats();
    const v2 = { prisma: server.db.prisma, embedder: new HashedLexicalEmbedder(256, 'hashed-lexical-v2'), stats: new TableStats(server.db.prisma, 25) };
    const progress: number[] = [];
    const result = await reembed(v2, contextOf(alice), { batchSize: 10, onProgress: (p) => void progress.push(p.embedded) });
    expect(result.embedded).toBe(30);
    expect(progress).toEqual([10, 20, 30]);
    const after = await stats();
    expect(after.get('embeddings')!.analyzed!.getTime()).toBeGreaterThan(before.get('embeddings')!.analyzed?.getTime() ?? 0);
    if (backend() === 'pglite') expect(after.get('entities')!.analyzed).toEqual(before.get('entities')!.analyzed);
  });
});
