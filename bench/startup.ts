// Start-up time of `remgraph serve` as a separate process, from spawn to "listening":
// first start (empty data directory: create database, apply migrations) and restart.
// Usage: npx tsx bench/startup.ts [runs=3]
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from '../test/support/process.js';
import { freshPostgres, summarize } from './support.js';

const runs = Number(process.argv[2] ?? 3);

async function timeStart(env: Record<string, string>): Promise<number> {
  const started = performance.now();
  const server = await spawnServer(env);
  const ms = performance.now() - started;
  await server.stop('SIGTERM');
  return ms;
}

async function backend(label: string, fresh: () => Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }>) {
  const first: number[] = [];
  const restart: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { env, cleanup } = await fresh();
    try {
      first.push(await timeStart(env));
      restart.push(await timeStart(env));
    } finally {
      await cleanup();
    }
  }
  console.log(JSON.stringify({ bench: 'startup', backend: label, phase: 'first start', unit: 'ms', ...summarize(first) }));
  console.log(JSON.stringify({ bench: 'startup', backend: label, phase: 'restart', unit: 'ms', ...summarize(restart) }));
}

await backend('pglite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'remgraph-bench-'));
  return { env: { DATA_DIR: join(dir, 'data') }, cleanup: () => rm(dir, { recursive: true, force: true }) };
});
await backend('postgres', async () => {
  const db = await freshPostgres('remgraph_bench_start');
  return { env: { DATABASE_URL: db.url }, cleanup: db.drop };
});
process.exit(0);
