import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { caller, collect, newUser, wsClient } from '../support/client.js';
import { spawnServer, type ServerProcess } from '../support/process.js';
import { tempDataDir } from '../support/server.js';
import { CreateSessionDocument, SessionDocument, SessionUpdatedDocument } from '../generated/graphql.js';
import { databaseUrl } from '../support/database-url.js';

const running: ServerProcess[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.stop('SIGKILL')));
});

async function backendEnv(): Promise<Record<string, string>> {
  const url = databaseUrl();
  return url ? { DATABASE_URL: url } : { DATA_DIR: await tempDataDir() };
}

async function start(env: Record<string, string>) {
  const server = await spawnServer(env);
  running.push(server);
  return server;
}

describe('server process', () => {
  it('serves health, readiness and GraphiQL (with SSE subscriptions)', async () => {
    const server = await start(await backendEnv());
    const base = server.url.replace(/\/graphql$/, '');
    // The start-up line leads with the chat app's address, the one to open.
    expect(
      JSON.parse(
        server
          .output()
          .split('\n')
          .find((line) => line.includes('listening on'))!,
      ).msg,
    ).toMatch(new RegExp(`^chat app: ${base}/ · remgraph listening on ${server.url} `));
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ready', backend: databaseUrl() ? 'postgres' : 'pglite' });

    const page = await fetch(server.url, { headers: { accept: 'text/html' } });
    const html = await page.text();
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(html).toContain('GraphiQL');
    expect(html).toContain('"subscriptionsProtocol":"SSE"');
  });

  it('on SIGTERM closes websockets with 1001, stops and exits 0', async () => {
    const server = await start(await backendEnv());
    const alice = newUser(server.url);
    const created = await alice.data(CreateSessionDocument, { input: { name: 'live' } });
    if (created.createSession.__typename !== 'CreateSessionSuccess') throw new Error('setup failed');
    const client = wsClient(server.url, alice.headers);
    const closed = new Promise<number>((resolve) => client.on('closed', (event) => resolve((event as { code: number }).code)));
    const sub = collect(client, SessionUpdatedDocument, { sessionId: created.createSession.session.id });
    const ended = sub.done.then(
      () => 'completed',
      (error: unknown) => error,
    );
    await new Promise<void>((resolve) => client.on('connected', () => resolve()));

    expect(await server.stop('SIGTERM')).toBe(0);
    expect(await closed).toBe(1001);
    expect(await ended).toMatchObject({ code: 1001 });
    expect(server.output()).toContain('shutting down');
    await client.dispose();
  });
});

describe.runIf(!databaseUrl())('embedded database', () => {
  it('creates its data folder on first start and keeps data across restarts', async () => {
    const dataDir = await tempDataDir();
    expect(existsSync(dataDir)).toBe(false);
    // A new directory starts as a copy of the migrated template (pglite-template.test.ts), so the
    // first start may have no migration left to apply; the second has none.
    const first = await start({ DATA_DIR: dataDir });
    const alice = newUser(first.url);
    const created = await alice.data(CreateSessionDocument, { input: { name: 'survives restarts' } });
    if (created.createSession.__typename !== 'CreateSessionSuccess') throw new Error('setup failed');
    expect(await first.stop()).toBe(0);
    expect(existsSync(dataDir)).toBe(true);

    const second = await start({ DATA_DIR: dataDir });
    expect(second.output()).not.toContain('applied database migrations');
    const read = await caller(second.url, alice.headers).data(SessionDocument, { id: created.createSession.session.id });
    expect(read.session?.name).toBe('survives restarts');
  });
});
