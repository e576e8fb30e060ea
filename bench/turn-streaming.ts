// What a user of a chat UI sees while turns stream, with the fake OpenAI server as the model, for
// remgraph next to a floor measured in the same run: bench/floor-server.ts, the same stack and
// operations with no persistence, auth, routing, memory or history. Every server runs in its own
// process (remgraph as `npm start` would); the fake model and the clients share this one. The
// servers run one after another, each through every phase back to back: a server left idle loses
// much of what its JIT compiled (the floor went from 4.7 to 8.3 ms of CPU per turn after two idle
// minutes, and was at 7.5 ms still 500 turns later), so taking the servers in turn phase by phase,
// which spread the machine's other load over all of them, measured each one half cold. Phases:
//  0. warm-up (always): --warmup turns one at a time right after start, reported on their own (what a
//     fresh server costs until its compilers have caught up; `--warmup 200 --phases none` gives issue
//     41's cold start: the first 200 turns' CPU and latency against the floor's), so the phases below measure the steady
//     state. Tier-up is slow: remgraph's code is compiled by TurboFan over its first ~3000 turns
//     (compile time per 500 turns, from turn 200 on: 1177, 875, 715, 620, 303, 115 ms); the floor's
//     per-turn CPU settles after ~2000;
//  1. rate: one turn whose model streams as fast as it can: content events/s at a graphql-ws client;
//  2. one at a time: turns back to back (50 tokens, no delay): sendMessage → final at the client;
//  3. bursts of 1, 100 and 500 turns at once (50 tokens 20 ms apart, like a fast real model), each
//     followed by its own fresh graphql-ws client that subscribes with `after: 0` right after
//     sendMessage returns: time until sendMessage answers, time to first token from the sendMessage
//     call, token lag (fake model writes a token → client receives it), time until every turn is
//     done, failed turns, peak RSS.
// Each phase also takes the CPU (user + system) the server used, counting the PostgreSQL processes
// serving its database (and PostgreSQL's shared background processes) on that backend; PGlite runs
// inside the server process; the server's main thread alone (the one serving requests: the rest
// is PGlite's worker and V8's garbage-collector and compiler threads); and its busiest other thread
// (PGlite's worker on PGlite). Figures are printed as JSON
// lines with their ratio to the floor, then as one markdown table against the targets of issue 21.
// `--rounds N` runs the whole sequence (the floor, then each backend, every server started afresh) N
// times: a figure's ratio in one run moved between ×1.05 and ×2.03 over eight runs of one build
// (the floor's own CPU per turn in a 500-turn burst between 5.3 and 8.4 ms), so the table then shows
// each figure's median over the rounds and judges the median of the rounds' ratios, each backend
// set against the floor of its own round, with their range.
// Usage: npx tsx bench/turn-streaming.ts [--backends pglite,postgres] [--turns 1,100,500] [--sequential 500] [--warmup 3000] [--phases rate,sequential,burst] [--rate-events 5000] [--rounds 1]
// Profiling the servers: REMGRAPH_CHILD_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof' (see test/support/process.ts), and
// the floor's with FLOOR_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/prof-floor' (see bench/support.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startFakeOpenAI, type FakeOpenAI, type RecordedRequest } from '../test/support/fake-openai.js';
import { spawnServer } from '../test/support/process.js';
import { cpuMs, freshPostgres, median, postgresPids, rssKb, startBareServer, summarize, threadCpuMs } from './support.js';
import { benchServerEnv, now, runTurn } from './turn-client.js';

const { values: args } = parseArgs({
  options: {
    backends: { type: 'string', default: 'pglite,postgres' },
    turns: { type: 'string', default: '1,100,500' },
    sequential: { type: 'string', default: '500' },
    /**
     * Turns one at a time right after start, before the measured phases (reported on their own): V8
     * optimises code a turn runs once over thousands of turns (see above); 200 left remgraph's
     * TurboFan compiling 2-3 ms of CPU per turn in the 'steady' phases, and 20 a third of PGlite's
     * one-at-a-time CPU in the warm-up.
     */
    warmup: { type: 'string', default: '3000' },
    tokens: { type: 'string', default: '50' },
    /** e.g. `sequential,burst` while profiling (see docs/benchmarks.md: REMGRAPH_CHILD_NODE_ARGS). */
    phases: { type: 'string', default: 'rate,sequential,burst' },
    /** Content events of the rate phase's turn; more make a profile of the per-event path clearer. */
    'rate-events': { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '1' },
  },
});
const RATE_EVENTS = Number(args['rate-events']);
const TOKENS_PER_TURN = Number(args.tokens);
const TOKEN_GAP_MS = 20;
const WARMUP_TURNS = Number(args.warmup);
const ROUNDS = Number(args.rounds);
if (!Number.isInteger(ROUNDS) || ROUNDS < 1) {
  console.error(`--rounds takes a whole number from 1, not "${args.rounds}"`);
  process.exit(2);
}

interface Target {
  name: string;
  url: string;
  pid: number;
  /** The PostgreSQL database whose server processes work for this target. */
  database?: string;
  stop(): Promise<unknown>;
}

// ---------------------------------------------------------------------------------------------
// What the server's processes use
// ---------------------------------------------------------------------------------------------

interface Usage<T> {
  result: T;
  serverCpuMs: number;
  /**
   * The server's main thread alone (the one serving requests); the rest of serverCpuMs is its other
   * threads': PGlite's worker, V8's garbage-collector and compiler helpers, libuv's pool.
   */
  mainThreadCpuMs: number;
  /**
   * The busiest of the other threads: on PGlite its worker (which runs every statement), elsewhere
   * a V8 helper. What the remaining threads used is serverCpuMs minus these two.
   */
  busiestOtherThreadCpuMs: number;
  postgresCpuMs: number;
  /** This process's (the fake model's and the clients'): when it nears the wall time, the clients are the bottleneck. */
  clientCpuMs: number;
  peakRssMb: number;
}

/**
 * The CPU the target's processes use and the server's peak RSS while `work` runs. Processes are
 * sampled every 200 ms: a PostgreSQL backend that starts meanwhile counts from zero, and one that
 * exits keeps what it had used when last seen.
 */
async function measure<T>(target: Target, work: () => Promise<T>): Promise<Usage<T>> {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  let peakKb = 0;
  let started = false;
  const sample = async () => {
    const pids = target.database ? await postgresPids(target.database) : [];
    for (const pid of [target.pid, ...pids]) {
      const used = await cpuMs(pid);
      if (used === undefined) continue;
      if (!first.has(pid)) first.set(pid, started ? 0 : used);
      last.set(pid, used);
    }
    peakKb = Math.max(peakKb, await rssKb(target.pid));
  };
  await sample();
  const threadsBefore = await threadCpuMs(target.pid);
  const client = process.cpuUsage();
  started = true;
  let sampling = Promise.resolve();
  const timer = setInterval(() => (sampling = sampling.then(sample)), 200);
  try {
    const result = await work();
    clearInterval(timer);
    await sampling;
    await sample();
    const threads = [...(await threadCpuMs(target.pid))].map(([id, used]) => ({ id, used: used - (threadsBefore.get(id) ?? 0) }));
    const others = threads.filter((thread) => thread.id !== target.pid).map((thread) => thread.used);
    let postgresCpuMs = 0;
    for (const [pid, used] of last) if (pid !== target.pid) postgresCpuMs += used - first.get(pid)!;
    const { user, system } = process.cpuUsage(client);
    return {
      result,
      serverCpuMs: last.get(target.pid)! - first.get(target.pid)!,
      mainThreadCpuMs: threads.find((thread) => thread.id === target.pid)?.used ?? 0,
      busiestOtherThreadCpuMs: Math.max(0, ...others),
      postgresCpuMs,
      clientCpuMs: (user + system) / 1000,
      peakRssMb: Math.round(peakKb / 1024),
    };
  } finally {
    clearInterval(timer);
  }
}

const perTurn = (usage: Usage<unknown>, turns: number) => ({
  cpuMsPerTurn: round((usage.serverCpuMs + usage.postgresCpuMs) / turns),
  serverCpuMsPerTurn: round(usage.serverCpuMs / turns),
  mainThreadCpuMsPerTurn: round(usage.mainThreadCpuMs / turns),
  busiestOtherThreadCpuMsPerTurn: round(usage.busiestOtherThreadCpuMs / turns),
  postgresCpuMsPerTurn: round(usage.postgresCpuMs / turns),
  benchClientCpuMsPerTurn: round(usage.clientCpuMs / turns),
});

// ---------------------------------------------------------------------------------------------
// Phases
// ---------------------------------------------------------------------------------------------

type Figures = Record<string, number | string | Record<string, number>>;

async function rate(target: Target, fake: FakeOpenAI): Promise<Figures> {
  fake.enqueue({ text: Array.from({ length: RATE_EVENTS }, (_, i) => `w${i} `) });
  const usage = await measure(target, () => runTurn(target.url, `bench-rate-${target.name}`, 'go'));
  const tokens = usage.result.tokens;
  return {
    events: tokens.length,
    eventsPerS: Math.round(tokens.length / ((tokens.at(-1)!.at - tokens[0]!.at) / 1000)),
    cpuUsPerEvent: round(((usage.serverCpuMs + usage.postgresCpuMs) * 1000) / tokens.length),
  };
}

async function sequential(target: Target, fake: FakeOpenAI, turns: number): Promise<Figures> {
  const samples: number[] = [];
  const usage = await measure(target, async () => {
    for (let i = 0; i < turns; i++) {
      fake.enqueue({ text: Array.from({ length: TOKENS_PER_TURN }, () => 'x ') });
      const turn = await runTurn(target.url, `bench-seq-${target.name}`, 'go');
      if (turn.status !== 'COMPLETED') throw new Error(`turn ended ${turn.status}`);
      samples.push(turn.doneAt - turn.sentAt);
    }
  });
  return { turns, turnMs: pick(summarize(samples)), ...perTurn(usage, turns) };
}

async function burst(target: Target, fake: FakeOpenAI, turns: number): Promise<Figures> {
  // Each model call records when it arrived; its content says which turn it belongs to.
  const arrivals = new Map<string, number>();
  const script = (request: RecordedRequest) => {
    arrivals.set(String(request.body.messages.at(-1).content), now());
    return { text: Array.from({ length: TOKENS_PER_TURN }, () => 'x '), delayMs: TOKEN_GAP_MS, stampContent: true };
  };
  fake.enqueue(...Array.from({ length: turns }, () => script));
  const run = `${target.name}-${turns}-${Date.now()}`;
  const startedAt = now();
  const usage = await measure(target, () =>
    Promise.allSettled(Array.from({ length: turns }, (_, i) => runTurn(target.url, `bench-${run}-${i}`, `go ${run} ${i}`))),
  );
  const settled = usage.result;
  const ok = settled.flatMap((r, i) => (r.status === 'fulfilled' && r.value.status === 'COMPLETED' ? [{ turn: r.value, content: `go ${run} ${i}` }] : []));
  const failures = settled.flatMap((r) =>
    r.status === 'rejected' ? [String(r.reason).slice(0, 200)] : r.value.status !== 'COMPLETED' ? [`status ${r.value.status}`] : [],
  );
  const lag = ok.flatMap(({ turn }) => turn.tokens.map((t) => t.at - Number(t.delta.trim())));
  const ttft = ok.map(({ turn }) => turn.firstTokenAt - turn.sentAt);
  // The model's own share of the wait for the first token: request arrival → first token written.
  const ttftAboveModel = ok.map(({ turn, content }) => turn.firstTokenAt - turn.sentAt - (Number(turn.tokens[0]!.delta.trim()) - arrivals.get(content)!));
  return {
    turns,
    failed: failures.length,
    ...(failures.length ? { firstFailure: failures[0]! } : {}),
    turnsWithMissingTokens: ok.filter(({ turn }) => turn.tokens.length !== TOKENS_PER_TURN).length,
    // How much of the wait for the first token is sendMessage's (remgraph stores the turn before it answers; the floor stores nothing).
    sendMessageMs: pick(summarize(ok.map(({ turn }) => turn.answeredAt - turn.sentAt))),
    ttftMs: pick(summarize(ttft)),
    ttftAboveModelMs: pick(summarize(ttftAboveModel)),
    tokenLagMs: pick(summarize(lag)),
    allDoneMs: Math.round(Math.max(...ok.map(({ turn }) => turn.doneAt)) - startedAt),
    peakRssMb: usage.peakRssMb,
    ...perTurn(usage, turns),
  };
}

const round = (n: number) => +n.toFixed(n < 10 ? 2 : 1);
const pick = (s: ReturnType<typeof summarize>) => ({ p50: round(s.p50), p99: round(s.p99), n: s.n });

// ---------------------------------------------------------------------------------------------
// Report
// ---------------------------------------------------------------------------------------------

/** A figure read from a phase's results, and what issue 21 asks of it next to the floor. */
interface Row {
  phase: string;
  label: string;
  value: (f: any) => number;
  /** `mb: null`: shown above the floor, with no target. */
  target:
    { kind: 'at most ×'; factor: number } | { kind: 'at least ×'; factor: number } | { kind: 'at most floor +'; mb: number | null } | { kind: 'zero' } | null;
}

/**
 * Each burst's phase name: a size given again (`--turns 100,100,500`: the second on a pool the first
 * has warmed) is a phase of its own, set against the floor's burst of the same place.
 */
function burstPhases(turnCounts: number[]): [string, number][] {
  return turnCounts.map((n, i) => {
    const before = turnCounts.slice(0, i).filter((m) => m === n).length;
    return [before ? `burst ${n} #${before + 1}` : `burst ${n}`, n];
  });
}

function rows(turnCounts: number[]): Row[] {
  const cold: Row['target'] = WARMUP_TURNS === 200 ? { kind: 'at most ×', factor: 1.5 } : null;
  const list: Row[] = [
    // Issue 41's cold start: the first 200 turns after a start (`--warmup 200`) within 1.5× of the floor's.
    { phase: 'warm-up', label: `first ${WARMUP_TURNS} turns after start, one at a time: CPU ms/turn`, value: (f) => f.cpuMsPerTurn, target: cold },
    { phase: 'warm-up', label: `first ${WARMUP_TURNS} turns after start: main thread CPU ms/turn`, value: (f) => f.mainThreadCpuMsPerTurn, target: null },
    { phase: 'warm-up', label: `first ${WARMUP_TURNS} turns after start: sendMessage → final p50 ms`, value: (f) => f.turnMs.p50, target: cold },
    { phase: 'rate', label: 'one turn, model at full speed: content events/s', value: (f) => f.eventsPerS, target: { kind: 'at least ×', factor: 0.8 } },
    { phase: 'rate', label: 'one turn, model at full speed: CPU µs/event', value: (f) => f.cpuUsPerEvent, target: null },
    {
      phase: 'sequential',
      label: 'one at a time: CPU ms/turn (server + PostgreSQL)',
      value: (f) => f.cpuMsPerTurn,
      target: { kind: 'at most ×', factor: 1.5 },
    },
    { phase: 'sequential', label: 'one at a time: main thread CPU ms/turn', value: (f) => f.mainThreadCpuMsPerTurn, target: null },
    { phase: 'sequential', label: 'one at a time: busiest other thread CPU ms/turn', value: (f) => f.busiestOtherThreadCpuMsPerTurn, target: null },
    { phase: 'sequential', label: 'one at a time: sendMessage → final p50 ms', value: (f) => f.turnMs.p50, target: null },
  ];
  for (const [phase, n] of burstPhases(turnCounts)) {
    const big = n >= 100;
    const at = `${phase.slice('burst '.length)} at once`;
    list.push(
      {
        phase,
        label: `${at}: CPU ms/turn (server + PostgreSQL)`,
        value: (f) => f.cpuMsPerTurn,
        target: big ? { kind: 'at most ×', factor: 1.5 } : null,
      },
      { phase, label: `${at}: main thread CPU ms/turn`, value: (f) => f.mainThreadCpuMsPerTurn, target: null },
      { phase, label: `${at}: busiest other thread CPU ms/turn`, value: (f) => f.busiestOtherThreadCpuMsPerTurn, target: null },
      { phase, label: `${at}: sendMessage answered p50 ms`, value: (f) => f.sendMessageMs.p50, target: null },
      { phase, label: `${at}: sendMessage answered p99 ms`, value: (f) => f.sendMessageMs.p99, target: null },
      { phase, label: `${at}: first token p99 ms`, value: (f) => f.ttftMs.p99, target: big ? { kind: 'at most ×', factor: 1.5 } : null },
      { phase, label: `${at}: token lag p99 ms`, value: (f) => f.tokenLagMs.p99, target: big ? { kind: 'at most ×', factor: 1.5 } : null },
      { phase, label: `${at}: all done ms`, value: (f) => f.allDoneMs, target: big ? { kind: 'at most ×', factor: 1.5 } : null },
      { phase, label: `${at}: failed turns`, value: (f) => f.failed, target: { kind: 'zero' } },
      { phase, label: `${at}: peak RSS MB`, value: (f) => f.peakRssMb, target: { kind: 'at most floor +', mb: n >= 500 ? 300 : null } },
    );
  }
  return list;
}

/**
 * A backend's figure against the floor's over the rounds (one value a round each): the median
 * value, and the verdict on the median of the rounds' ratios (on the worst round for failures),
 * with the rounds' range when there are several.
 */
function cell(row: Row, values: number[], floors: number[]): string {
  const t = row.target;
  if (t?.kind === 'zero') {
    const worst = Math.max(...values);
    return `${worst} | ${worst === 0 ? '✓' : '✗'}`;
  }
  const shown = `${round(median(values))} | `;
  if (t?.kind === 'at most floor +') {
    const above = median(values.map((value, i) => value - floors[i]!));
    return `${shown}+${above}${t.mb === null ? '' : above <= t.mb ? ' ✓' : ' ✗'}`;
  }
  const ratios = values.flatMap((value, i) => (floors[i] ? [value / floors[i]!] : []));
  if (!ratios.length) return `${shown}×–`;
  const ratio = median(ratios);
  const range = ratios.length > 1 ? ` (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})` : '';
  const met = !t ? null : t.kind === 'at most ×' ? ratio <= t.factor : ratio >= t.factor;
  return `${shown}×${ratio.toFixed(2)}${range}${met === null ? '' : met ? ' ✓' : ' ✗'}`;
}

function describe(target: Row['target']): string {
  if (!target) return '';
  if (target.kind === 'zero') return '0';
  if (target.kind === 'at most floor +') return target.mb === null ? '' : `≤ floor + ${target.mb}`;
  return `${target.kind === 'at most ×' ? '≤' : '≥'} ${target.factor}× floor`;
}

function table(rounds: Map<string, Map<string, Figures>>[], backends: string[], turnCounts: number[]): string {
  const head = `| figure | target | floor | ${backends.map((b) => `${b} | vs floor`).join(' | ')} |`;
  const rule = `|---|---|---:|${backends.map(() => '---:|---:').join('|')}|`;
  const body = rows(turnCounts)
    .filter((row) => rounds[0]!.get('floor')!.has(row.phase))
    .map((row) => {
      const of = (server: string) => rounds.map((results) => row.value(results.get(server)!.get(row.phase)));
      const floors = of('floor');
      return `| ${row.label} | ${describe(row.target)} | ${round(median(floors))} | ${backends.map((b) => cell(row, of(b), floors)).join(' | ')} |`;
    });
  return [head, rule, ...body].join('\n');
}

/** Each figure of a backend next to the floor's: backend ÷ floor for numbers, nested p50/p99 alike; memory as MB above the floor. */
function ratios(figures: Figures, floor: Figures): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(figures)) {
    const base = floor[key];
    if (key === 'peakRssMb') out.peakRssAboveFloorMb = (value as number) - (base as number);
    else if (typeof value === 'number' && typeof base === 'number' && base !== 0 && key !== 'turns' && key !== 'events') out[key] = +(value / base).toFixed(2);
    else if (typeof value === 'object' && typeof base === 'object')
      out[key] = { p50: +(value.p50! / base.p50!).toFixed(2), p99: +(value.p99! / base.p99!).toFixed(2) };
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Run
// ---------------------------------------------------------------------------------------------

async function startTarget(name: string, modelUrl: string): Promise<Target> {
  if (name === 'floor') {
    const floor = await startBareServer('bench/floor-server.ts', { OPENAI_BASE_URL: modelUrl });
    return { name, url: floor.url, pid: floor.pid, stop: async () => floor.stop() };
  }
  const modelEnv = benchServerEnv(modelUrl);
  if (name === 'postgres') {
    const db = await freshPostgres('remgraph_bench_turns');
    const server = await spawnServer({ ...modelEnv, DATABASE_URL: db.url }, undefined, 'compiled');
    return { name, url: server.url, pid: server.proc.pid!, database: new URL(db.url).pathname.slice(1), stop: () => server.stop().finally(db.drop) };
  }
  // As `npm start` runs it: PGlite in a data directory on disk.
  const dir = await mkdtemp(join(tmpdir(), 'remgraph-bench-turns-'));
  const server = await spawnServer({ ...modelEnv, DATA_DIR: join(dir, 'data') }, undefined, 'compiled');
  return { name, url: server.url, pid: server.proc.pid!, stop: () => server.stop().finally(() => rm(dir, { recursive: true, force: true })) };
}

const backends = args.backends.split(',');
const turnCounts = args.turns.split(',').map(Number);
const fake = await startFakeOpenAI();
const rounds: Map<string, Map<string, Figures>>[] = [];
let running: Target | undefined;
try {
  const wanted = new Set(args.phases.split(','));
  const phases: [string, (t: Target) => Promise<Figures>][] = [
    ['warm-up', (t: Target) => sequential(t, fake, WARMUP_TURNS)],
    ...(wanted.has('rate') ? [['rate', (t: Target) => rate(t, fake)] as [string, (t: Target) => Promise<Figures>]] : []),
    ...(wanted.has('sequential')
      ? [['sequential', (t: Target) => sequential(t, fake, Number(args.sequential))] as [string, (t: Target) => Promise<Figures>]]
      : []),
    ...(wanted.has('burst') ? burstPhases(turnCounts).map(([phase, n]): [string, (t: Target) => Promise<Figures>] => [phase, (t) => burst(t, fake, n)]) : []),
  ];
  for (let n = 1; n <= ROUNDS; n++) {
    const results = new Map<string, Map<string, Figures>>();
    rounds.push(results);
    for (const name of ['floor', ...backends]) {
      const target = (running = await startTarget(name, fake.url));
      const byPhase = new Map<string, Figures>();
      results.set(name, byPhase);
      for (const [phase, run] of phases) {
        const figures = await run(target);
        byPhase.set(phase, figures);
        const floor = results.get('floor')!.get(phase)!;
        console.log(
          JSON.stringify({
            bench: 'turn-streaming',
            ...(ROUNDS > 1 ? { round: n } : {}),
            phase,
            server: name,
            ...figures,
            ...(name === 'floor' ? {} : { vsFloor: ratios(figures, floor) }),
          }),
        );
      }
      running = undefined;
      await target.stop();
    }
  }
  console.log(`\n${ROUNDS > 1 ? `medians of ${ROUNDS} rounds; ratios: median of the rounds' (their range)\n` : ''}${table(rounds, backends, turnCounts)}`);
} finally {
  await running?.stop();
  await fake.close();
}
process.exit(0);
