// Start-up time of `remgraph serve` as a separate process, from spawn to "listening": first start
// (empty data directory: create database, apply migrations) and restart, for the compiled server
// (`npm start`: node bin/remgraph.js, built beforehand) and for the TypeScript run through tsx
// (`npm run dev`). Besides wall time it reports the CPU time the process had used when it
// listened (user + system, from /proc), which depends far less on what else the machine is doing,
// and the wall time until GET /healthz first answers 200, polled every 10 ms from the spawn on, as
// someone who runs `npm start` and waits for the server measures it (`bench: 'startup-healthz'`;
// `npm start` itself adds npm's own start-up, about 0.2 s of node on top).
// Usage: npx tsx bench/startup.ts [runs=3]   (BENCH_BACKENDS=pglite narrows it)
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt } from '../scripts/build.mjs';
import { spawnServer, type CliEntry } from '../test/support/process.js';
import { freshPostgres, summarize } from './support.js';

const runs = Number(process.argv[2] ?? 3);
const backends = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',');
const TICK_MS = 10; // /proc reports CPU time in clock ticks of 10 ms

/** CPU milliseconds a process has used so far (Linux), or NaN elsewhere. */
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return NaN;
  }
}

/** A port nobody listens on now (the server is given it, so /healthz can be polled before it says where it listens). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Milliseconds from `started` until GET /healthz on `port` answers 200, trying every 10 ms. */
async function untilHealthy(port: number, started: number, give: { up: boolean }): Promise<number> {
  while (!give.up) {
    const ok = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(5_000) }).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ok) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return NaN;
}

interface Sample {
  /** Spawn → "listening" on the server's output. */
  wall: number;
  /** The server process's CPU time when it said so. */
  cpu: number;
  /** Spawn → the first 200 from /healthz. */
  healthy: number;
}

async function timeStart(env: Record<string, string>, entry: CliEntry): Promise<Sample> {
  const port = await freePort();
  const give = { up: false };
  const started = performance.now();
  const healthy = untilHealthy(port, started, give);
  try {
    const server = await spawnServer({ ...env, PORT: String(port) }, 120_000, entry);
    const wall = performance.now() - started;
    const cpu = cpuMs(server.proc.pid!);
    const sample = { wall, cpu, healthy: await healthy };
    await server.stop('SIGTERM');
    return sample;
  } finally {
    give.up = true;
  }
}

async function backend(label: string, entry: CliEntry, fresh: () => Promise<{ env: Record<string, string>; cleanup: () => Promise<void> }>) {
  const samples = { 'first start': [] as Sample[], restart: [] as Sample[] };
  for (let i = 0; i < runs; i++) {
    const { env, cleanup } = await fresh();
    try {
      samples['first start'].push(await timeStart(env, entry));
      samples.restart.push(await timeStart(env, entry));
    } finally {
      await cleanup();
    }
  }
  for (const [phase, list] of Object.entries(samples)) {
    const run = entry === 'compiled' ? 'npm start (compiled)' : 'npm run dev (tsx)';
    console.log(JSON.stringify({ bench: 'startup', backend: label, run, phase, unit: 'ms', ...summarize(list.map((s) => s.wall)) }));
    console.log(JSON.stringify({ bench: 'startup-cpu', backend: label, run, phase, unit: 'ms', ...summarize(list.map((s) => s.cpu)) }));
    console.log(JSON.stringify({ bench: 'startup-healthz', backend: label, run, phase, unit: 'ms', ...summarize(list.map((s) => s.healthy)) }));
  }
}

await ensureBuilt(['server', 'web', 'database']);
for (const entry of ['compiled', 'tsx'] as const) {
  if (backends.includes('pglite')) {
    await backend('pglite', entry, async () => {
      const dir = await mkdtemp(join(tmpdir(), 'remgraph-bench-'));
      return { env: { DATA_DIR: join(dir, 'data') }, cleanup: () => rm(dir, { recursive: true, force: true }) };
    });
  }
  if (backends.includes('postgres')) {
    await backend('postgres', entry, async () => {
      const db = await freshPostgres('remgraph_bench_start');
      return { env: { DATABASE_URL: db.url }, cleanup: db.drop };
    });
  }
}
process.exit(0);
