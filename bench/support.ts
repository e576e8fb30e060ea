import { spawn } from 'node:child_process';
import pg from 'pg';

/**
 * Starts one of the reference servers (bench/bare-yoga-server.ts, bench/floor-server.ts) in its own process, as remgraph runs in its own;
 * FLOOR_NODE_ARGS passes extra flags to its node (e.g. `--cpu-prof`, to profile it beside remgraph).
 */
export async function startBareServer(script: string, env: Record<string, string> = {}): Promise<{ url: string; pid: number; stop: () => void }> {
  const proc = spawn(process.execPath, [...(process.env.FLOOR_NODE_ARGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout.on('data', (chunk) => {
      const match = /listening on (\S+)/.exec(String(chunk));
      if (match) resolve(match[1]!);
    });
    proc.on('exit', (code) => reject(new Error(`bare server exited ${code}`)));
  });
  return { url, pid: proc.pid!, stop: () => proc.kill() };
}

export const ADMIN_URL = process.env.BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

/** A fresh, empty PostgreSQL database for one benchmark run; `drop()` removes it. */
export async function freshPostgres(prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

export function summarize(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: +percentile(sorted, 50).toFixed(3),
    p99: +percentile(sorted, 99).toFixed(3),
    mean: +(sorted.reduce((a, b) => a + b, 0) / sorted.length).toFixed(3),
  };
}
