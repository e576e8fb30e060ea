import { afterEach, describe, expect, it } from 'vitest';
import { startApp, type App } from '../../src/app.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { createOriginPolicy } from '../../src/http/origin-policy.js';
import { listenEarly } from '../../src/http/startup-gate.js';
import { createLogger } from '../../src/logger.js';
import { postGraphQL, wsClient } from '../support/client.js';
import { testConfig } from '../support/server.js';

/**
 * `npm start` listens before the app is built (issue 41: warm restart to healthy): /healthz answers
 * while the database opens, /readyz says it is starting, and what else arrives meanwhile is served
 * once the app is up, as if it had arrived then.
 */
const started: App[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((app) => app.stop()));
});

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** startApp with a database that opens when the test says so, listening at once. */
async function startGated() {
  const config = testConfig();
  const opening = deferred<Database>();
  const listening = listenEarly(config.server, createOriginPolicy(config.security.corsOrigins));
  const app = startApp(config, createLogger(config.log.level), opening.promise, undefined, listening);
  app.catch(() => {}); // awaited by each test
  const { server } = await listening;
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('not listening');
  const base = `http://127.0.0.1:${address.port}`;
  return { config, opening, app, base, server };
}

describe('start-up gate', () => {
  it('answers /healthz and holds everything else until the app is up', async () => {
    const { config, opening, app, base } = await startGated();
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
    const early = await fetch(`${base}/readyz`);
    expect(early.status).toBe(503);
    expect(await early.json()).toEqual({ status: 'starting' });

    let answered = false;
    const query = postGraphQL<{ __typename: string }>(`${base}/graphql`, { query: '{ __typename }' }).finally(() => (answered = true));
    const socket = wsClient(`${base}/graphql`);
    const overSocket = new Promise((resolve, reject) => {
      socket.subscribe({ query: '{ __typename }' }, { next: resolve, error: reject, complete: () => {} });
    });
    // A foreign page is refused by the app's own rule, not answered by the gate.
    const foreign = fetch(`${base}/healthz`, { headers: { origin: 'https://elsewhere.example' } });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(answered).toBe(false);

    opening.resolve(await openDatabase(config.database));
    started.push(await app);
    expect((await query).body).toEqual({ data: { __typename: 'Query' } });
    expect(await overSocket).toEqual({ data: { __typename: 'Query' } });
    expect((await foreign).status).toBe(403);
    expect((await fetch(`${base}/readyz`)).status).toBe(200);
    await socket.dispose();
  });

  it('closes the port and what it held when the app fails to start', async () => {
    const { opening, app, base, server } = await startGated();
    const held = fetch(`${base}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"{ __typename }"}' });
    await new Promise((resolve) => setTimeout(resolve, 100));
    opening.reject(new Error('the database is broken'));
    await expect(app).rejects.toThrow('the database is broken');
    await expect(held).rejects.toThrow();
    expect(server.listening).toBe(false);
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });

  it('fails to start when the port is taken', async () => {
    const { config, opening, app, server } = await startGated();
    opening.resolve(await openDatabase(config.database));
    started.push(await app);
    const address = server.address();
    if (typeof address !== 'object' || !address) throw new Error('not listening');
    const taken = testConfig({ PORT: String(address.port) });
    await expect(startApp(taken, createLogger(taken.log.level))).rejects.toThrow(/EADDRINUSE/);
  });
});
