import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoInternals, newUser, postGraphQL } from '../support/client.js';
import { capturingLogger } from '../support/log-capture.js';
import { backend, startTestServer, type TestServer } from '../support/server.js';

let server: TestServer;
let failing = false;
const log = capturingLogger();
const nodeEnv = process.env.NODE_ENV;

beforeAll(async () => {
  // yoga would add stack traces to errors in development; the server must not.
  process.env.NODE_ENV = 'development';
  server = await startTestServer(
    {},
    {
      logger: log.logger,
      observe: ({ model }) => {
        if (failing && model === 'Session') throw new Error('connection to /var/lib/secret/db.sock lost at query.ts:42 (SELECT * FROM sessions)');
      },
    },
  );
});
afterAll(async () => {
  process.env.NODE_ENV = nodeEnv;
  await server?.stop();
});

describe('unexpected errors', () => {
  it('reach clients as a generic message without stack, paths or SQL, even with NODE_ENV=development, and the log has the real error', async () => {
    const user = newUser(server.url);
    failing = true;
    const res = await postGraphQL(server.url, { query: '{ sessions(first: 5) { totalCount } }' }, user.headers);
    failing = false;
    expect(res.status).toBe(200);
    expect(res.body.errors?.[0]?.message).toBe('Unexpected error.');
    expect(res.body.errors?.[0]?.extensions ?? {}).not.toHaveProperty('originalError');
    expectNoInternals(res.body);
    const logged = log.lines().find((line) => line.msg === 'unexpected error while executing an operation');
    expect(JSON.stringify(logged)).toContain('/var/lib/secret/db.sock');
  });

  it('leave the server serving other users', async () => {
    const other = newUser(server.url);
    const res = await postGraphQL(server.url, { query: '{ sessions(first: 5) { totalCount } }' }, other.headers);
    expect(res.body).toEqual({ data: { sessions: { totalCount: 0 } } });
  });
});

describe('database role', () => {
  it(`warns at start-up when connected to PostgreSQL as a superuser (${backend()})`, () => {
    const warning = log.lines().find((line) => String(line.msg).startsWith('connected to PostgreSQL as a superuser'));
    // The test PostgreSQL is reached as its superuser; PGlite has no roles to speak of.
    if (backend() === 'postgres') expect(warning).toMatchObject({ level: 40, role: expect.any(String) });
    else expect(warning).toBeUndefined();
  });
});
