// Two builds of remgraph compared on the same turns at the same time: what one change costs or saves
// in server CPU per turn. bench/turn-streaming.ts runs its phases on one server after another, so
// load that comes and goes on a shared machine lands on some servers and not others (runs of one
// build differed by ±10-20% there); here both servers run at once and the turns alternate between
// them one by one, so whatever else the machine does falls on both alike. Two copies of one build
// agreed within ±2% on PGlite, within ±7% on PostgreSQL (its backends' CPU comes in 10 ms ticks).
// Each turn is a chat UI's: sendMessage, then a fresh graphql-ws client following the turn from
// seq 0, the fake OpenAI server streaming 50 tokens at once; every turn must end COMPLETED (a turn
// that fails at the model would measure the wrong thing).
// Each directory is a checkout with its server and database template built, e.g. the commit before:
//   git worktree add ../before HEAD~1 && ln -s "$PWD/node_modules" ../before/node_modules
//   (cd ../before && node scripts/generate.mjs && node scripts/build.mjs server database)
// Usage: npx tsx bench/side-by-side.ts <dirA> <dirB> [--backend pglite|postgres] [--turns 500] [--warmup 3000] [--rounds 3] [--serve-args '--workers 1']
//   [--burst 250] [--pause-ms 12000] [--node-args-a=...] [--node-args-b=...] [--env-a=...] [--env-b=...]
// Prints, per round, each server's CPU per turn (on PostgreSQL plus its database's backends) and B ÷ A.
// --burst N runs N turns at once on each server per round (both bursts together) instead of one at a
// time. --pause-ms N leaves both servers idle for N ms before each round: a burst after a quiet
// spell, when idle database connections may have been closed. --node-args-a/-b give one side node
// flags (e.g. a V8 heap setting), --env-a/-b its settings (NAME=value,...): one checkout may then be
// compared with itself. Rounds of one build against itself differed by up to ±5% on a noisy day:
// swap the sides and run again before trusting a smaller difference.
// Set REDIS_URL in the environment to compare with Redis (serve then defaults to a worker per core:
// pass --serve-args '--workers 1' to measure one process).
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startFakeOpenAI } from '../test/support/fake-openai.js';
import { spawnServer } from '../test/support/process.js';
import { cpuMs, freshPostgres, postgresPids } from './support.js';
import { benchServerEnv, runTurn } from './turn-client.js';

const { values: args, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    backend: { type: 'string', default: 'pglite' },
    turns: { type: 'string', default: '500' },
    /** Turns on each server before the rounds: V8 goes on optimising a turn's code for ~3000 turns (see turn-streaming.ts). */
    warmup: { type: 'string', default: '3000' },
    rounds: { type: 'string', default: '3' },
    'serve-args': { type: 'string', default: '' },
    /** Turns at once per round on each server (both bursts run together; tokens 20 ms apart, like turn-streaming's bursts); 0 = one at a time. */
    burst: { type: 'string', default: '0' },
    /** Idle time before each round (e.g. longer than a pool's idle timeout). */
    'pause-ms': { type: 'string', default: '0' },
    /** Extra node flags for each server (e.g. a V8 heap setting on one side only). */
    'node-args-a': { type: 'string', default: '' },
    'node-args-b': { type: 'string', default: '' },
    /** Settings for each server, as `NAME=value,NAME=value` (e.g. EVENT_FLUSH_MS on one side only). */
    'env-a': { type: 'string', default: '' },
    'env-b': { type: 'string', default: '' },
  },
});
if (positionals.length !== 2) throw new Error('usage: npx tsx bench/side-by-side.ts <dirA> <dirB> [options]');
const BURST = Number(args.burst);
const TURNS = BURST || Number(args.turns);

const fake = await startFakeOpenAI();

interface Server {
  url: string;
  pid: number;
  database?: string;
  stop(): Promise<void>;
}

/** `remgraph serve` from the checkout in `dir`, as `npm start` runs it, on a fresh database. */
async function serve(dir: string, nodeArgs: string, settings: string): Promise<Server> {
  const db = args.backend === 'postgres' ? await freshPostgres('remgraph_bench_ab') : undefined;
  const env = {
    ...benchServerEnv(fake.url),
    ...(db ? { DATABASE_URL: db.url } : { DATA_DIR: join(await mkdtemp(join(tmpdir(), 'remgraph-ab-')), 'data') }),
  };
  const server = await spawnServer(
    { ...env, ...settingsOf(settings), NODE_OPTIONS: nodeArgs || undefined },
    undefined,
    'compiled',
    args['serve-args'].split(' ').filter(Boolean),
    resolve(dir),
  );
  return {
    url: server.url,
    pid: server.proc.pid!,
    database: db ? new URL(db.url).pathname.slice(1) : undefined,
    async stop() {
      await server.stop();
      await db?.drop();
    },
  };
}

function settingsOf(list: string): Record<string, string> {
  return Object.fromEntries(
    list
      .split(',')
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
}

/** CPU ms used so far by the server and (on PostgreSQL) its database's backends; the cluster's shared processes work for both servers. */
async function used(server: Server): Promise<number> {
  const pids = server.database ? await postgresPids(server.database, { shared: false }) : [];
  const each = await Promise.all([server.pid, ...pids].map(cpuMs));
  return each.reduce<number>((sum, ms) => sum + (ms ?? 0), 0);
}

async function turn(server: Server, user: string, delayMs = 0) {
  fake.enqueue({ text: Array.from({ length: 50 }, () => 'x '), delayMs });
  const result = await runTurn(server.url, user, 'go');
  if (result.status !== 'COMPLETED') throw new Error(`a turn ended ${result.status}`);
}

const a = await serve(positionals[0]!, args['node-args-a'], args['env-a']);
const b = await serve(positionals[1]!, args['node-args-b'], args['env-b']);
try {
  for (let i = 0; i < Number(args.warmup); i++) {
    await turn(a, 'bench-a');
    await turn(b, 'bench-b');
  }
  for (let round = 0; round < Number(args.rounds); round++) {
    await new Promise((resolve) => setTimeout(resolve, Number(args['pause-ms'])));
    const [a0, b0] = await Promise.all([used(a), used(b)]);
    if (BURST) {
      const each = (server: Server, name: string) => Array.from({ length: BURST }, (_, i) => turn(server, `${name}-${round}-${i}`, 20));
      await Promise.all(round % 2 ? [...each(a, 'a'), ...each(b, 'b')] : [...each(b, 'b'), ...each(a, 'a')]);
    } else {
      for (let i = 0; i < TURNS; i++) {
        // Each goes first half the time.
        const [first, second] = i % 2 ? [a, b] : [b, a];
        await turn(first, first === a ? 'bench-a' : 'bench-b');
        await turn(second, second === a ? 'bench-a' : 'bench-b');
      }
    }
    const [a1, b1] = await Promise.all([used(a), used(b)]);
    const perTurn = (ms: number) => +(ms / TURNS).toFixed(3);
    console.log(
      JSON.stringify({
        bench: 'side-by-side',
        backend: args.backend,
        round,
        turns: TURNS,
        mode: BURST ? `${BURST} at once` : 'one at a time',
        cpuMsPerTurn: { a: perTurn(a1 - a0), b: perTurn(b1 - b0) },
        bOverA: +((b1 - b0) / (a1 - a0)).toFixed(3),
      }),
    );
  }
} finally {
  await Promise.all([a.stop(), b.stop()]);
  await fake.close();
}
