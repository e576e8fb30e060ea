import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chat, registerAgent, startAgentServer } from '../support/agents.js';
import { errorCode, newUser, type Caller } from '../support/client.js';
import type { FakeOpenAI } from '../support/fake-openai.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { EntityProvenanceDocument, TurnDocument, UpsertEntityDocument } from '../generated/graphql.js';

let server: TestServer;
let fake: FakeOpenAI;
/** A second server whose agents use the first one's /mcp as an MCP server over streamable HTTP. */
let consumer: TestServer;
const tenant = `t-${randomUUID()}`;
let alice: Caller;
let bob: Caller;

beforeAll(async () => {
  ({ server, fake } = await startAgentServer());
  alice = newUser(server.url, tenant);
  bob = newUser(server.url, tenant);
  consumer = await startTestServer({
    OPENAI_API_KEY: 'k',
    OPENAI_BASE_URL: fake.url,
    LLM_DEFAULT_MODEL: 'openai:fake-model',
    MCP_SERVERS: JSON.stringify({ memory: { url: mcpUrl(), headers: { 'x-user-id': alice.headers['x-user-id'], 'x-tenant-id': tenant } } }),
  });
});
afterAll(async () => {
  await consumer?.stop();
  await server?.stop();
  await fake?.close();
});

function mcpUrl() {
  return server.url.replace(/\/graphql$/, '/mcp');
}

async function connect(user: Caller): Promise<Client> {
  const client = new Client({ name: 'remgraph-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl()), { requestInit: { headers: user.headers } }));
  return client;
}

async function remember(user: Caller, key: string, summary: string, entityType = 'person') {
  const res = await user.data(UpsertEntityDocument, { input: { key, name: key, entityType, summary, content: `${summary} (full notes)` } });
  expect(res.upsertEntity.__typename).toBe('UpsertEntitySuccess');
}

const structured = (result: unknown) => (result as CallToolResult).structuredContent as any;
const textOf = (result: unknown) => ((result as CallToolResult).content[0] as { text: string }).text;

describe('remgraph as an MCP server (/mcp)', () => {
  it('lists its tools and resources', async () => {
    const client = await connect(alice);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['rem_query', 'lookup', 'search', 'save_memory', 'ask_agent']);
      const resources = (await client.listResources()).resources.map((r) => r.uri);
      expect(resources).toEqual(['rem://agents', 'rem://schema/entities', `user://profile/${alice.headers['x-user-id']}`]);
      expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['user://profile/{user_id}']);
    } finally {
      await client.close();
    }
  });

  it('answers memory tools as the caller: two users of one tenant never see each other’s rows', async () => {
    await remember(alice, 'Sarah Chen', 'Head of finance; approves invoices over 10k');
    await remember(bob, 'Bob Secret', 'Bob’s private contact who approves invoices');
    const [a, b] = await Promise.all([connect(alice), connect(bob)]);
    try {
      const lookupA = structured(await a.callTool({ name: 'lookup', arguments: { keys: ['Sarah Chen', 'Bob Secret'] } }));
      expect(lookupA.hits.map((h: { key: string }) => h.key)).toEqual(['sarah-chen']);
      expect(lookupA.hits[0]).toMatchObject({
        entityType: 'entities',
        summary: 'Head of finance; approves invoices over 10k',
        content: 'Head of finance; approves invoices over 10k (full notes)',
      });
      expect(structured(await b.callTool({ name: 'lookup', arguments: { keys: ['Sarah Chen'] } })).hits).toEqual([]);

      const query = structured(await a.callTool({ name: 'rem_query', arguments: { query: 'FUZZY "sarah chen" THRESHOLD 0.3' } }));
      expect(query).toMatchObject({ mode: 'FUZZY', hits: [{ key: 'sarah-chen' }] });
      expect(
        structured(await b.callTool({ name: 'rem_query', arguments: { query: 'SQL SELECT key FROM entities ORDER BY key' } })).rows.map(
          (r: { key: string }) => r.key,
        ),
      ).toEqual(['bob-secret']);

      const searchA = structured(await a.callTool({ name: 'search', arguments: { text: 'who approves invoices', table: 'entities' } }));
      const searchB = structured(await b.callTool({ name: 'search', arguments: { text: 'who approves invoices', table: 'entities' } }));
      expect(searchA.hits.map((h: { key: string }) => h.key)).toEqual(['sarah-chen']);
      expect(searchB.hits.map((h: { key: string }) => h.key)).toEqual(['bob-secret']);
      const filtered = (where: string) => a.callTool({ name: 'search', arguments: { text: 'who approves invoices', where } });
      expect(structured(await filtered("type = 'person' AND created_at > '2000-01-01'")).hits.map((h: { key: string }) => h.key)).toEqual(['sarah-chen']);
      expect(structured(await filtered("type = 'company'")).hits).toEqual([]);
      const badWhere = await filtered("colour = 'red'");
      expect(badWhere.isError).toBe(true);
      expect(textOf(badWhere)).toMatch(/^QUERY_SYNTAX: Unknown filter field "colour" at position 0/);

      const bad = await a.callTool({ name: 'rem_query', arguments: { query: 'LOOKUP' } });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toMatch(/^QUERY_SYNTAX: /);
      const invalid = await a.callTool({ name: 'search', arguments: { text: 'x', limit: 1000 } });
      expect(invalid.isError).toBe(true);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('serves resources as the caller: agents, the memory’s shape and one’s own profile only', async () => {
    await registerAgent(alice, 'name: alices-helper\ndescription: Only Alice has me.\ntools:\n  - name: search\n');
    await remember(alice, `user-${alice.headers['x-user-id']}`, 'Prefers short answers', 'profile');
    const [a, b] = await Promise.all([connect(alice), connect(bob)]);
    try {
      const read = async (client: Client, uri: string) => JSON.parse(((await client.readResource({ uri })).contents[0] as { text: string }).text);
      const agentsA = await read(a, 'rem://agents');
      expect(agentsA).toContainEqual({
        name: 'alices-helper',
        kind: 'agent',
        description: 'Only Alice has me.',
        version: 1,
        tools: [{ name: 'search', requiresApproval: false }],
      });
      expect((await read(b, 'rem://agents')).map((x: { name: string }) => x.name)).not.toContain('alices-helper');

      const schemaA = await read(a, 'rem://schema/entities');
      expect(schemaA.tables.entities).toContain('entityType');
      expect(schemaA.entityTypes).toEqual(
        expect.arrayContaining([
          { entityType: 'person', count: 1 },
          { entityType: 'profile', count: 1 },
        ]),
      );
      expect((await read(b, 'rem://schema/entities')).entityTypes).toEqual([{ entityType: 'person', count: 1 }]);

      const profile = await read(a, `user://profile/${alice.headers['x-user-id']}`);
      expect(profile).toMatchObject({
        userId: alice.headers['x-user-id'],
        tenantId: tenant,
        profile: { summary: 'Prefers short answers' },
        activity: { sessions: expect.any(Number) },
      });
      await expect(b.readResource({ uri: `user://profile/${alice.headers['x-user-id']}` })).rejects.toThrow(/NOT_FOUND: Profile not found/);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('asks an agent as the caller, in a session GraphQL shows to that caller only', async () => {
    const [a, b] = await Promise.all([connect(alice), connect(bob)]);
    try {
      fake.enqueue({ text: 'Sarah approves invoices over 10k.' }, { text: 'Still Sarah.' });
      const first = structured(await a.callTool({ name: 'ask_agent', arguments: { agent_name: 'general', input_text: 'Who approves big invoices?' } }));
      expect(first).toMatchObject({ agent: 'general', status: 'COMPLETED', answer: 'Sarah approves invoices over 10k.' });
      const second = structured(
        await a.callTool({ name: 'ask_agent', arguments: { agent_name: 'general', input_text: 'Still?', session_id: first.session_id } }),
      );
      expect(second).toMatchObject({ status: 'COMPLETED', answer: 'Still Sarah.', session_id: first.session_id });
      expect(
        fake.chatRequests
          .at(-1)!
          .body.messages.filter((m: { role: string }) => m.role === 'user')
          .map((m: { content: string }) => m.content),
      ).toEqual(['Who approves big invoices?', 'Still?']);

      const turn = (await alice.data(TurnDocument, { id: second.turn_id })).turn!;
      expect(turn.session.messages.edges.map((e) => e.node.content)).toEqual([
        'Who approves big invoices?',
        'Sarah approves invoices over 10k.',
        'Still?',
        'Still Sarah.',
      ]);
      expect(errorCode(await bob.request(TurnDocument, { id: second.turn_id }))).toBe('NOT_FOUND');

      const foreign = await b.callTool({ name: 'ask_agent', arguments: { agent_name: 'general', input_text: 'peek', session_id: first.session_id } });
      expect(foreign.isError).toBe(true);
      expect(textOf(foreign)).toBe('NOT_FOUND: Session not found');
      const unknown = await b.callTool({ name: 'ask_agent', arguments: { agent_name: 'nobody', input_text: 'hi' } });
      expect(textOf(unknown)).toBe('NOT_FOUND: Agent "nobody" not found');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('saves memory as the caller with the agents’ save_memory: edges merge, a person is the writer, others never see it, bad input stores nothing', async () => {
    const [a, b] = await Promise.all([connect(alice), connect(bob)]);
    try {
      const listed = (await a.listTools()).tools.find((t) => t.name === 'save_memory')!;
      expect(listed.inputSchema).toMatchObject({ required: ['kind', 'key'], properties: { kind: { enum: ['entity', 'moment'] }, edges: { maxItems: 100 } } });

      const saved = await a.callTool({
        name: 'save_memory',
        arguments: {
          kind: 'entity',
          key: 'Project Atlas',
          name: 'Project Atlas',
          entity_type: 'project',
          summary: 'Migration to the new ledger',
          edges: [{ dst: 'Sarah Chen', rel_type: 'owned_by', weight: 0.9 }],
        },
      });
      expect(saved.isError).toBeFalsy();
      expect(structured(saved)).toEqual({ saved: { kind: 'entity', key: 'project-atlas' }, edges: 1 });
      // A second save adds a relation and keeps the first, as for an agent.
      expect(
        structured(
          await a.callTool({
            name: 'save_memory',
            arguments: { kind: 'entity', key: 'project-atlas', edges: [{ dst: 'ledger-team', rel_type: 'worked_on_by' }] },
          }),
        ),
      ).toEqual({ saved: { kind: 'entity', key: 'project-atlas' }, edges: 2 });

      const lookup = structured(await a.callTool({ name: 'lookup', arguments: { keys: ['Project Atlas'] } }));
      expect(lookup.hits).toEqual([expect.objectContaining({ key: 'project-atlas', entityType: 'entities', summary: 'Migration to the new ledger' })]);
      const entity = (await alice.data(EntityProvenanceDocument, { key: 'project-atlas' })).entity!;
      expect(entity).toEqual({
        key: 'project-atlas',
        summary: 'Migration to the new ledger',
        graphEdges: [
          { dst: 'sarah-chen', relType: 'owned_by' },
          { dst: 'ledger-team', relType: 'worked_on_by' },
        ],
        sourceTurn: null,
      });
      expect(structured(await b.callTool({ name: 'lookup', arguments: { keys: ['Project Atlas'] } })).hits).toEqual([]);
      expect((await bob.data(EntityProvenanceDocument, { key: 'project-atlas' })).entity).toBeNull();

      const count = async () =>
        structured(await a.callTool({ name: 'rem_query', arguments: { query: 'SQL SELECT count(*)::int AS n FROM entities' } })).rows[0].n;
      const before = await count();
      const wrongKind = await a.callTool({ name: 'save_memory', arguments: { kind: 'person', key: 'mallory', summary: 'x' } });
      expect(wrongKind.isError).toBe(true);
      expect(textOf(wrongKind)).toBe(
        'MCP error -32602: Input validation error: Invalid arguments for tool save_memory: Invalid option: expected one of "entity"|"moment" at kind',
      );
      const noKey = await a.callTool({ name: 'save_memory', arguments: { kind: 'entity', key: '!!!' } });
      expect(noKey.isError).toBe(true);
      expect(textOf(noKey)).toBe('VALIDATION_FAILED: input.key: must contain letters or digits');
      expect(await count()).toBe(before);
      expect((await alice.data(EntityProvenanceDocument, { key: 'mallory' })).entity).toBeNull();
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('refuses what is not a POST, a page of another site, and a body over the size limit', async () => {
    const foreign = await fetch(mcpUrl(), {
      method: 'POST',
      headers: { ...alice.headers, origin: 'https://evil.example', 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{}',
    });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'FORBIDDEN: Origin not allowed (CORS_ORIGINS)' }, id: null });
    const get = await fetch(mcpUrl(), { headers: { ...alice.headers, accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
    const huge = await fetch(mcpUrl(), {
      method: 'POST',
      headers: { ...alice.headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'x'.repeat(1_100_000) } }),
    });
    expect(huge.status).toBe(413);
    expect(await huge.json()).toEqual({ jsonrpc: '2.0', error: { code: -32000, message: 'PAYLOAD_TOO_LARGE: Request body exceeds 1048576 bytes' }, id: null });
  });

  it('is an MCP server another remgraph’s agents can use over streamable HTTP, with the configured headers as identity', async () => {
    const user = newUser(consumer.url);
    await registerAgent(
      user,
      'name: recaller\ndescription: You recall.\ntools:\n  - name: lookup\n    server: memory\n    description: Keys are people’s names.\n',
    );
    fake.enqueue({ toolCalls: [{ id: 'l1', name: 'lookup', arguments: { keys: ['Sarah Chen'] } }] }, { text: 'Sarah is head of finance.' });
    const { events } = await chat(consumer.url, user, { content: 'Who is Sarah?', agent: 'recaller' });
    const result = events.find((e) => e.__typename === 'ToolResultEvent') as { result: { hits: { key: string; summary: string }[] }; isError: boolean };
    expect(result.isError).toBe(false);
    // The consumer's MCP identity is Alice (from its headers), so it sees her memory.
    expect(result.result.hits).toEqual([expect.objectContaining({ key: 'sarah-chen', summary: 'Head of finance; approves invoices over 10k' })]);
    expect(fake.chatRequests.at(-2)!.body.tools[0].function.description).toBe(
      'Fetch memory rows by key (a natural-language name works: "Sarah Chen" is looked up as sarah-chen), with their full content.\n\nKeys are people’s names.',
    );
  });

  it('takes identity from the bearer token when JWT auth is on, and answers 401 without one', async () => {
    const secret = 'mcp-server-secret-that-is-long-enough!!!';
    const jwtServer = await startTestServer({ AUTH_JWT_SECRET: secret });
    try {
      const url = new URL(jwtServer.url.replace(/\/graphql$/, '/mcp'));
      const refused = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-user-id': 'mallory' },
        body: '{}',
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer');
      expect(await refused.json()).toEqual({
        jsonrpc: '2.0',
        error: { code: -32000, message: 'UNAUTHENTICATED: Missing bearer token (Authorization: Bearer <JWT>)' },
        id: null,
      });

      const token = await new SignJWT({ sub: 'jwt-user', tenant_id: tenant })
        .setProtectedHeader({ alg: 'HS256' })
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(secret));
      const client = new Client({ name: 'remgraph-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      // Same tenant as Alice, another user: none of her rows.
      expect(structured(await client.callTool({ name: 'lookup', arguments: { keys: ['Sarah Chen'] } })).hits).toEqual([]);
      expect((await client.listResources()).resources.map((r) => r.uri)).toContain('user://profile/jwt-user');
      await client.close();
    } finally {
      await jwtServer.stop();
    }
  });
});
