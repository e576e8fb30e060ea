import { InMemorySpanExporter, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { describe, expect, it } from 'vitest';
import { followTurn, registerAgent, send, useAgentServer } from '../support/agents.js';
import { newUser } from '../support/client.js';
import { TurnTraceDocument } from '../generated/graphql.js';

const exporter = new InMemorySpanExporter();
const env = useAgentServer({ MAX_AGENT_DEPTH: '2' }, { spanExporter: exporter });

interface Node {
  name: string;
  children: Node[];
}

/** The spans under `root` as a tree of names, children in start order. */
function tree(spans: ReadableSpan[], root: ReadableSpan, keep: (s: ReadableSpan) => boolean): Node {
  const children = spans
    .filter((s) => s.parentSpanContext?.spanId === root.spanContext().spanId && keep(s))
    .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  return { name: root.name, children: children.map((c) => tree(spans, c, keep)) };
}

describe('OpenTelemetry spans', () => {
  it('traces a turn with a delegated child: operation → turn → model calls and tools → child turn → REM query; ids on the turn and its messages', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: boss\ndescription: You delegate.\ntools:\n  - name: ask_agent\n');
    await registerAgent(user, 'name: researcher\ndescription: You look things up.\ntools:\n  - name: search\n');
    exporter.reset();
    env.fake.enqueue(
      {
        toolCalls: [{ id: 'ask', name: 'ask_agent', arguments: { agent_name: 'researcher', input_text: 'Who is Sarah?' } }],
        usage: { prompt_tokens: 100, completion_tokens: 10 },
      },
      { toolCalls: [{ id: 'look', name: 'search', arguments: { query: 'LOOKUP "sarah-chen"' } }], usage: { prompt_tokens: 50, completion_tokens: 5 } },
      { text: 'Nobody I know.', usage: { prompt_tokens: 60, completion_tokens: 4 } },
      { text: 'The researcher does not know Sarah.', usage: { prompt_tokens: 120, completion_tokens: 8 } },
    );
    const sent = await send(user, { content: 'Who is Sarah?', agent: 'boss' });
    const events = await followTurn(env.server.url, user, sent.turn.id);
    expect(events.at(-1)).toMatchObject({ __typename: 'FinalEvent', status: 'COMPLETED' });

    const spans = exporter.getFinishedSpans();
    const operation = spans.find((s) => s.name === 'graphql.mutation SendMessage')!;
    expect(operation.attributes).toMatchObject({ 'graphql.operation.type': 'mutation', 'graphql.operation.name': 'SendMessage' });
    // Event-log batch writes are spans of their own (they write for many turns at once).
    const writes = spans.filter((s) => s.name === 'turn_events write');
    expect(writes.length).toBeGreaterThan(0);
    expect(writes.every((s) => s.parentSpanContext === undefined && (s.attributes['remgraph.events.rows'] as number) >= 0)).toBe(true);

    expect(tree(spans, operation, (s) => s.name !== 'turn_events write' && !s.name.startsWith('graphql.'))).toEqual({
      name: 'graphql.mutation SendMessage',
      children: [
        {
          name: 'invoke_agent boss',
          children: [
            { name: 'chat fake-model', children: [] },
            {
              name: 'execute_tool ask_agent',
              children: [
                {
                  name: 'invoke_agent researcher',
                  children: [
                    { name: 'chat fake-model', children: [] },
                    { name: 'execute_tool search', children: [{ name: 'rem LOOKUP', children: [] }] },
                    { name: 'chat fake-model', children: [] },
                  ],
                },
              ],
            },
            { name: 'chat fake-model', children: [] },
          ],
        },
      ],
    });

    const boss = spans.find((s) => s.name === 'invoke_agent boss')!;
    const researcher = spans.find((s) => s.name === 'invoke_agent researcher')!;
    expect(boss.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'boss',
      'remgraph.turn.status': 'COMPLETED',
      'remgraph.turn.depth': 0,
    });
    const chats = spans.filter((s) => s.name === 'chat fake-model').sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
    expect(chats.map((s) => s.attributes)).toEqual([
      expect.objectContaining({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'fake-model',
        'gen_ai.usage.input_tokens': 100,
        'gen_ai.usage.output_tokens': 10,
        'gen_ai.response.finish_reasons': ['tool_calls'],
      }),
      expect.objectContaining({ 'gen_ai.usage.input_tokens': 50, 'gen_ai.response.finish_reasons': ['tool_calls'] }),
      expect.objectContaining({ 'gen_ai.usage.input_tokens': 60, 'gen_ai.usage.output_tokens': 4, 'gen_ai.response.finish_reasons': ['stop'] }),
      expect.objectContaining({ 'gen_ai.usage.input_tokens': 120, 'gen_ai.response.finish_reasons': ['stop'] }),
    ]);
    expect(spans.find((s) => s.name === 'execute_tool search')!.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'search',
    });
    expect(spans.find((s) => s.name === 'rem LOOKUP')!.attributes).toMatchObject({ 'remgraph.rem.mode': 'LOOKUP', 'remgraph.rem.hits': 0 });
    // One trace from the request to the deepest query.
    expect(new Set(spans.filter((s) => s.name !== 'turn_events write').map((s) => s.spanContext().traceId))).toEqual(
      new Set([operation.spanContext().traceId]),
    );

    const turn = (await user.data(TurnTraceDocument, { id: sent.turn.id })).turn!;
    expect(turn).toMatchObject({ traceId: operation.spanContext().traceId, spanId: boss.spanContext().spanId });
    expect(turn.children).toEqual([expect.objectContaining({ traceId: operation.spanContext().traceId, spanId: researcher.spanContext().spanId })]);
    const rows = turn.session.messages.edges.map((e) => e.node);
    expect(rows.map((m) => [m.type, m.agentName, m.spanId])).toEqual([
      ['user', null, null],
      ['tool_call', 'researcher', researcher.spanContext().spanId],
      ['tool_response', 'researcher', researcher.spanContext().spanId],
      ['tool_call', 'boss', boss.spanContext().spanId],
      ['tool_response', 'boss', boss.spanContext().spanId],
      ['assistant', 'boss', boss.spanContext().spanId],
    ]);
  });

  it('records a failed model call on its span', async () => {
    const user = newUser(env.server.url);
    exporter.reset();
    const fail = { status: 400, error: { message: 'bad request', type: 'invalid_request_error' } };
    env.fake.enqueue(fail);
    const sent = await send(user, { content: 'Hi' });
    await followTurn(env.server.url, user, sent.turn.id);
    const chat = exporter.getFinishedSpans().find((s) => s.name === 'chat fake-model')!;
    expect(chat.status).toMatchObject({ code: 2 });
    expect(chat.events.map((e) => e.name)).toEqual(['exception']);
    expect(exporter.getFinishedSpans().find((s) => s.name === 'invoke_agent general')!.attributes['remgraph.turn.status']).toBe('ERROR');
  });
});
