import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { once } from 'node:events';
import pg from 'pg';
import WebSocket from 'ws';

/**
 * Starts one of the reference servers (bench/bare-yoga-server.ts, bench/floor-server.ts) in its own process, as remgraph runs in its own;
 * FLOOR_NODE_ARGS passes extra flags to its node (e.g. `--cpu-prof`, to profile it beside remgraph).
 */
export async function startBareServer(
  script: string,
  env: Record<string, string> = {},
): Promise<{ url: string; pid: number; stop: () => void; output: () => string }> {
  const proc = spawn(process.execPath, [...(process.env.FLOOR_NODE_ARGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  proc.stderr.on('data', (chunk) => {
    stderr += chunk;
    process.stderr.write(chunk);
  });
  const url = await new Promise<string>((resolve, reject) => {
    proc.stdout.on('data', (chunk) => {
      const match = /listening on (\S+)/.exec(String(chunk));
      if (match) resolve(match[1]!);
    });
    proc.on('exit', (code) => reject(new Error(`bare server exited ${code}`)));
  });
  return { url, pid: proc.pid!, stop: () => proc.kill(), output: () => stderr };
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

export const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** The middle value; for an even count, the mean of the two middle ones. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const half = sorted.length >> 1;
  return sorted.length % 2 ? sorted[half]! : (sorted[half - 1]! + sorted[half]!) / 2;
}

export function summarize(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: +percentile(sorted, 50).toFixed(3),
    p99: +percentile(sorted, 99).toFixed(3),
    mean: +mean(sorted).toFixed(3),
  };
}

/** CPU time (user + system) a process has used so far, in ms; undefined once it has exited. */
export const cpuMs = (pid: number) => statCpuMs(`/proc/${pid}/stat`);

/**
 * The same for each of a process's threads (Linux), by thread id: the main thread (id = pid) serves
 * requests; the others are PGlite's worker, V8's garbage-collector and compiler helpers, libuv's pool.
 * Threads all share one name, so they are told apart by id only.
 */
export async function threadCpuMs(pid: number): Promise<Map<number, number>> {
  const ids = await readdir(`/proc/${pid}/task`).catch(() => [] as string[]);
  const used = new Map<number, number>();
  for (const id of ids) {
    const ms = await statCpuMs(`/proc/${pid}/task/${id}/stat`);
    if (ms !== undefined) used.set(Number(id), ms);
  }
  return used;
}

async function statCpuMs(path: string): Promise<number | undefined> {
  const stat = await readFile(path, 'utf8').catch(() => undefined);
  const fields = stat?.split(') ')[1]?.split(' ');
  return fields ? ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 : undefined;
}

/** The machine's CPU time so far (Linux `/proc/stat`, all cores), in ms: in all, and idle (waiting for I/O included). */
export async function machineCpuMs(): Promise<{ total: number; idle: number }> {
  const ticks = (await readFile('/proc/stat', 'utf8')).split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is counted in user already)
  const total = ticks.slice(0, 8).reduce((a, b) => a + b, 0);
  return { total: (total * 1000) / 100, idle: ((ticks[3]! + ticks[4]!) * 1000) / 100 };
}

export async function rssKb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

/** Whether a process is PostgreSQL working for `database`: one of its backends, or a shared background process (WAL writer, checkpointer…). */
const postgresVerdicts = new Map<number, string | null>();
async function postgresFor(pid: number): Promise<string | null> {
  if (!postgresVerdicts.has(pid)) {
    const comm = (await readFile(`/proc/${pid}/comm`, 'utf8').catch(() => '')).trim();
    const cmdline = comm === 'postgres' ? (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).replaceAll('\0', ' ') : '';
    // A backend's title is "postgres: <cluster>: <user> <database> <client address> <state>".
    const backend = /^postgres: (?:\S+: )?\S+ (\S+) (?:\d|\[local\])/.exec(cmdline);
    postgresVerdicts.set(pid, comm !== 'postgres' ? null : backend ? backend[1]! : '*');
  }
  return postgresVerdicts.get(pid)!;
}

/** The PostgreSQL processes working for `database`: its backends, and unless `shared` is false the cluster's background processes. */
export async function postgresPids(database: string, { shared = true } = {}): Promise<number[]> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  const verdicts = await Promise.all(pids.map(postgresFor));
  return pids.filter((_, i) => (shared && verdicts[i] === '*') || verdicts[i] === database);
}

/** The inspector address a node started with `--inspect=127.0.0.1:0` printed (its output so far). */
export function inspectorAddress(output: string): string {
  const address = /Debugger listening on (ws:\/\/\S+)/.exec(output)?.[1];
  if (!address) throw new Error("no inspector address in the server's output: start it with --inspect=127.0.0.1:0");
  return address;
}

/** A process's memory after its garbage was collected: `process.memoryUsage()`, and each worker thread's heap. */
export interface MemoryAfterGc extends NodeJS.MemoryUsage {
  /** Heap used by each worker thread's isolate (the embedded database's thread among them), by title, in bytes. */
  workers: Record<string, number>;
}

/**
 * Collects the garbage of the process behind the inspector at `address` and of each of its worker
 * threads (twice: a full GC can leave what a finaliser frees to the next), then reads its
 * `process.memoryUsage()` and each worker's heap, in bytes. A worker's heap is not in the process's
 * `heapUsed`, only in its RSS.
 */
export async function memoryAfterGc(address: string): Promise<MemoryAfterGc> {
  const socket = new WebSocket(address);
  await once(socket, 'open');
  let ids = 0;
  const answers = new Map<number, { resolve: (result: any) => void; reject: (error: Error) => void }>();
  const workers: { sessionId: string; title: string }[] = [];
  socket.on('message', (data) => {
    const message = JSON.parse(String(data));
    if (message.method === 'NodeWorker.attachedToWorker') workers.push({ sessionId: message.params.sessionId, title: message.params.workerInfo.title });
    // A worker's answers come wrapped, with the ids its own calls were sent with.
    const inner = message.method === 'NodeWorker.receivedMessageFromWorker' ? JSON.parse(message.params.message) : message;
    const pending = answers.get(inner.id);
    if (!pending) return;
    answers.delete(inner.id);
    if (inner.error) pending.reject(new Error(inner.error.message));
    else pending.resolve(inner.result);
  });
  const call = (method: string, params: object = {}, sessionId?: string) =>
    new Promise<any>((resolve, reject) => {
      const id = ++ids;
      answers.set(id, { resolve, reject });
      const message = JSON.stringify({ id, method, params });
      socket.send(sessionId ? JSON.stringify({ id: ++ids, method: 'NodeWorker.sendMessageToWorker', params: { sessionId, message } }) : message);
    });
  try {
    await call('NodeWorker.enable', { waitForDebuggerOnStart: false });
    for (let i = 0; i < 2; i++) {
      await call('HeapProfiler.collectGarbage');
      for (const worker of workers) await call('HeapProfiler.collectGarbage', {}, worker.sessionId);
    }
    const { result } = await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true });
    const heaps: Record<string, number> = {};
    for (const worker of workers) heaps[worker.title] = (await call('Runtime.getHeapUsage', {}, worker.sessionId)).usedSize;
    return { ...JSON.parse(result.value), workers: heaps };
  } finally {
    socket.close();
  }
}

/** Waits until the process uses under 5% of a core over half a second (at most `timeoutMs`): the work it was given is done. */
export async function settle(pid: number, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const before = (await cpuMs(pid)) ?? 0;
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (((await cpuMs(pid)) ?? 0) - before < 25) return;
  }
}
