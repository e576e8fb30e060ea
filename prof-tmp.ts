import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startApp } from './src/app.js';
import { loadConfig } from './src/config.js';
import { startFakeOpenAI } from './test/support/fake-openai.js';
const turns = Number(process.argv[2] ?? 100);
const fake = await startFakeOpenAI();
const config = loadConfig({ PORT: '0', LOG_LEVEL: 'warn', DATA_DIR: 'memory://', OPENAI_API_KEY: 'x', OPENAI_BASE_URL: fake.url, LLM_DEFAULT_MODEL: 'openai:fake-model', ...(process.env.DBURL ? { DATABASE_URL: process.env.DBURL } : {}) });
const { openDatabase } = await import('./src/db/database.js');
const db = await openDatabase(config.database);
const counts = new Map<string, { n: number; ms: number }>();
let counting = false;
const prisma = db.prisma.$extends({ query: { async $allOperations({ model, operation, args, query }) {
  if (!counting) return query(args);
  const sql = Array.isArray(args) ? String((args as any)[0]?.join?.('?') ?? '') : (args as any)?.strings?.join('?') ?? '';
  const key = `${model ?? ''}.${operation} ${sql.replace(/\s+/g, ' ').slice(0, 70)}`;
  const t = performance.now(); try { return await query(args); } finally { const c = counts.get(key) ?? { n: 0, ms: 0 }; c.n++; c.ms += performance.now() - t; counts.set(key, c); }
} } }) as any;
const app = await startApp(config, undefined, { database: { ...db, prisma } });
const SEND = 'mutation($c: String!) { sendMessage(input: {content: $c}) { ... on SendMessagePayload { turn { id } } } }';
const EVENTS = 'subscription($t: ID!) { turnEvents(turnId: $t, after: 0) { __typename ... on ContentEvent { delta } } }';
async function one(i: number) {
  const headers = { 'content-type': 'application/json', 'x-user-id': `u${i}`, 'x-tenant-id': 'p' };
  const t0 = performance.now();
  const res = await fetch(app.url, { method: 'POST', headers, body: JSON.stringify({ query: SEND, variables: { c: `go ${i}` } }) });
  const body: any = await res.json();
  const t1 = performance.now();
  const client = createClient({ url: app.url.replace('http', 'ws'), webSocketImpl: WebSocket, connectionParams: headers, retryAttempts: 0 });
  let first = 0;
  await new Promise<void>((resolve, reject) => client.subscribe({ query: EVENTS, variables: { t: body.data.sendMessage.turn.id } }, { next: (r: any) => { if (!first && r.data.turnEvents.__typename === 'ContentEvent') first = performance.now(); }, error: reject, complete: resolve }));
  await client.dispose();
  return { send: t1 - t0, ttft: first - t0 };
}
const run = async (n: number) => { fake.enqueue(...Array.from({ length: n }, () => ({ text: Array.from({ length: 50 }, () => 'x '), delayMs: 20 }))); return Promise.all(Array.from({ length: n }, (_, i) => one(i))); };
await run(10);
counting = true; const session = new Session(); session.connect(); await session.post('Profiler.enable'); await session.post('Profiler.start');
const t = performance.now();
const r = await run(turns);
const { profile } = await session.post('Profiler.stop');
writeFileSync('/tmp/prof/inproc.cpuprofile', JSON.stringify(profile));
const q = (a: number[], p: number) => a.sort((x, y) => x - y)[Math.floor(a.length * p)]!.toFixed(0);
console.log('wall', (performance.now() - t).toFixed(0), 'send p50/p99', q(r.map(x => x.send), 0.5), q(r.map(x => x.send), 0.99), 'ttft p50/p99', q(r.map(x => x.ttft), 0.5), q(r.map(x => x.ttft), 0.99));
for (const [k, v] of [...counts].sort((a, b) => b[1].ms - a[1].ms)) console.log(String(v.n).padStart(6), v.ms.toFixed(0).padStart(8), 'ms', k);
await app.stop(); await fake.close(); process.exit(0);
