import { describe, expect, it } from 'vitest';
import { encodeGlobalID, decodeGlobalID } from '@pothos/plugin-relay';
import { newUser } from '../support/client.js';
import { chat, followTurn, registerAgent, send, useAgentServer, type Event } from '../support/agents.js';
import { ApprovalsDocument, DecideApprovalDocument, SendMessageDocument, TurnDocument, TurnTreeDocument } from '../generated/graphql.js';

const env = useAgentServer({ MAX_TOOL_CALLS_PER_RESPONSE: '2', MAX_CHILD_TURNS: '3' });

const agent = (name: string, tools: string[]) => `name: ${name}\ndescription: You are ${name}.\ntools:\n${tools.map((t) => `  - name: ${t}\n`).join('')}`;
const ask = (id: string, who = 'helper') => ({ id, name: 'ask_agent', arguments: { agent_name: who, input_text: `job ${id}` } });
const childEvents = (events: Event[]) => events.filter((e): e is Extract<Event, { __typename: 'ChildEvent' }> => e.__typename === 'ChildEvent');

describe('shared sessions', () => {
  it('are written only by admins: a user gets FORBIDDEN and nothing is stored', async () => {
    const tenant = `t-${Date.now()}`;
    const user = newUser(env.server.url, tenant);
    const admin = newUser(env.server.url, tenant, { 'x-roles': 'admin' });
    const shared = await env.server.db.prisma.session.create({ data: { name: 'team room', tenantId: tenant, userId: null } });
    const sessionId = encodeGlobalID('Session', shared.id);

    const refused = await user.data(SendMessageDocument, { input: { content: 'my private notes', sessionId } });
    expect(refused.sendMessage).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
    expect(await env.server.db.prisma.message.count({ where: { sessionId: shared.id } })).toBe(0);
    expect(await env.server.db.prisma.turn.count({ where: { sessionId: shared.id } })).toBe(0);

    env.fake.enqueue({ text: 'Noted for everyone.' });
    const { turn } = await chat(env.server.url, admin, { content: 'announcement', sessionId });
    expect(turn.status).toBe('COMPLETED');
    expect(await env.server.db.prisma.message.count({ where: { sessionId: shared.id, userId: null } })).toBe(2);
  });
});

describe('fan-out limits', () => {
  it('runs at most MAX_TOOL_CALLS_PER_RESPONSE calls of one response and tells the model about the rest', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, agent('boss', ['ask_agent']));
    await registerAgent(user, agent('helper', ['register_metadata']));
    env.fake.enqueue({ toolCalls: [ask('a'), ask('b'), ask('c'), ask('d')] }, { text: 'first' }, { text: 'second' }, { text: 'Two done.' });
    const { events, turn } = await chat(env.server.url, user, { content: 'fan out', agent: 'boss' });
    const tree = (await user.data(TurnTreeDocument, { id: turn.id })).turn!;
    expect(tree.children).toHaveLength(2);
    const results = events.filter((e) => e.__typename === 'ToolResultEvent') as { toolCallId: string; isError: boolean; result: { error?: string } }[];
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ['a', false],
      ['b', false],
      ['c', true],
      ['d', true],
    ]);
    expect(results[2]!.result.error).toMatch(/Too many tool calls in one response: at most 2/);
    expect(events.at(-1)).toMatchObject({ status: 'COMPLETED' });
  });

  it('starts at most MAX_CHILD_TURNS child turns in one turn, however they are spread', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, agent('boss', ['ask_agent']));
    await registerAgent(user, agent('helper', ['register_metadata']));
    env.fake.enqueue(
      { toolCalls: [ask('a'), ask('b')] },
      { text: 'one' },
      { text: 'two' },
      { toolCalls: [ask('c'), ask('d')] },
      { text: 'three' },
      { text: 'Stopped at three helpers.' },
    );
    const { events } = await chat(env.server.url, user, { content: 'many', agent: 'boss' });
    const results = events.filter((e) => e.__typename === 'ToolResultEvent') as {
      toolCallId: string;
      isError: boolean;
      result: { error?: string; code?: string };
    }[];
    expect(results.map((r) => [r.toolCallId, r.isError])).toEqual([
      ['a', false],
      ['b', false],
      ['c', false],
      ['d', true],
    ]);
    expect(results[3]!.result).toMatchObject({ code: 'LIMIT_EXCEEDED', error: expect.stringMatching(/MAX_CHILD_TURNS 3/) });
  });
});

describe('gating', () => {
  it('keeps a tool gated for the parent gated in every agent it delegates to', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, `name: boss\ndescription: b\ntools:\n  - name: ask_agent\n  - name: action\n    requires_approval: true\n`);
    await registerAgent(user, agent('loose', ['action']));
    env.fake.enqueue(
      { toolCalls: [{ id: 'd', name: 'ask_agent', arguments: { agent_name: 'loose', input_text: 'do the risky thing' } }] },
      { toolCalls: [{ id: 'r', name: 'action', arguments: { type: 'risky' } }] },
    );
    const sent = await send(user, { content: 'go', agent: 'boss' });
    let tree = (await user.data(TurnTreeDocument, { id: sent.turn.id })).turn!;
    for (let i = 0; i < 200 && tree.status !== 'AWAITING_APPROVAL'; i++) {
      await new Promise((r) => setTimeout(r, 25));
      tree = (await user.data(TurnTreeDocument, { id: sent.turn.id })).turn!;
    }
    expect(tree.status).toBe('AWAITING_APPROVAL');
    const child = tree.children[0]!;
    expect(child).toMatchObject({ agent: 'loose', status: 'AWAITING_APPROVAL' });
    const pending = (await user.data(ApprovalsDocument, { status: 'PENDING', sessionId: sent.session.id })).approvals.edges.map((e) => e.node);
    expect(pending).toMatchObject([{ toolName: 'action', agentPath: ['boss', 'loose'] }]);

    env.fake.enqueue({ text: 'Skipped it.' }, { text: 'The helper skipped it.' });
    await user.data(DecideApprovalDocument, { id: pending[0]!.id, approve: false, reason: 'no' });
    const events = await followTurn(env.server.url, user, sent.turn.id);
    expect(childEvents(events).some((c) => c.event.__typename === 'ActionEvent')).toBe(false);
    expect(events.at(-1)).toMatchObject({ status: 'COMPLETED' });
    const childRow = await env.server.db.prisma.turn.findUniqueOrThrow({ where: { id: decodeGlobalID(child.id).id } });
    expect(childRow.toolCallsLog).toMatchObject([{ tool: 'action', isError: true, result: { error: 'A human reviewer rejected this call: no' } }]);
    expect((await user.data(TurnDocument, { id: sent.turn.id })).turn!.status).toBe('COMPLETED');
  });
});
