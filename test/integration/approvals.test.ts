import { describe, expect, it } from 'vitest';
import { collect, newUser, wsClient } from '../support/client.js';
import { followTurn, GATED_AGENT, registerAgent, send, shape, untilPaused, useAgentServer, type Event } from '../support/agents.js';
import { ApprovalsChangedDocument, ApprovalsDocument, DecideApprovalDocument, TurnDocument, TurnTreeDocument } from '../generated/graphql.js';

const env = useAgentServer();

const seqOf = (events: Event[]) => (events.at(-1) as { seq: number }).seq;

describe('approvals', () => {
  it('pauses on a gated call, runs it once approved and continues', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, GATED_AGENT);
    env.fake.enqueue({ toolCalls: [{ id: 'g1', name: 'action', arguments: { type: 'deploy' } }] });
    const sent = await send(user, { content: 'deploy it', agent: 'careful' });
    const before = await untilPaused(env.server.url, user, sent.turn.id);
    expect(shape(before)).toEqual(['tool_call', 'approval_needed']);
    const needed = before[1] as Extract<Event, { __typename: 'ApprovalNeededEvent' }>;
    expect(needed).toMatchObject({ toolCallId: 'g1', name: 'action', arguments: { type: 'deploy' }, agentPath: ['careful'] });

    const paused = (await user.data(TurnTreeDocument, { id: sent.turn.id })).turn!;
    expect(paused.status).toBe('AWAITING_APPROVAL');
    expect(paused.approvals).toMatchObject([{ id: needed.approvalId, status: 'PENDING', toolName: 'action', approved: null }]);
    const pending = await user.data(ApprovalsDocument, { status: 'PENDING', sessionId: sent.session.id });
    expect(pending.approvals.edges.map((e) => e.node.id)).toEqual([needed.approvalId]);

    env.fake.enqueue({ text: 'Deployed.' });
    const decided = await user.data(DecideApprovalDocument, { id: needed.approvalId, approve: true, reason: 'looks fine' });
    expect(decided.decideApproval).toMatchObject({
      __typename: 'DecideApprovalSuccess',
      approval: { status: 'APPROVED', approved: true, reason: 'looks fine' },
    });
    const after = await followTurn(env.server.url, user, sent.turn.id, seqOf(before));
    expect(shape(after)).toEqual(['approval_result', 'resume', 'action', 'tool_result', 'content*', 'final']);
    expect(after[0]).toMatchObject({ approvalId: needed.approvalId, approved: true, decidedBy: user.headers['x-user-id'] });
    expect(after.at(-1)).toMatchObject({ status: 'COMPLETED', content: 'Deployed.' });

    const turn = (await user.data(TurnDocument, { id: sent.turn.id })).turn!;
    expect(turn.toolCallsLog).toMatchObject([{ tool: 'action', toolCallId: 'g1', isError: false, result: { recorded: true } }]);
    expect(turn.session.messages.edges.map((e) => e.node.type)).toEqual(['user', 'tool_call', 'tool_response', 'assistant']);
    expect(turn.events.map((e) => (e as { seq: number }).seq)).toEqual(turn.events.map((_, i) => i + 1));
  });

  it('tells the model about a rejection and lets it finish', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, GATED_AGENT);
    env.fake.enqueue({ toolCalls: [{ id: 'r1', name: 'action', arguments: { type: 'delete' } }] });
    const sent = await send(user, { content: 'delete it', agent: 'careful' });
    const before = await untilPaused(env.server.url, user, sent.turn.id);
    const approvalId = (before[1] as { approvalId: string }).approvalId;
    env.fake.enqueue({ text: 'Understood, I will not delete it.' });
    await user.data(DecideApprovalDocument, { id: approvalId, approve: false, reason: 'too risky' });
    const after = await followTurn(env.server.url, user, sent.turn.id, seqOf(before));
    expect(shape(after)).toEqual(['approval_result', 'tool_result', 'content*', 'final']);
    expect(after[1]).toMatchObject({ isError: true, result: { error: 'A human reviewer rejected this call: too risky' } });
    expect(JSON.parse(env.fake.chatRequests[1]!.body.messages.at(-1).content)).toEqual({ error: 'A human reviewer rejected this call: too risky' });
    expect(after.at(-1)).toMatchObject({ status: 'COMPLETED' });
  });

  it('waits for every gated call of a response, running the ungated ones at once', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, GATED_AGENT);
    env.fake.enqueue({
      toolCalls: [
        { id: 'a', name: 'action', arguments: { type: 'one' } },
        { id: 'm', name: 'register_metadata', arguments: { confidence: 0.9 } },
        { id: 'b', name: 'action', arguments: { type: 'two' } },
      ],
    });
    const sent = await send(user, { content: 'two things', agent: 'careful' });
    const before = await untilPaused(env.server.url, user, sent.turn.id, 2);
    expect(shape(before)).toEqual(['tool_call', 'tool_call', 'tool_call', 'action', 'tool_result', 'approval_needed', 'approval_needed']);
    const [first, second] = before.filter((e) => e.__typename === 'ApprovalNeededEvent') as { approvalId: string; toolCallId: string }[];
    expect([first!.toolCallId, second!.toolCallId]).toEqual(['a', 'b']);

    await user.data(DecideApprovalDocument, { id: first!.approvalId, approve: true });
    expect((await user.data(TurnTreeDocument, { id: sent.turn.id })).turn!.status).toBe('AWAITING_APPROVAL');
    env.fake.enqueue({ text: 'Both handled.' });
    await user.data(DecideApprovalDocument, { id: second!.approvalId, approve: false });
    const after = await followTurn(env.server.url, user, sent.turn.id, seqOf(before));
    expect(shape(after)).toEqual(['approval_result', 'approval_result', 'resume', 'action', 'tool_result', 'tool_result', 'content*', 'final']);
    const toolMessages = env.fake.chatRequests[1]!.body.messages.filter((m: { role: string }) => m.role === 'tool');
    expect(toolMessages.map((m: { tool_call_id: string }) => m.tool_call_id)).toEqual(['m', 'a', 'b']);
  });

  it('records exactly one of ten concurrent decisions and runs the tool once', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, GATED_AGENT);
    env.fake.enqueue({ toolCalls: [{ id: 'c', name: 'action', arguments: { type: 'once' } }] });
    const sent = await send(user, { content: 'race', agent: 'careful' });
    const before = await untilPaused(env.server.url, user, sent.turn.id);
    const approvalId = (before[1] as { approvalId: string }).approvalId;
    env.fake.enqueue({ text: 'Done once.' });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => user.data(DecideApprovalDocument, { id: approvalId, approve: i % 2 === 0 })));
    const kinds = results.map((r) => r.decideApproval.__typename);
    expect(kinds.filter((k) => k === 'DecideApprovalSuccess')).toHaveLength(1);
    expect(kinds.filter((k) => k === 'AlreadyDecidedError')).toHaveLength(9);
    const after = await followTurn(env.server.url, user, sent.turn.id, seqOf(before));
    expect(after.filter((e) => e.__typename === 'ApprovalResultEvent')).toHaveLength(1);
    expect(after.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'COMPLETED' });
    const turn = (await user.data(TurnDocument, { id: sent.turn.id })).turn!;
    expect(turn.events.filter((e) => e.__typename === 'ActionEvent').length).toBeLessThanOrEqual(1);
    expect(turn.toolCallsLog).toHaveLength(1);
  });

  it('lets only the owner decide; others get NOT_FOUND and see nothing', async () => {
    const tenant = `t-${Date.now()}`;
    const alice = newUser(env.server.url, tenant);
    const mallory = newUser(env.server.url, tenant);
    await registerAgent(alice, GATED_AGENT);
    env.fake.enqueue({ toolCalls: [{ id: 'o', name: 'action', arguments: { type: 'mine' } }] });
    const sent = await send(alice, { content: 'mine', agent: 'careful' });
    const before = await untilPaused(env.server.url, alice, sent.turn.id);
    const approvalId = (before[1] as { approvalId: string }).approvalId;
    const attempt = await mallory.data(DecideApprovalDocument, { id: approvalId, approve: true });
    expect(attempt.decideApproval).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
    expect((await mallory.data(ApprovalsDocument, {})).approvals.edges).toEqual([]);
    expect((await alice.data(ApprovalsDocument, { status: 'PENDING' })).approvals.edges).toHaveLength(1);
    // Clean up: the owner rejects and the model finishes.
    env.fake.enqueue({ text: 'ok' });
    await alice.data(DecideApprovalDocument, { id: approvalId, approve: false });
    await followTurn(env.server.url, alice, sent.turn.id, seqOf(before));
  });

  it('streams approval changes to a review console', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, GATED_AGENT);
    const client = wsClient(env.server.url, user.headers);
    const console_ = collect(client, ApprovalsChangedDocument, {}, (items) => items.some((i) => i.data?.approvalsChanged.status === 'APPROVED'));
    await new Promise((r) => setTimeout(r, 100));
    env.fake.enqueue({ toolCalls: [{ id: 'w', name: 'action', arguments: { type: 'watch' } }] });
    const sent = await send(user, { content: 'watch', agent: 'careful' });
    const before = await untilPaused(env.server.url, user, sent.turn.id);
    env.fake.enqueue({ text: 'ok' });
    await user.data(DecideApprovalDocument, { id: (before[1] as { approvalId: string }).approvalId, approve: true });
    const items = (await console_.done).map((i) => i.data!.approvalsChanged.status);
    await client.dispose();
    expect(items).toEqual(['PENDING', 'APPROVED']);
    await followTurn(env.server.url, user, sent.turn.id, seqOf(before));
  });

  it('cancels a paused turn, rejecting what it waited for', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, GATED_AGENT);
    env.fake.enqueue({ toolCalls: [{ id: 'x', name: 'action', arguments: { type: 'never' } }] });
    const sent = await send(user, { content: 'never mind', agent: 'careful' });
    const before = await untilPaused(env.server.url, user, sent.turn.id);
    const { CancelTurnDocument } = await import('../generated/graphql.js');
    const cancelled = await user.data(CancelTurnDocument, { id: sent.turn.id });
    expect(cancelled.cancelTurn).toMatchObject({ turn: { status: 'CANCELLED' } });
    const after = await followTurn(env.server.url, user, sent.turn.id, seqOf(before));
    expect(shape(after)).toEqual(['final']);
    expect((await user.data(TurnTreeDocument, { id: sent.turn.id })).turn!.approvals[0]).toMatchObject({ status: 'REJECTED' });
  });
});
