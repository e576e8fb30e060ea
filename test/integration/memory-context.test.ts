import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';
import { newUser, type Caller } from '../support/client.js';
import { chat, followTurn, GATED_AGENT, registerAgent, send, untilPaused, useAgentServer, type Event } from '../support/agents.js';
import {
  AppendMessagesDocument,
  ApprovalsDocument,
  DecideApprovalDocument,
  TurnDocument,
  TurnRecordDocument,
  TurnTreeDocument,
  UpsertEntityDocument,
} from '../generated/graphql.js';

const env = useAgentServer();

/** What the model was sent in the `i`th chat request, as role: content lines. */
const sentTo = (i: number): { role: string; content: string }[] => env.fake.chatRequests[i]!.body.messages;

const approvalsOf = (events: Event[]) =>
  events.filter((e): e is Extract<Event, { __typename: 'ApprovalNeededEvent' }> => e.__typename === 'ApprovalNeededEvent');
const lastSeq = (events: Event[]) => (events.at(-1) as { seq: number }).seq;

async function until(check: () => Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function readProfile(user: Caller): Promise<any> {
  const client = new Client({ name: 'remgraph-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(env.server.url.replace(/\/graphql$/, '/mcp')), { requestInit: { headers: user.headers } }));
  try {
    const read = await client.readResource({ uri: `user://profile/${user.headers['x-user-id']}` });
    return JSON.parse((read.contents[0] as { text: string }).text);
  } finally {
    await client.close();
  }
}

describe('memory and context', () => {
  it('reads one profile entity, user-<id>, for turns and for the MCP user://profile resource', async () => {
    const user = newUser(env.server.url);
    const key = `user-${user.headers['x-user-id']}`;
    const written = await user.data(UpsertEntityDocument, { input: { key, name: 'Ada', entityType: 'profile', summary: 'Prefers short answers.' } });
    expect(written.upsertEntity.__typename).toBe('UpsertEntitySuccess');

    env.fake.enqueue({ text: 'Hi Ada.' });
    await chat(env.server.url, user, { content: 'Hello' });
    const memory = sentTo(0).filter((m) => m.role === 'system' && m.content.startsWith('[Memory: user profile'));
    expect(memory).toHaveLength(1);
    expect(memory[0]!.content.split('\n')).toEqual([`[Memory: user profile (REM LOOKUP "${key}")]`, 'Ada', 'Prefers short answers.']);

    const resource = await readProfile(user);
    expect(resource.profile).toMatchObject({ key, name: 'Ada', summary: 'Prefers short answers.' });
  });

  it('injects the profile into every model call of a session without storing a copy per turn', async () => {
    const user = newUser(env.server.url);
    await user.data(UpsertEntityDocument, { input: { key: `user-${user.headers['x-user-id']}`, name: 'Ada', entityType: 'profile', summary: 'Likes tea.' } });
    env.fake.enqueue({ text: 'One.' }, { text: 'Two.' }, { text: 'Three.' });
    const first = await chat(env.server.url, user, { content: 'First' });
    const sessionId = first.sent.session.id;
    await chat(env.server.url, user, { content: 'Second', sessionId });
    const third = await chat(env.server.url, user, { content: 'Third', sessionId });

    for (const i of [0, 1, 2]) {
      expect(
        sentTo(i).filter((m) => m.content?.includes('Likes tea.')),
        `call ${i}`,
      ).toHaveLength(1);
    }
    const rows = (await user.data(TurnRecordDocument, { id: third.sent.turn.id })).turn!.session.messages.edges.map((e) => e.node);
    expect(rows.map((m) => m.type)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant']);
  });

  it('loads appended system messages and observations into the context, as p8 does, and leaves tool rows out', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: observer\ndescription: You observe.\ntools:\n  - name: action\n');
    env.fake.enqueue({ toolCalls: [{ id: 'o1', name: 'action', arguments: { type: 'observation', payload: { confidence: 0.9 } } }] }, { text: 'Checked.' });
    const first = await chat(env.server.url, user, { content: 'Check it', agent: 'observer' });
    const sessionId = first.sent.session.id;
    const appended = await user.data(AppendMessagesDocument, { sessionId, messages: [{ type: 'system', content: '[Session context] The user is in Paris.' }] });
    expect(appended.appendMessages.__typename).toBe('AppendMessagesPayload');

    env.fake.enqueue({ text: 'Bonjour.' });
    await chat(env.server.url, user, { content: 'And now?', agent: 'observer', sessionId });
    const [, , ...history] = sentTo(2);
    expect(history).toEqual([
      { role: 'user', content: 'Check it' },
      { role: 'user', content: '[Observation] {"confidence":0.9}' },
      { role: 'assistant', content: 'Checked.' },
      { role: 'system', content: '[Session context] The user is in Paris.' },
      { role: 'user', content: 'And now?' },
    ]);
  });

  it('still sends X-Added-Instruction with the model calls after an approval resume, storing it in no message', async () => {
    const instruction = 'Answer in French (marker-12).';
    const user = newUser(env.server.url, undefined, { 'x-added-instruction': instruction });
    await registerAgent(user, GATED_AGENT);
    env.fake.enqueue({ toolCalls: [{ id: 'g1', name: 'action', arguments: { type: 'deploy' } }] });
    const sent = await send(user, { content: 'deploy it', agent: 'careful' });
    const before = await untilPaused(env.server.url, user, sent.turn.id);

    env.fake.enqueue({ text: 'Déployé.' });
    await user.data(DecideApprovalDocument, { id: approvalsOf(before)[0]!.approvalId, approve: true });
    const after = await followTurn(env.server.url, user, sent.turn.id, lastSeq(before));
    expect(after.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'COMPLETED' });
    for (const i of [0, 1]) expect(sentTo(i)[1]!.content.endsWith(`\n\n${instruction}`), `call ${i}`).toBe(true);
    const rows = (await user.data(TurnRecordDocument, { id: sent.turn.id })).turn!.session.messages.edges.map((e) => e.node);
    expect(JSON.stringify(rows)).not.toContain('marker-12');
  });

  it('takes a child’s approval after its parent’s gated ask_agent call was approved: the turn completes, each tool run once', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: gboss\ndescription: You delegate.\ntools:\n  - name: ask_agent\n    requires_approval: true\n');
    await registerAgent(user, 'name: gresearcher\ndescription: You publish.\ntools:\n  - name: action\n    requires_approval: true\n');
    env.fake.enqueue({ toolCalls: [{ id: 'ask', name: 'ask_agent', arguments: { agent_name: 'gresearcher', input_text: 'publish it' } }] });
    const sent = await send(user, { content: 'publish the research', agent: 'gboss' });
    const before = await untilPaused(env.server.url, user, sent.turn.id);

    env.fake.enqueue({ toolCalls: [{ id: 'pub', name: 'action', arguments: { type: 'publish' } }] });
    await user.data(DecideApprovalDocument, { id: approvalsOf(before)[0]!.approvalId, approve: true });
    const pending = async () => (await user.data(ApprovalsDocument, { status: 'PENDING', sessionId: sent.session.id })).approvals.edges.map((e) => e.node);
    const status = async () => (await user.data(TurnTreeDocument, { id: sent.turn.id })).turn!.status;
    await until(async () => (await pending()).length > 0 || !['RUNNING', 'AWAITING_APPROVAL'].includes(await status()));
    const [childApproval] = await pending();
    expect(childApproval).toMatchObject({ toolName: 'action', agentPath: ['gboss', 'gresearcher'] });

    env.fake.enqueue({ text: 'Published.' }, { text: 'The research is published.' });
    await user.data(DecideApprovalDocument, { id: childApproval!.id, approve: true });
    const events = await followTurn(env.server.url, user, sent.turn.id);
    expect(events.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'COMPLETED', content: 'The research is published.' });

    const tree = (await user.data(TurnTreeDocument, { id: sent.turn.id })).turn!;
    expect(tree.children).toMatchObject([{ agent: 'gresearcher', status: 'COMPLETED' }]);
    const logOf = async (id: string) => (await user.data(TurnDocument, { id })).turn!.toolCallsLog;
    expect(await logOf(sent.turn.id)).toMatchObject([{ tool: 'ask_agent', isError: false }]);
    expect(await logOf(tree.children[0]!.id)).toMatchObject([{ tool: 'action', isError: false }]);
  });

  it('applies request_limit and total_tokens_limit per agent run: a child’s usage does not count against its parent’s limits', async () => {
    const user = newUser(env.server.url);
    await registerAgent(
      user,
      'name: lboss\ndescription: You delegate.\ntools:\n  - name: ask_agent\nlimits:\n  request_limit: 2\n  total_tokens_limit: 1000\n',
    );
    await registerAgent(user, 'name: lworker\ndescription: You work.\ntools:\n  - name: action\nlimits:\n  request_limit: 2\n');
    const note = (id: string) => ({ toolCalls: [{ id, name: 'action', arguments: { type: 'note' } }], usage: { prompt_tokens: 600, completion_tokens: 10 } });
    env.fake.enqueue(
      {
        toolCalls: [{ id: 'ask', name: 'ask_agent', arguments: { agent_name: 'lworker', input_text: 'work' } }],
        usage: { prompt_tokens: 10, completion_tokens: 5 },
      },
      note('n1'),
      note('n2'),
      { text: 'Done.', usage: { prompt_tokens: 10, completion_tokens: 5 } },
    );
    const { events, turn } = await chat(env.server.url, user, { content: 'get it done', agent: 'lboss' });

    // The parent made 2 calls and used 30 tokens of its own; the tree's usage still adds the child's.
    expect(events.at(-1)).toMatchObject({
      __typename: 'FinalEvent',
      status: 'COMPLETED',
      content: 'Done.',
      usage: { requests: 4, inputTokens: 1220, outputTokens: 30 },
    });
    const tree = (await user.data(TurnTreeDocument, { id: turn.id })).turn!;
    expect(tree.children).toMatchObject([{ agent: 'lworker', status: 'MAX_ITERATIONS', usage: { requests: 2 } }]);
  });
});
