import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { mcpTools, type RemgraphMcpDeps } from '../../src/mcp/server/remgraph-server.js';
import { allDocumentTools, documentToolsets } from '../../src/tools/documents/bound-tools.js';
import { builtinTools } from '../../src/tools/builtin/builtin-tools.js';
import { chat, registerAgent, startAgentServer } from '../support/agents.js';
import { errorCode, newUser, postGraphQL, type Caller } from '../support/client.js';
import { corpusOf, ingestDocument } from '../support/documents.js';
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
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
        'rem_query',
        'lookup',
        'search',
        'save_memory',
        'ask_agent',
        'register_metadata',
        'ingest_into_rem',
        'save_agent',
        'read_resource',
        // The seed's document and corpus tools (docs/documents.md), all but ask_document, which runs in a turn.
        'similarity_search',
        'load_md_summary',
        'load_document_md_summary',
        'get_md_summary_token_length',
        'load_document_txt_extract',
        'get_notes_for_document_corpus',
        'get_note_content_token_length',
        'get_partial_note_content',
        'search_document_notes',
        'add_document_note',
        'update_document_note',
        'duplicate_annotations',
        'add_exact_string_annotations',
        'get_document_summary',
        'get_document_summary_versions',
        'get_document_summary_diff',
        'update_document_summary',
        'get_corpus_description',
        'update_corpus_description',
        'list_documents',
      ]);
      const resources = (await client.listResources()).resources.map((r) => r.uri);
      expect(resources).toEqual(['rem://agents', 'rem://schema/entities', `user://profile/${alice.headers['x-user-id']}`]);
      expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['user://profile/{user_id}', 'rem://resources/{key}']);
    } finally {
      await client.close();
    }
  });

  it('lists each tool from its one definition: the JSON Schema agents get, an output schema and annotations', async () => {
    // Only the definitions are read: no handler runs.
    const definitions = mcpTools({} as RemgraphMcpDeps);
    const client = await connect(alice);
    try {
      const listed = (await client.listTools()).tools;
      expect(listed.map((t) => t.name)).toEqual(definitions.map((d) => d.name));
      for (const [i, tool] of listed.entries()) {
        const def = definitions[i]!;
        const { $schema: _input, ...input } = tool.inputSchema;
        expect(input, tool.name).toEqual(def.parameters);
        expect(input, tool.name).toMatchObject({ type: 'object', additionalProperties: false });
        if (def.output) {
          const { $schema: _output, ...output } = z.toJSONSchema(def.output, { target: 'draft-7', io: 'output' });
          expect(tool.outputSchema, tool.name).toMatchObject(output);
        } else expect(tool.outputSchema, tool.name).toBeUndefined();
        expect(tool.annotations, tool.name).toEqual({
          readOnlyHint: expect.any(Boolean),
          destructiveHint: expect.any(Boolean),
          idempotentHint: expect.any(Boolean),
          openWorldHint: expect.any(Boolean),
        });
        expect(tool.annotations, tool.name).toEqual(def.annotations);
      }
      // The seed's document tools answer the model in text (no output schema); every other tool declares its result.
      const documentTools = allDocumentTools(documentToolsets({ rem: {} as RemgraphMcpDeps['rem'] }))
        .map((t) => t.name)
        .filter((name) => name !== 'ask_document');
      expect(listed.filter((t) => !t.outputSchema).map((t) => t.name)).toEqual(documentTools);
      expect(listed.filter((t) => t.annotations?.readOnlyHint && !documentTools.includes(t.name)).map((t) => t.name)).toEqual([
        'rem_query',
        'lookup',
        'search',
        'read_resource',
      ]);
      expect(listed.filter((t) => t.annotations?.destructiveHint).map((t) => t.name)).toEqual([
        'save_memory',
        'ask_agent',
        'register_metadata',
        'ingest_into_rem',
      ]);
      // The agents' save_memory, offered as it is.
      const agentsSaveMemory = builtinTools({ rem: {} as RemgraphMcpDeps['rem'] }).find((t) => t.name === 'save_memory')!;
      const { $schema: _draft, ...saveMemory } = listed.find((t) => t.name === 'save_memory')!.inputSchema;
      expect(saveMemory).toEqual(agentsSaveMemory.parameters);
    } finally {
      await client.close();
    }
  });

  it('answers a missing resource with the MCP spec’s -32002 and its uri, the message said once', async () => {
    const client = await connect(bob);
    try {
      const uri = 'rem://resources/no-such-report';
      const error = await client.readResource({ uri }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(McpError);
      expect(error).toMatchObject({ code: -32002, data: { uri }, message: 'MCP error -32002: NOT_FOUND: Resource "no-such-report" not found' });
      const badEncoding = await client.readResource({ uri: 'rem://resources/%E0%A4%A' }).catch((e: unknown) => e);
      expect(badEncoding).toMatchObject({ code: -32602, message: 'MCP error -32602: VALIDATION_FAILED: uri: bad percent-encoding' });
    } finally {
      await client.close();
    }
  });

  it('tells an anonymous caller who writes memory how to identify, and stores nothing', async () => {
    const anonymous = new Client({ name: 'remgraph-test', version: '1.0.0' });
    await anonymous.connect(new StreamableHTTPClientTransport(new URL(mcpUrl()), { requestInit: { headers: { 'x-tenant-id': tenant } } }));
    try {
      const refused = await anonymous.callTool({ name: 'save_memory', arguments: { kind: 'entity', key: 'anonymous-note', summary: 'x' } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toBe(
        'FORBIDDEN: Anonymous callers cannot write memory: identify yourself with a bearer token (or X-User-Id where identity headers are accepted)',
      );
      expect(structured(await anonymous.callTool({ name: 'lookup', arguments: { keys: ['anonymous-note'] } })).hits).toEqual([]);
    } finally {
      await anonymous.close();
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

  it('ingests a file into the caller’s memory and reads it back as a tool and as a resource; others never see it, bad input stores nothing', async () => {
    const [a, b] = await Promise.all([connect(alice), connect(bob)]);
    try {
      const report = '# Q3 report\n\nRevenue grew 12% on the new ledger.\n\n## Risks\n\nThe migration slips into Q4.';
      const ingested = await a.callTool({ name: 'ingest_into_rem', arguments: { filename: 'q3-report.md', content: report, tags: ['finance'] } });
      expect(ingested.isError).toBeFalsy();
      expect(structured(ingested)).toEqual({
        key: 'q3-report',
        name: 'q3-report.md',
        uri: 'rem://resources/q3-report',
        chunks: expect.any(Number),
        unchanged: false,
        content_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      });
      const again = structured(await a.callTool({ name: 'ingest_into_rem', arguments: { filename: 'q3-report.md', content: report } }));
      expect(again).toMatchObject({ key: 'q3-report', unchanged: true, chunks: structured(ingested).chunks });
      const pdfLike = structured(
        await a.callTool({
          name: 'ingest_into_rem',
          arguments: { filename: 'notes.txt', content_base64: Buffer.from('Plain notes about Atlas.').toString('base64'), key: 'Atlas Notes' },
        }),
      );
      expect(pdfLike).toMatchObject({ key: 'atlas-notes', chunks: 1, unchanged: false });

      const read = structured(await a.callTool({ name: 'read_resource', arguments: { uri: 'rem://resources/q3-report' } }));
      expect(read.uri).toBe('rem://resources/q3-report');
      expect(read.data).toMatchObject({ key: 'q3-report', name: 'q3-report.md', uri: 'file:q3-report.md', category: 'file', tags: ['finance'] });
      expect(read.data.chunks.map((c: { content: string }) => c.content).join('\n')).toContain('The migration slips into Q4.');
      // By the uri it was stored with, or by its key as a name.
      expect(structured(await a.callTool({ name: 'read_resource', arguments: { uri: 'file:notes.txt' } })).data).toMatchObject({
        key: 'atlas-notes',
        category: 'file',
        chunks: [{ key: 'atlas-notes-chunk-1', content: 'Plain notes about Atlas.' }],
      });
      expect(structured(await a.callTool({ name: 'read_resource', arguments: { uri: 'Q3 Report' } })).uri).toBe('rem://resources/q3-report');
      // The resources the server offers, as a tool.
      expect(structured(await a.callTool({ name: 'read_resource', arguments: { uri: 'rem://agents' } })).data).toContainEqual(
        expect.objectContaining({ name: 'general' }),
      );
      const profileUri = `user://profile/${alice.headers['x-user-id']}`;
      expect(structured(await a.callTool({ name: 'read_resource', arguments: { uri: profileUri } })).data.userId).toBe(alice.headers['x-user-id']);

      const listed = (await a.listResources()).resources.map((r) => r.uri);
      expect(listed).toEqual(expect.arrayContaining(['rem://resources/q3-report', 'rem://resources/atlas-notes']));
      expect(listed.filter((uri) => uri.includes('-chunk-'))).toEqual([]);
      const resource = JSON.parse(((await a.readResource({ uri: 'rem://resources/q3-report' })).contents[0] as { text: string }).text);
      expect(resource).toEqual(read.data);

      expect((await b.listResources()).resources.map((r) => r.uri)).not.toContain('rem://resources/q3-report');
      const hidden = await b.callTool({ name: 'read_resource', arguments: { uri: 'rem://resources/q3-report' } });
      expect(hidden.isError).toBe(true);
      expect(textOf(hidden)).toBe('NOT_FOUND: Resource "q3-report" not found');
      expect(textOf(await b.callTool({ name: 'read_resource', arguments: { uri: profileUri } }))).toBe('NOT_FOUND: Profile not found');
      await expect(b.readResource({ uri: 'rem://resources/q3-report' })).rejects.toThrow(/NOT_FOUND: Resource "q3-report" not found/);

      const count = async () =>
        structured(await a.callTool({ name: 'rem_query', arguments: { query: 'SQL SELECT count(*)::int AS n FROM resources' } })).rows[0].n;
      const before = await count();
      const bad = async (args: Record<string, unknown>) => {
        const result = await a.callTool({ name: 'ingest_into_rem', arguments: args });
        expect(result.isError).toBe(true);
        return textOf(result);
      };
      expect(await bad({ filename: 'x.md' })).toBe('VALIDATION_FAILED: give exactly one of content and content_base64');
      expect(await bad({ filename: 'x.md', content: 'a', content_base64: 'YQ==' })).toBe('VALIDATION_FAILED: give exactly one of content and content_base64');
      expect(await bad({ filename: 'x.pdf', content_base64: 'not base64!' })).toBe('VALIDATION_FAILED: content_base64: not base64');
      expect(await bad({ filename: 'x.md', content: '' })).toBe('VALIDATION_FAILED: file: empty');
      expect(await bad({ filename: 'x.md', content: 'text', key: '!!!' })).toBe('VALIDATION_FAILED: key: must contain letters or digits');
      expect(await bad({ content: 'text' })).toMatch(/Input validation error: .*filename/);
      expect(await count()).toBe(before);
      expect(textOf(await a.callTool({ name: 'read_resource', arguments: { uri: '%%%' } }))).toBe(
        'VALIDATION_FAILED: uri: must name a resource (a key or a uri)',
      );
      expect(textOf(await a.callTool({ name: 'read_resource', arguments: { uri: 'rem://resources/%E0%A4%A' } }))).toBe(
        'VALIDATION_FAILED: uri: bad percent-encoding',
      );
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('saves an agent from YAML as registerAgent does: versions, validation, only the caller sees it', async () => {
    const [a, b] = await Promise.all([connect(alice), connect(bob)]);
    try {
      const yaml = 'name: mcp-made\ndescription: You were saved over MCP.\ntools:\n  - name: search\n';
      const saved = await a.callTool({ name: 'save_agent', arguments: { yaml } });
      expect(saved.isError).toBeFalsy();
      expect(structured(saved)).toEqual({ name: 'mcp-made', version: 1, created: true, shared: false, kind: 'agent', tools: ['search'] });
      expect(structured(await a.callTool({ name: 'save_agent', arguments: { yaml } }))).toMatchObject({ version: 1, created: false });
      expect(structured(await a.callTool({ name: 'save_agent', arguments: { yaml: yaml.replace('over MCP', 'twice') } }))).toMatchObject({
        version: 2,
        created: true,
      });

      fake.enqueue({ text: 'Saved agents answer too.' });
      expect(structured(await a.callTool({ name: 'ask_agent', arguments: { agent_name: 'mcp-made', input_text: 'hi' } }))).toMatchObject({
        status: 'COMPLETED',
        answer: 'Saved agents answer too.',
      });
      const read = async (client: Client) => JSON.parse(((await client.readResource({ uri: 'rem://agents' })).contents[0] as { text: string }).text);
      expect(await read(a)).toContainEqual(expect.objectContaining({ name: 'mcp-made', version: 2, description: 'You were saved twice.' }));
      expect((await read(b)).map((x: { name: string }) => x.name)).not.toContain('mcp-made');
      expect(textOf(await b.callTool({ name: 'ask_agent', arguments: { agent_name: 'mcp-made', input_text: 'hi' } }))).toBe(
        'NOT_FOUND: Agent "mcp-made" not found',
      );

      const refused = async (args: Record<string, unknown>) => {
        const result = await a.callTool({ name: 'save_agent', arguments: args });
        expect(result.isError).toBe(true);
        return textOf(result);
      };
      expect(await refused({ yaml: 'name: mcp-made\ndescription: x\ntools:\n  - name: no_such_tool\n' })).toBe(
        'VALIDATION_FAILED: tools.0.name: unknown tool "no_such_tool"',
      );
      expect(await refused({ yaml: 'name: Bad Name\ndescription: x\n' })).toMatch(/^VALIDATION_FAILED: .*name/);
      expect(await refused({ yaml: 'name: [unclosed' })).toMatch(/^VALIDATION_FAILED: /);
      expect(await refused({ yaml: 'name: shared-one\ndescription: x\n', shared: true })).toBe('FORBIDDEN: Only admins can register shared agents');
      expect(await refused({ yaml: 42 })).toMatch(/Input validation error: .*yaml/);
      expect((await read(a)).find((x: { name: string }) => x.name === 'mcp-made')).toMatchObject({ version: 2 });
      expect((await read(a)).map((x: { name: string }) => x.name)).not.toContain('shared-one');
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('registers notes about the latest answer of the caller’s session, never of another’s', async () => {
    const [a, b] = await Promise.all([connect(alice), connect(bob)]);
    try {
      fake.enqueue({ text: 'Revenue grew 12%.' });
      const asked = structured(await a.callTool({ name: 'ask_agent', arguments: { agent_name: 'general', input_text: 'How did Q3 go?' } }));
      const noted = await a.callTool({
        name: 'register_metadata',
        arguments: { session_id: asked.session_id, confidence: 0.9, sources: ['q3-report'], risk_level: 'green', notes: 'From the Q3 report' },
      });
      expect(noted.isError).toBeFalsy();
      expect(structured(noted)).toEqual({
        recorded: true,
        session_id: asked.session_id,
        message_seq: 2,
        notes: { confidence: 0.9, sources: ['q3-report'], risk_level: 'low', notes: 'From the Q3 report' },
      });
      expect(structured(await a.callTool({ name: 'register_metadata', arguments: { session_id: asked.session_id, flags: ['reviewed'] } })).notes).toEqual({
        confidence: 0.9,
        sources: ['q3-report'],
        risk_level: 'low',
        notes: 'From the Q3 report',
        flags: ['reviewed'],
      });

      type Answer = { type: string; content: string; metadata: Record<string, unknown> };
      const messages = (user: Caller) =>
        postGraphQL<{ session: { messages: { edges: { node: Answer }[] } } }>(
          server.url,
          {
            query: 'query($id: ID!) { session(id: $id) { messages(first: 10) { edges { node { type content metadata } } } } }',
            variables: { id: asked.session_id },
          },
          user.headers,
        );
      const latestAnswer = async () => (await messages(alice)).body.data!.session.messages.edges.map((e) => e.node).find((n) => n.type === 'assistant')!;
      const answer = await latestAnswer();
      expect(answer.content).toBe('Revenue grew 12%.');
      expect(answer.metadata).toEqual({
        status: 'COMPLETED',
        notes: { confidence: 0.9, sources: ['q3-report'], risk_level: 'low', notes: 'From the Q3 report', flags: ['reviewed'] },
      });

      const foreign = await b.callTool({ name: 'register_metadata', arguments: { session_id: asked.session_id, confidence: 0 } });
      expect(foreign.isError).toBe(true);
      expect(textOf(foreign)).toBe('NOT_FOUND: Session not found');
      expect(errorCode(await messages(bob))).toBe('NOT_FOUND');
      expect(textOf(await a.callTool({ name: 'register_metadata', arguments: { session_id: 'nope', confidence: 0.5 } }))).toBe(
        'VALIDATION_FAILED: session_id: not a session id',
      );
      const outOfRange = await a.callTool({ name: 'register_metadata', arguments: { session_id: asked.session_id, confidence: 2 } });
      expect(outOfRange.isError).toBe(true);
      expect(textOf(outOfRange)).toMatch(/Input validation error: .*confidence/);
      expect(textOf(await a.callTool({ name: 'register_metadata', arguments: { confidence: 0.5 } }))).toMatch(/Input validation error: .*session_id/);
      expect((await latestAnswer()).metadata).toEqual(answer.metadata);
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

  it('runs the document tools on the document and corpus named in their arguments, as the caller', async () => {
    const doc = await ingestDocument(server.url, alice, { name: 'mcp-lease.md', bytes: '# Lease\n\nRent is 2000 euros a month.\n' });
    const corpus = await corpusOf(alice, 'MCP contracts', [doc.id]);
    const [documentId, corpusId] = [doc.id, corpus].map((id) => Buffer.from(id, 'base64').toString().split(':')[1]!);
    const [a, b] = await Promise.all([connect(alice), connect(bob)]);
    try {
      const extract = await a.callTool({ name: 'load_document_txt_extract', arguments: { document_id: documentId } });
      expect(textOf(extract)).toContain('Rent is 2000 euros a month.');
      const added = await a.callTool({
        name: 'add_document_note',
        arguments: { document_id: documentId, corpus_id: corpusId, title: 'Rent', content: '2000' },
      });
      expect(added.isError).toBeFalsy();
      expect(textOf(await a.callTool({ name: 'get_notes_for_document_corpus', arguments: { document_id: documentId, corpus_id: corpusId } }))).toContain(
        '"title":"Rent"',
      );
      expect(textOf(await a.callTool({ name: 'list_documents', arguments: { corpus_id: corpusId } }))).toContain('mcp-lease.md');
      const foreign = await b.callTool({ name: 'load_document_txt_extract', arguments: { document_id: documentId } });
      expect(foreign.isError).toBe(true);
      expect(textOf(foreign)).toMatch(/not found/);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
