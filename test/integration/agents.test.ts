import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, newUser } from '../support/client.js';
import { startTestServer, type TestServer } from '../support/server.js';
import { AgentDocument, AgentsDocument, DeleteAgentDocument, RegisterAgentDocument, ValidateAgentDocument } from '../generated/graphql.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.stop();
});

const NOTES = `
name: note-taker
description: |
  You take careful notes.
tools:
  - name: register_metadata
    description: Record what you learned
properties:
  summary:
    type: string
    description: One-line summary
required: [summary]
`;

describe('agent registry', () => {
  it('lists the built-in agents with their assembled system prompts', async () => {
    const user = newUser(server.url);
    const { agents } = await user.data(AgentsDocument, { first: 50 });
    const names = agents.edges.map((e) => e.node.name);
    expect(names).toEqual(expect.arrayContaining(['general', 'sample', 'dreaming', 'answer-quality']));
    const dreaming = agents.edges.find((e) => e.node.name === 'dreaming')!.node;
    expect(dreaming).toMatchObject({ origin: 'BUILTIN', version: null, shared: true, structuredOutput: true });
    const evaluators = await user.data(AgentsDocument, { kind: 'EVALUATOR' });
    expect(evaluators.agents.edges.map((e) => e.node.name)).toEqual(['answer-quality']);
    // Chat pickers list chat agents: remgraph's own router, dreaming and evaluators are internal.
    const chat = await user.data(AgentsDocument, { audience: 'CHAT', first: 50 });
    expect(chat.agents.edges.map((e) => e.node.name)).toEqual(['general', 'sample']);
    const internal = await user.data(AgentsDocument, { audience: 'INTERNAL', first: 50 });
    expect(internal.agents.edges.map((e) => e.node.name)).toEqual(['answer-quality', 'dreaming', 'email-classifier', 'email-drafter', 'router']);
  });

  it('registers immutable versions: same content keeps the version, new content gets the next', async () => {
    const user = newUser(server.url);
    const v1 = await user.data(RegisterAgentDocument, { yaml: NOTES });
    expect(v1.registerAgent).toMatchObject({ created: true, agent: { name: 'note-taker', version: 1, origin: 'REGISTERED', shared: false } });
    const again = await user.data(RegisterAgentDocument, { yaml: `# a comment\n${NOTES}\n` });
    expect(again.registerAgent).toMatchObject({ created: false, agent: { version: 1 } });
    const v2 = await user.data(RegisterAgentDocument, { yaml: NOTES.replace('careful', 'very careful') });
    expect(v2.registerAgent).toMatchObject({ created: true, agent: { version: 2 } });

    const latest = await user.data(AgentDocument, { name: 'note-taker' });
    expect(latest.agent?.version).toBe(2);
    expect(latest.agent?.systemPrompt).toContain('You take very careful notes.');
    expect(latest.agent?.systemPrompt).toContain('## Tool Notes');
    expect(latest.agent?.systemPrompt).toContain('## Thinking Structure');
    const first = await user.data(AgentDocument, { name: 'note-taker', version: 1 });
    expect(first.agent?.description).toContain('You take careful notes.');
  });

  it('keeps one user’s agents from another, and lets the owner delete them', async () => {
    const alice = newUser(server.url);
    const bob = newUser(server.url);
    await alice.data(RegisterAgentDocument, { yaml: NOTES });
    expect(errorCode(await bob.request(AgentDocument, { name: 'note-taker' }))).toBe('NOT_FOUND');
    expect((await bob.data(DeleteAgentDocument, { name: 'note-taker' })).deleteAgent).toMatchObject({ code: 'NOT_FOUND' });
    expect((await alice.data(DeleteAgentDocument, { name: 'note-taker' })).deleteAgent).toMatchObject({ deletedVersions: 1 });
    expect(errorCode(await alice.request(AgentDocument, { name: 'note-taker' }))).toBe('NOT_FOUND');
  });

  it('lets only admins register shared agents', async () => {
    const tenant = `t-${Date.now()}`;
    const user = newUser(server.url, tenant);
    const admin = newUser(server.url, tenant, { 'x-roles': 'admin' });
    const refused = await user.data(RegisterAgentDocument, { yaml: NOTES, shared: true });
    expect(refused.registerAgent).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
    const shared = await admin.data(RegisterAgentDocument, { yaml: NOTES, shared: true });
    expect(shared.registerAgent).toMatchObject({ agent: { shared: true, version: 1 } });
    expect((await user.data(AgentDocument, { name: 'note-taker' })).agent).toMatchObject({ shared: true });
  });

  it('validates without storing', async () => {
    const user = newUser(server.url);
    const ok = await user.data(ValidateAgentDocument, { yaml: NOTES });
    expect(ok.validateAgent).toMatchObject({ __typename: 'AgentValidation', name: 'note-taker' });
    expect(errorCode(await user.request(AgentDocument, { name: 'note-taker' }))).toBe('NOT_FOUND');
  });

  it.each([
    ['a YAML syntax error', 'name: x\ndescription: [unclosed\n', { line: 3, message: expect.stringMatching(/^YAML syntax/) }],
    ['a duplicated key', 'name: x\nname: y\ndescription: d\n', { line: 2 }],
    ['an unknown key', 'name: x\ndescription: d\ntoolz: []\n', { path: ['toolz'], line: 3, column: 1 }],
    ['a wrong type', 'name: x\ndescription: d\nmax_iterations: many\n', { path: ['max_iterations'], line: 3 }],
    ['an unknown tool', 'name: x\ndescription: d\ntools:\n  - name: launch_missiles\n', { path: ['tools', '0', 'name'] }],
    ['an invalid JSON schema', 'name: x\ndescription: d\nproperties:\n  a:\n    type: strnig\n', { line: 5 }],
  ])('rejects %s with a located, typed error and stores nothing', async (_what, yaml, issue) => {
    const user = newUser(server.url);
    const before = await server.db.prisma.agent.count();
    const res = await user.data(RegisterAgentDocument, { yaml });
    expect(res.registerAgent).toMatchObject({ __typename: 'ValidationError', code: 'VALIDATION_FAILED' });
    const issues = (res.registerAgent as { issues: unknown[] }).issues;
    expect(issues).toEqual(expect.arrayContaining([expect.objectContaining(issue)]));
    const validated = await user.data(ValidateAgentDocument, { yaml });
    expect(validated.validateAgent.__typename).toBe('ValidationError');
    expect(await server.db.prisma.agent.count()).toBe(before);
  });
});

describe('agent lookups', () => {
  const agentQueries = { count: 0 };
  let observed: TestServer;
  beforeAll(async () => {
    observed = await startTestServer({}, { observe: (query) => void (query.model === 'Agent' && (agentQueries.count += 1)) });
  });
  afterAll(async () => {
    await observed?.stop();
  });

  it('ask the database once per tenant and name while none is registered there, then find each caller’s own', async () => {
    const tenant = `t-${randomUUID()}`;
    const users = Array.from({ length: 5 }, () => newUser(observed.url, tenant));
    agentQueries.count = 0;
    // A burst of new users' first turns: one lookup between them, not one each.
    const first = await Promise.all(users.map((user) => user.data(AgentDocument, { name: 'general' })));
    expect(first.map((answer) => answer.agent?.origin)).toEqual(Array(5).fill('BUILTIN'));
    expect(agentQueries.count).toBe(1);

    const own = NOTES.replace('name: note-taker', 'name: general');
    await users[0]!.data(RegisterAgentDocument, { yaml: own });
    expect((await users[0]!.data(AgentDocument, { name: 'general' })).agent).toMatchObject({ origin: 'REGISTERED', version: 1 });
    expect((await users[1]!.data(AgentDocument, { name: 'general' })).agent).toMatchObject({ origin: 'BUILTIN' });
    expect((await newUser(observed.url, tenant).data(AgentDocument, { name: 'general' })).agent).toMatchObject({ origin: 'BUILTIN' });

    await users[0]!.data(DeleteAgentDocument, { name: 'general' });
    expect((await users[0]!.data(AgentDocument, { name: 'general' })).agent).toMatchObject({ origin: 'BUILTIN' });
  });
});
