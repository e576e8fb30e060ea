/**
 * Work per REM query, independent of how busy the machine is: shared-buffer pages touched (hits +
 * reads, from pg_stat_database) per LOOKUP, FUZZY, SEARCH and TRAVERSE call, and the database-side
 * execution time, on PostgreSQL databases of different sizes holding bench/rem.ts-style memory.
 * Pages per query is what the contracts are about: flat for LOOKUP, bounded by the candidate cap
 * for FUZZY, sub-linear for SEARCH (HNSW), proportional to the hits for TRAVERSE.
 *
 *   BENCH_DATABASE_URLS=postgresql://…/a,postgresql://…/b npx tsx bench/rem-work.ts
 */
import pg from 'pg';
import { HashedLexicalEmbedder } from '../src/rem/embeddings/hashed-lexical.js';
import { vectorLiteral } from '../src/rem/embeddings/provider.js';

const URLS = (process.env.BENCH_DATABASE_URLS ?? '').split(',').filter(Boolean);
const CALLS = Number(process.env.BENCH_CALLS ?? 50);
const TENANT = 'bench';
const USER = 'bench-user';

function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

async function pages(admin: pg.Client, db: string): Promise<number> {
  const row = (await admin.query('SELECT blks_hit + blks_read AS n FROM pg_stat_database WHERE datname = $1', [db])).rows[0];
  return Number(row.n);
}

for (const url of URLS) {
  const db = new URL(url).pathname.slice(1);
  const client = new pg.Client(url);
  const admin = new pg.Client(url);
  await client.connect();
  await admin.connect();
  const size = Number((await client.query('SELECT count(*) AS n FROM kv_store WHERE tenant_id = $1', [TENANT])).rows[0].n);
  const keys = (await client.query('SELECT entity_key AS k FROM kv_store TABLESAMPLE SYSTEM (1) WHERE tenant_id = $1 LIMIT 500', [TENANT])).rows.map(
    (r) => r.k as string,
  );
  const words = [...new Set(keys.flatMap((k) => k.split('-').filter((w) => !/^\d+$/.test(w))))];
  const random = rng(7);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  const typo = (w: string) => (w.length > 4 ? w.slice(0, 2) + w.slice(3) : `${w}x`);
  const embedder = new HashedLexicalEmbedder();
  const vector = async () => vectorLiteral((await embedder.embed([`${pick(words)} ${pick(words)} ${pick(words)}`]))[0]!);
  const searchVectors = await Promise.all(Array.from({ length: CALLS + 5 }, vector));
  const modes: Record<string, () => [string, unknown[]]> = {
    LOOKUP: () => [
      'SELECT * FROM kv_store kv WHERE kv.entity_key = ANY($3::text[]) AND kv.tenant_id = $1 AND (kv.user_id = $2 OR kv.user_id IS NULL)',
      [TENANT, USER, [pick(keys)]],
    ],
    FUZZY: () => ['SELECT * FROM rem_fuzzy_custom($1, $2, $3, 0.5, 10, 200)', [TENANT, USER, `${typo(pick(words))} ${pick(words)}`]],
    SEARCH: () => [
      `SELECT * FROM rem_search_custom($1, $2, $3, 384, 'hashed-lexical-v1', ARRAY['entities'], 10, 0.9, NULL, 2000)`,
      [TENANT, USER, pick(searchVectors)],
    ],
    TRAVERSE: () => ['SELECT * FROM rem_traverse_custom($1, $2, $3, NULL, 3, 100)', [TENANT, USER, pick(keys)]],
  };
  for (const [mode, make] of Object.entries(modes)) {
    for (let i = 0; i < 5; i++) await client.query(...make()); // warm the cache
    await client.query('SELECT pg_stat_force_next_flush()');
    await client.query('SELECT 1');
    await new Promise((r) => setTimeout(r, 200));
    const before = await pages(admin, db);
    const times: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const [sql, params] = make();
      const explained = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
      times.push(explained.rows[0]['QUERY PLAN'][0]['Execution Time']);
    }
    await client.query('SELECT pg_stat_force_next_flush()');
    await client.query('SELECT 1');
    await new Promise((r) => setTimeout(r, 200));
    const touched = (await pages(admin, db)) - before;
    times.sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        bench: 'rem-work',
        entities: size,
        mode,
        calls: CALLS,
        pagesPerCall: Math.round(touched / CALLS),
        dbExecMsP50: +times[Math.floor(CALLS / 2)]!.toFixed(2),
        dbExecMsP99: +times[Math.ceil(CALLS * 0.99) - 1]!.toFixed(2),
      }),
    );
  }
  await client.end();
  await admin.end();
}
