// Median latency of `session(id)` over HTTP against a real server, on PGlite and on PostgreSQL.
// Usage: npx tsx bench/session-latency.ts [requests=1000]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp } from '../src/app.js';
import { loadConfig } from '../src/config/config.js';
import { freshPostgres, summarize } from './support.js';

const requests = Number(process.argv[2] ?? 1000);
const headers = { 'content-type': 'application/json', 'x-user-id': 'bench-user', 'x-tenant-id': 'bench' };

async function measure(label: string, env: Record<string, string>) {
  const app = await startApp(loadConfig({ PORT: '0', LOG_LEVEL: 'silent', ...env }));
  try {
    const post = async (query: string, variables: unknown) => {
      const res = await fetch(app.url, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
      return res.json() as Promise<{ data: any; errors?: unknown }>;
    };
    const created = await post('mutation { createSession(input: {name: "bench"}) { ... on CreateSessionSuccess { session { id } } } }', {});
    const id = created.data.createSession.session.id as string;
    const query = 'query($id: ID!) { session(id: $id) { id name updatedAt } }';
    for (let i = 0; i < 50; i++) await post(query, { id });
    const samples: number[] = [];
    for (let i = 0; i < requests; i++) {
      const started = performance.now();
      const body = await post(query, { id });
      samples.push(performance.now() - started);
      if (body.errors) throw new Error(JSON.stringify(body.errors));
    }
    console.log(JSON.stringify({ bench: 'session(id) over HTTP', backend: label, unit: 'ms', ...summarize(samples) }));
  } finally {
    await app.stop();
  }
}

const dir = await mkdtemp(join(tmpdir(), 'remgraph-bench-'));
await measure('pglite', { DATA_DIR: join(dir, 'data') });
await rm(dir, { recursive: true, force: true });
const pgdb = await freshPostgres('remgraph_bench');
try {
  await measure('postgres', { DATABASE_URL: pgdb.url });
} finally {
  await pgdb.drop();
}
process.exit(0);
