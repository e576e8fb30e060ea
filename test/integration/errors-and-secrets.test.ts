import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNoInternals, newUser, postGraphQL } from '../support/client.js';
import { capturingLogger } from '../support/log-capture.js';
import { backend, startTestServer, type TestServer } from '../support/server.js';
import { chat, startAgentServer } from '../support/agents.js';

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

describe('tool failures', () => {
  it('reach the model and the stream as a generic message with TOOL_FAILED; the details stay in the log', async () => {
    const toolLog = capturingLogger();
    let broken = false;
    const { server: agentServer, fake } = await startAgentServer(
      {},
      {
        logger: toolLog.logger,
        observe: ({ sql }) => {
          // LOOKUP's statement: the search tool's database read fails with internals in its message.
          if (broken && sql?.includes('"rem_lookup_custom"')) throw new Error('database 10.0.0.5:5432 refused: SELECT kv.entity_key FROM kv_store');
        },
      },
    );
    try {
      const user = newUser(agentServer.url);
      fake.enqueue({ toolCalls: [{ id: 's1', name: 'search', arguments: { query: 'LOOKUP "sarah-chen"' } }] }, { text: 'Memory is unavailable.' });
      broken = true;
      const { events } = await chat(agentServer.url, user, { content: 'Who is Sarah?', agent: 'general' });
      broken = false;
      const result = events.find((e) => e.__typename === 'ToolResultEvent');
      expect(result).toMatchObject({ isError: true, result: { error: 'The search tool failed unexpectedly', code: 'TOOL_FAILED' } });
      expectNoInternals(events);
      // The model was told the same, nothing more.
      const toolMessage = fake.chatRequests[1]!.body.messages.find((m: { role: string }) => m.role === 'tool');
      expect(JSON.parse(toolMessage.content)).toEqual({ error: 'The search tool failed unexpectedly', code: 'TOOL_FAILED' });
      expect(JSON.stringify(toolLog.lines().find((l) => l.msg === 'tool failed'))).toContain('10.0.0.5:5432');
      expect(fake.pending).toBe(0);
    } finally {
      await agentServer.stop();
      await fake.close();
    }
  });
});
