import { describe, expect, it } from 'vitest';
import { collect, newUser, wsClient } from '../support/client.js';
import { followTurn, registerAgent, send, shape, useAgentServer, type Event } from '../support/agents.js';
import { CancelTurnDocument, DecideApprovalDocument, TurnDocument, TurnEventsDocument, TurnTreeDocument } from '../generated/graphql.js';
import type { Caller } from '../support/client.js';

const env = useAgentServer({ MAX_AGENT_DEPTH: '2' });

const agent = (name: string, tools: string[], extra = '') =>
  `name: ${name}\ndescription: You are ${name}.\ntools:\n${tools.map((t) => `  - name: ${t}\n`).join('')}${extra}`;

async function team(user: Caller, options: { gatedResearcher?: boolean } = {}) {
  await registerAgent(user, agent('boss', ['ask_agent']));
  await registerAgent(user, agent('middle', ['ask_agent']));
  await registerAgent(user, agent('leaf', ['action']));
  await registerAgent(
    user,
    options.gatedResearcher
      ? `name: researcher\ndescription: You research.\ntools:\n  - name: action\n    requires_approval: true\n`
      : agent('researcher', ['action']),
  );
}

const ask = (agentName: string, id = `ask-${agentName}`) => ({
  toolCalls: [{ id, name: 'ask_agent', arguments: { agent_name: agentName, input_text: `please help, ${agentName}` } }],
});
const childEvents = (events: Event[]) => events.filter((e): e is Extract<Event, { __typename: 'ChildEvent' }> => e.__typename === 'ChildEvent');

describe('ask_agent delegation', () => {
  it('streams the child live into the parent and does not stream its answer twice', async () => {
    const user = newUser(env.server.url);
    await team(user);
    const answer = 'Lisbon has 545,000 inhabitants.';
    env.fake.enqueue(ask('researcher'), { text: answer.split(/(?<= )/), delayMs: 40, usage: { prompt_tokens: 10, completion_tokens: 5 } }, { text: answer });
    const sent = await send(user, { content: 'How big is Lisbon?', agent: 'boss' });

    const arrivals: { event: Event; at: number }[] = [];
    const client = wsClient(env.server.url, user.headers);
    const sub = collect(client, TurnEventsDocument, { turnId: sent.turn.id });
    const timer = setInterval(() => {
      while (arrivals.length < sub.items.length) arrivals.push({ event: sub.items[arrivals.length]!.data!.turnEvents, at: Date.now() });
    }, 1);
    const events = (await sub.done).map((i) => i.data!.turnEvents);
    clearInterval(timer);
    await client.dispose();

    expect(shape(events)).toEqual(['tool_call', ...childEvents(events).map(() => 'child'), 'tool_result', 'final']);
    const children = childEvents(events);
    expect(children.map((c) => c.event.__typename)).toEqual([...answer.split(/(?<= )/).map(() => 'ContentEvent'), 'FinalEvent']);
    expect(children[0]).toMatchObject({ childAgent: 'researcher', path: ['boss', 'researcher'], event: { agent: 'researcher', depth: 1, seq: 1 } });
    // Live, not after the fact: the child's first token reached the client before the child finished.
    const tree = (await user.data(TurnTreeDocument, { id: sent.turn.id })).turn!;
    const child = tree.children[0]!;
    const childFinished = await env.server.db.prisma.turn.findUniqueOrThrow({
      where: { id: (await import('@pothos/plugin-relay')).decodeGlobalID(child.id).id },
    });
    const firstChildArrival = arrivals.find((a) => a.event.__typename === 'ChildEvent')!.at;
    expect(firstChildArrival).toBeLessThan(childFinished.finishedAt!.getTime());

    // The parent repeated the child's answer verbatim: it is the final content but was not streamed again.
    expect(events.filter((e) => e.__typename === 'ContentEvent')).toEqual([]);
    expect(events.at(-1)).toMatchObject({ status: 'COMPLETED', content: answer });
    expect(events.find((e) => e.__typename === 'ToolResultEvent')).toMatchObject({ name: 'ask_agent', result: { agent: 'researcher', answer } });

    expect(child).toMatchObject({ agent: 'researcher', status: 'COMPLETED', depth: 1, agentPath: ['boss', 'researcher'] });
    expect(tree.usage.requests).toBe(3);
    expect(tree.usage.requests - child.usage.requests).toBe(2);
    const turn = (await user.data(TurnDocument, { id: sent.turn.id })).turn!;
    expect(turn.session.messages.edges.map((e) => [e.node.type, e.node.toolName ?? null])).toEqual([
      ['user', null],
      ['tool_call', null],
      ['tool_response', 'ask_agent'],
      ['assistant', null],
    ]);
  });

  it('nests two levels deep with the full path on every forwarded event', async () => {
    const user = newUser(env.server.url);
    await team(user);
    env.fake.enqueue(ask('middle'), ask('leaf'), { text: 'leaf result' }, { text: 'middle summary' }, { text: 'boss answer' });
    const sent = await send(user, { content: 'go deep', agent: 'boss' });
    const events = await followTurn(env.server.url, user, sent.turn.id);
    const fromLeaf = childEvents(events).filter((c) => c.childAgent === 'leaf');
    expect(fromLeaf.length).toBeGreaterThan(0);
    expect(fromLeaf[0]).toMatchObject({ path: ['boss', 'middle', 'leaf'], event: { depth: 2, agent: 'leaf' } });
    expect(events.at(-1)).toMatchObject({ status: 'COMPLETED', content: 'boss answer', usage: { requests: 5 } });
    const tree = (await user.data(TurnTreeDocument, { id: sent.turn.id })).turn!;
    expect(tree.children[0]).toMatchObject({ agent: 'middle', children: [{ agent: 'leaf', status: 'COMPLETED' }] });
  });

  it('refuses to go deeper than MAX_AGENT_DEPTH with a clear tool error', async () => {
    const user = newUser(env.server.url);
    await team(user);
    await registerAgent(user, agent('leaf', ['ask_agent']));
    env.fake.enqueue(ask('middle'), ask('leaf'), ask('researcher'), { text: 'cannot go deeper' }, { text: 'middle done' }, { text: 'boss done' });
    const sent = await send(user, { content: 'too deep', agent: 'boss' });
    const events = await followTurn(env.server.url, user, sent.turn.id);
    const refused = childEvents(events).find((c) => c.childAgent === 'leaf' && c.event.__typename === 'ToolCallEvent');
    expect(refused).toBeDefined();
    const leafTurn = await env.server.db.prisma.turn.findFirstOrThrow({
      where: { agent: 'leaf', depth: 2, sessionId: (await import('@pothos/plugin-relay')).decodeGlobalID(sent.session.id).id },
    });
    expect(leafTurn.toolCallsLog).toMatchObject([
      {
        tool: 'ask_agent',
        isError: true,
        result: { error: expect.stringMatching(/Delegation depth limit reached: boss → middle → leaf .*MAX_AGENT_DEPTH 2/) },
      },
    ]);
    expect(events.at(-1)).toMatchObject({ status: 'COMPLETED' });
  });

  it('pauses the whole tree for a child’s gated call and resumes child then parent', async () => {
    const user = newUser(env.server.url);
    await team(user, { gatedResearcher: true });
    env.fake.enqueue(ask('researcher'), { toolCalls: [{ id: 'g', name: 'action', arguments: { type: 'publish' } }] });
    const sent = await send(user, { content: 'publish research', agent: 'boss' });
    const client = wsClient(env.server.url, user.headers);
    const first = collect(client, TurnEventsDocument, { turnId: sent.turn.id }, (items) =>
      items.some((i) => (i.data?.turnEvents as { event?: { __typename: string } }).event?.__typename === 'ApprovalNeededEvent'),
    );
    const before = (await first.done).map((i) => i.data!.turnEvents);
    await client.dispose();
    await until(async () => (await user.data(TurnTreeDocument, { id: sent.turn.id })).turn!.status === 'AWAITING_APPROVAL');
    const tree = (await user.data(TurnTreeDocument, { id: sent.turn.id })).turn!;
    expect(tree.children[0]).toMatchObject({ agent: 'researcher', status: 'AWAITING_APPROVAL' });
    const needed = childEvents(before).find((c) => c.event.__typename === 'ApprovalNeededEvent')!.event as { approvalId: string; agentPath: string[] };
    expect(needed.agentPath).toEqual(['boss', 'researcher']);

    env.fake.enqueue({ text: 'Published.' }, { text: 'The research is published.' });
    const decided = await user.data(DecideApprovalDocument, { id: needed.approvalId, approve: true });
    expect(decided.decideApproval).toMatchObject({ approval: { agentPath: ['boss', 'researcher'], status: 'APPROVED' } });
    const lastSeq = (before.at(-1) as { seq: number }).seq;
    const after = await followTurn(env.server.url, user, sent.turn.id, lastSeq);
    const forwarded = childEvents(after).map((c) => c.event.__typename);
    expect(forwarded.slice(0, 2)).toEqual(['ApprovalResultEvent', 'ResumeEvent']);
    expect(forwarded).toContain('FinalEvent');
    expect(after.at(-1)).toMatchObject({ status: 'COMPLETED', content: 'The research is published.' });
    const all = (await user.data(TurnDocument, { id: sent.turn.id })).turn!.events;
    expect(all.map((e) => (e as { seq: number }).seq)).toEqual(all.map((_, i) => i + 1));
  });

  it('takes a decision for one child while its sibling still streams: both finish, the parent continues, the log stays gap-free', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, agent('coordinator', ['ask_agent']));
    await registerAgent(user, `name: researcher\ndescription: You are researcher.\ntools:\n  - name: action\n    requires_approval: true\n`);
    await registerAgent(user, agent('writer', ['register_metadata']));
    const draft = Array.from({ length: 30 }, (_, i) => `word${i} `);
    // The two children ask in either order: each gets the reply meant for it.
    const child = (request: { body: { messages: { content: string }[] } }) =>
      String(request.body.messages[0]!.content).includes('You are researcher.')
        ? { text: 'Checking. ', toolCalls: [{ id: 'publish', name: 'action', arguments: { type: 'publish' } }] }
        : { text: draft, delayMs: 60 };
    env.fake.enqueue(
      { toolCalls: [...ask('researcher', 'ask-r').toolCalls, ...ask('writer', 'ask-w').toolCalls] },
      child,
      child,
      { text: 'Published.' },
      { text: 'Both done.' },
    );
    const sent = await send(user, { content: 'split the work', agent: 'coordinator' });
    const client = wsClient(env.server.url, user.headers);
    const sub = collect(client, TurnEventsDocument, { turnId: sent.turn.id });
    let needed: { approvalId: string } | undefined;
    await until(() => {
      needed = childEvents(sub.items.map((i) => i.data!.turnEvents)).find((c) => c.event.__typename === 'ApprovalNeededEvent')?.event as
        { approvalId: string } | undefined;
      return needed !== undefined;
    });
    const writerBefore = childEvents(sub.items.map((i) => i.data!.turnEvents)).filter(
      (c) => c.childAgent === 'writer' && c.event.__typename === 'ContentEvent',
    ).length;
    await user.data(DecideApprovalDocument, { id: needed!.approvalId, approve: true });
    const events = (await sub.done).map((i) => i.data!.turnEvents);
    await client.dispose();

    expect(writerBefore).toBeLessThan(draft.length);
    expect(events.map((e) => (e as { seq: number }).seq)).toEqual(events.map((_, i) => i + 1));
    const finals = childEvents(events).filter((c) => c.event.__typename === 'FinalEvent');
    expect(finals.map((c) => [c.childAgent, (c.event as { status: string }).status]).sort()).toEqual([
      ['researcher', 'COMPLETED'],
      ['writer', 'COMPLETED'],
    ]);
    const writerText = childEvents(events)
      .filter((c) => c.childAgent === 'writer' && c.event.__typename === 'ContentEvent')
      .map((c) => (c.event as { delta: string }).delta)
      .join('');
    expect(writerText).toBe(draft.join(''));
    const results = events.filter((e) => e.__typename === 'ToolResultEvent') as { toolCallId: string; isError: boolean }[];
    expect(results.map((r) => [r.toolCallId, r.isError]).sort()).toEqual([
      ['ask-r', false],
      ['ask-w', false],
    ]);
    expect(events.at(-1)).toMatchObject({ status: 'COMPLETED', content: 'Both done.' });
    const tree = (await user.data(TurnTreeDocument, { id: sent.turn.id })).turn!;
    expect(tree.children.map((c) => c.status)).toEqual(['COMPLETED', 'COMPLETED']);
  });

  it('cancels the children with the parent', async () => {
    const user = newUser(env.server.url);
    await team(user);
    env.fake.enqueue(ask('researcher'), { text: ['still ', 'thinking'], stallAfterChunks: 2 });
    const sent = await send(user, { content: 'slow', agent: 'boss' });
    const client = wsClient(env.server.url, user.headers);
    const sub = collect(client, TurnEventsDocument, { turnId: sent.turn.id });
    await until(async () => sub.items.some((i) => i.data?.turnEvents.__typename === 'ChildEvent'));
    await user.data(CancelTurnDocument, { id: sent.turn.id });
    const events = (await sub.done).map((i) => i.data!.turnEvents);
    await client.dispose();
    expect(events.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'CANCELLED' });
    const tree = (await user.data(TurnTreeDocument, { id: sent.turn.id })).turn!;
    expect(tree.status).toBe('CANCELLED');
    expect(tree.children.map((c) => c.status)).toEqual(['CANCELLED']);
  });

  it('with debug, streams each model call’s request body just before the call, its child agent’s too; without, none', async () => {
    const user = newUser(env.server.url);
    await team(user);
    env.fake.enqueue(ask('researcher'), { text: 'Small.' }, { text: 'It is small.' });
    const debugged = await send(user, { content: 'How big is Lisbon?', agent: 'boss', debug: true });
    const events = await followTurn(env.server.url, user, debugged.turn.id);
    const bodies = env.fake.chatRequests.map((r) => r.body);
    expect(shape(events)).toEqual(['model_request', 'tool_call', 'child', 'child', 'child', 'tool_result', 'model_request', 'content*', 'final']);
    const requests = events.filter((e): e is Extract<Event, { __typename: 'ModelRequestEvent' }> => e.__typename === 'ModelRequestEvent');
    expect(requests.map((e) => [e.iteration, e.model, e.body])).toEqual([
      [1, 'openai:fake-model', bodies[0]],
      [2, 'openai:fake-model', bodies[2]],
    ]);
    // The child inherits debug: its own request comes before its answer.
    expect(childEvents(events).map((c) => c.event.__typename)).toEqual(['ModelRequestEvent', 'ContentEvent', 'FinalEvent']);
    expect(childEvents(events)[0]!.event).toMatchObject({ iteration: 1, body: bodies[1] });

    env.fake.enqueue(ask('researcher'), { text: 'Small.' }, { text: 'It is small.' });
    const plain = await send(user, { content: 'How big is Lisbon?', agent: 'boss' });
    const plainEvents = await followTurn(env.server.url, user, plain.turn.id);
    expect(shape(plainEvents)).toEqual(['tool_call', 'child', 'child', 'tool_result', 'content*', 'final']);
  });
});

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
