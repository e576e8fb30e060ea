import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { startApp } from './src/app.js';
import { loadConfig } from './src/config.js';
// Server in this process (profiled); fake model in a child process so its cost is not counted.
const fakeUrl = await new Promise<string>((resolve) => {
  const p = spawn(process.execPath, ['--import', 'tsx', '-e', `import('./test/support/fake-openai.ts').then(async (m) => { const f = await m.startFakeOpenAI(); const n = Number(process.env.N); for (let i = 0; i < 100; i++) f.enqueue({ text: Array.from({ length: n }, (_, j) => 'w' + j + ' ') }); console.log('URL ' + f.url); })`], { env: { ...process.env, N: process.argv[2] ?? '5000' }, stdio: ['ignore', 'pipe', 'inherit'] });
  p.stdout.on('data', (d) => { const m = /URL (\S+)/.exec(String(d)); if (m) resolve(m[1]!); });
  process.on('exit', () => p.kill());
});
const app = await startApp(loadConfig({ PORT: '0', LOG_LEVEL: 'warn', DATA_DIR: 'memory://', OPENAI_API_KEY: 'x', OPENAI_BASE_URL: fakeUrl, LLM_DEFAULT_MODEL: 'openai:fake-model', ...(process.env.DBURL ? { DATABASE_URL: process.env.DBURL } : {}) }));
const SEND = 'mutation($c: String!) { sendMessage(input: {content: $c}) { ... on SendMessagePayload { turn { id } } } }';
const EVENTS = 'subscription($t: ID!) { turnEvents(turnId: $t, after: 0) { __typename ... on ContentEvent { delta } } }';
async function one() {
  const headers = { 'content-type': 'application/json', 'x-user-id': 'u', 'x-tenant-id': 'p' };
  const res = await fetch(app.url, { method: 'POST', headers, body: JSON.stringify({ query: SEND, variables: { c: 'go' } }) });
  const body: any = await res.json();
  const client = createClient({ url: app.url.replace('http', 'ws'), webSocketImpl: WebSocket, connectionParams: headers, retryAttempts: 0 });
  let n = 0, first = 0, last = 0;
  await new Promise<void>((resolve, reject) => client.subscribe({ query: EVENTS, variables: { t: body.data.sendMessage.turn.id } }, { next: () => { n++; last = performance.now(); first ||= last; }, error: reject, complete: resolve }));
  await client.dispose();
  return (n / ((last - first) / 1000));
}
console.log('warm', (await one()).toFixed(0));
const session = new Session(); session.connect(); await session.post('Profiler.enable'); await session.post('Profiler.start');
const rate = await one();
const { profile } = await session.post('Profiler.stop');
writeFileSync('/tmp/prof/one.cpuprofile', JSON.stringify(profile));
console.log('events/s', rate.toFixed(0));
await app.stop(); process.exit(0);
