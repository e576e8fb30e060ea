import { describe, expect, it } from 'vitest';
import { runAgentLoop, type AgentLoopInput } from '../../src/engine/agent-loop.js';
import type { ResolvedAgent } from '../../src/agents/registry.js';
import { freshState, type ModelCallRecord, type Resolution, type RunState } from '../../src/engine/run-state.js';
import { agentContentHash, parseAgentYaml } from '../../src/agents/spec.js';
import type { AgentEventBody } from '../../src/events/agent-event.js';
import { actionTool } from '../../src/tools/builtin/action.js';
import { askAgentTool } from '../../src/tools/builtin/ask-agent.js';
import { registerMetadataTool } from '../../src/tools/builtin/register-metadata.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { ToolPause } from '../../src/tools/tool-pause.js';
import type { DelegationRequest } from '../../src/tools/tool.js';
import { contextOf } from '../support/client.js';
import { ScriptedModel, type ScriptedResponse } from '../support/scripted-model.js';

// The agent loop on its own: a scripted model, the real tool registry, ports that record what the
// loop asks of the outside world. No database, no server.

function agentOf(yaml: string): ResolvedAgent {
  const spec = parseAgentYaml(yaml);
  return { name: spec.name, version: null, origin: 'builtin', spec, source: yaml, userId: null, createdAt: null, contentHash: agentContentHash(spec) };
}

const TOOLS = `
name: helper
description: You help.
tools:
  - name: action
  - name: register_metadata
  - name: ask_agent
max_iterations: 3
`;

const GATED = `
name: careful
description: You act only with approval.
tools:
  - name: action
    requires_approval: true
`;

interface Harness {
  model: ScriptedModel;
  events: AgentEventBody[];
  delegated: DelegationRequest[];
  unexpected: unknown[];
  state: RunState;
  modelCalls: ModelCallRecord[];
  run(overrides?: Partial<AgentLoopInput>): ReturnType<typeof runAgentLoop>;
}

function harness(yaml: string, script: ScriptedResponse[], options: { delegate?: AgentLoopInput['ports']['delegate']; state?: RunState } = {}): Harness {
  const agent = agentOf(yaml);
  const model = new ScriptedModel(script);
  const events: AgentEventBody[] = [];
  const delegated: DelegationRequest[] = [];
  const unexpected: unknown[] = [];
  const modelCalls: ModelCallRecord[] = [];
  const ctx = contextOf({ headers: { 'x-user-id': 'u1', 'x-tenant-id': 't1' } });
  const state =
    options.state ??
    freshState(
      agent,
      ctx,
      [
        { role: 'user', content: 'earlier' },
        { role: 'assistant', content: 'before' },
      ],
      'Hello',
    );
  return {
    model,
    events,
    delegated,
    unexpected,
    modelCalls,
    state,
    run: (overrides = {}) =>
      runAgentLoop({
        agent,
        model,
        tools: new ToolRegistry([actionTool, registerMetadataTool, askAgentTool]),
        state,
        signal: new AbortController().signal,
        request: { userId: 'u1', sessionId: 's1', addedInstruction: 'Answer in French.' },
        gatedTools: new Set(),
        maxToolCallsPerResponse: 8,
        ports: {
          emit: (body) => events.push(body),
          delegate: async (request) => {
            delegated.push(request);
            if (options.delegate) return options.delegate(request);
            return {
              childTurnId: 'child-1',
              agent: request.agentName,
              status: 'COMPLETED',
              content: 'child answer',
              usage: { inputTokens: 3, outputTokens: 2, requests: 1 },
            };
          },
          toolContext: { agent: ctx, prisma: undefined as never, turnId: 't', sessionId: 's1', jobId: null, agentName: agent.name },
          onUnexpected: (error) => unexpected.push(error),
          modelCalled: async (call) => void modelCalls.push(call),
        },
        ...overrides,
      }),
  };
}

const types = (events: AgentEventBody[]) => events.map((e) => e.type);

describe('the agent loop', () => {
  it('streams a plain answer and sends the model the system prompt, the request instructions and the history', async () => {
    const h = harness(TOOLS, [{ text: ['Bon', 'jour'], usage: { inputTokens: 12, outputTokens: 2 } }]);
    expect(await h.run()).toEqual({ kind: 'finished', status: 'COMPLETED', error: null });
    expect(h.events).toEqual([
      { type: 'content', delta: 'Bon' },
      { type: 'content', delta: 'jour' },
    ]);
    expect(h.state).toMatchObject({ text: 'Bonjour', iterations: 1, usage: { inputTokens: 12, outputTokens: 2, requests: 1 } });
    const [request] = h.model.requests;
    expect(request!.messages.map((m) => m.role)).toEqual(['system', 'system', 'user', 'assistant', 'user']);
    expect(request!.messages[1]!.content).toContain('Answer in French.');
    expect(request!.tools!.map((t) => t.name)).toEqual(['action', 'register_metadata', 'ask_agent']);
    expect(h.modelCalls).toMatchObject([{ provider: 'scripted', iteration: 1, inputTokens: 12, outputTokens: 2, finishReason: 'stop', error: null }]);
  });

  it('runs tool calls, records them in call order and continues to the answer', async () => {
    const h = harness(TOOLS, [
      {
        toolCalls: [
          { id: 'a', name: 'action', arguments: '{"type":"progress"}' },
          { id: 'm', name: 'register_metadata', arguments: '{"confidence":0.5}' },
          { id: 'x', name: 'unknown_tool', arguments: '{}' },
        ],
      },
      { text: ['Done.'] },
    ]);
    expect(await h.run()).toMatchObject({ kind: 'finished', status: 'COMPLETED' });
    expect(types(h.events)).toEqual(['tool_call', 'tool_call', 'tool_call', 'action', 'action', 'tool_result', 'tool_result', 'tool_result', 'content']);
    expect(h.state.toolLog.map((t) => [t.toolCallId, t.isError])).toEqual([
      ['a', false],
      ['m', false],
      ['x', true],
    ]);
    expect(h.state.metadata).toEqual({ confidence: 0.5 });
    expect(h.state.rows.map((r) => r.type)).toEqual(['tool_call', 'tool_response', 'tool_response', 'tool_response']);
    expect(h.model.requests[1]!.messages.filter((m) => m.role === 'tool').map((m) => (m as { toolCallId: string }).toolCallId)).toEqual(['a', 'm', 'x']);
    expect(h.state.text).toBe('Done.');
  });

  it('refuses tool calls beyond the per-response cap with a tool error', async () => {
    const calls = Array.from({ length: 4 }, (_, i) => ({ id: `c${i}`, name: 'action', arguments: '{"type":"t"}' }));
    const h = harness(TOOLS, [{ toolCalls: calls }, { text: ['ok'] }]);
    await h.run({ maxToolCallsPerResponse: 2 });
    expect(h.state.toolLog.map((t) => [t.toolCallId, t.isError])).toEqual([
      ['c0', false],
      ['c1', false],
      ['c2', true],
      ['c3', true],
    ]);
    expect(JSON.stringify(h.state.toolLog[2]!.result)).toMatch(/at most 2 run/);
  });

  it('pauses on a gated call with the approval to ask for, and keeps the state to resume from', async () => {
    const h = harness(GATED, [{ toolCalls: [{ id: 'g', name: 'action', arguments: '{"type":"deploy"}' }] }]);
    const outcome = await h.run();
    expect(outcome.kind).toBe('paused');
    const approvals = outcome.kind === 'paused' ? outcome.approvals : [];
    expect(approvals).toMatchObject([{ toolCallId: 'g', name: 'action', args: { type: 'deploy' } }]);
    expect(approvals[0]!.approvalId).toMatch(/^[0-9a-f-]{36}$/);
    expect(types(h.events)).toEqual(['tool_call']);
    expect(h.state.pending).toEqual(approvals);
  });

  it('resumes an approved call: resume event, the tool runs, the model continues', async () => {
    const first = harness(GATED, [{ toolCalls: [{ id: 'g', name: 'action', arguments: '{"type":"deploy"}' }] }]);
    const paused = await first.run();
    const approvalId = paused.kind === 'paused' ? paused.approvals[0]!.approvalId! : '';
    const state = JSON.parse(JSON.stringify(first.state)) as RunState;
    const resumed = harness(GATED, [{ text: ['Deployed.'] }], { state });
    const resolutions = new Map<string, Resolution>([['g', { kind: 'approval', approvalId, approved: true, reason: null }]]);
    expect(await resumed.run({ resolutions })).toMatchObject({ kind: 'finished', status: 'COMPLETED' });
    expect(types(resumed.events)).toEqual(['resume', 'action', 'tool_result', 'content']);
    expect(resumed.state.toolLog).toMatchObject([{ toolCallId: 'g', isError: false }]);
  });

  it('tells the model about a rejection', async () => {
    const first = harness(GATED, [{ toolCalls: [{ id: 'g', name: 'action', arguments: '{"type":"delete"}' }] }]);
    const paused = await first.run();
    const approvalId = paused.kind === 'paused' ? paused.approvals[0]!.approvalId! : '';
    const resumed = harness(GATED, [{ text: ['I will not.'] }], { state: first.state });
    await resumed.run({ resolutions: new Map([['g', { kind: 'approval', approvalId, approved: false, reason: 'too risky' }]]) });
    expect(types(resumed.events)).toEqual(['tool_result', 'content']);
    expect(resumed.events[0]).toMatchObject({ isError: true, result: { error: 'A human reviewer rejected this call: too risky' } });
  });

  it('keeps a tool gated for an ancestor agent gated here, whatever this agent declares', async () => {
    const h = harness(TOOLS, [{ toolCalls: [{ id: 'g', name: 'action', arguments: '{"type":"x"}' }] }]);
    const outcome = await h.run({ gatedTools: new Set(['action']) });
    expect(outcome.kind).toBe('paused');
  });

  it('delegates through the port and does not stream a repeat of the child’s answer', async () => {
    const h = harness(TOOLS, [
      { toolCalls: [{ id: 'd', name: 'ask_agent', arguments: '{"agent_name":"researcher","input_text":"look it up"}' }] },
      { text: ['child ', 'answer'] },
    ]);
    expect(await h.run()).toMatchObject({ kind: 'finished', status: 'COMPLETED' });
    expect(h.delegated).toEqual([{ agentName: 'researcher', inputText: 'look it up', inputData: undefined }]);
    expect(types(h.events)).toEqual(['tool_call', 'tool_result']);
    expect(h.state).toMatchObject({ text: 'child answer', usage: { requests: 3 } });
  });

  it('pauses when the child paused, waiting on the child turn', async () => {
    const h = harness(TOOLS, [{ toolCalls: [{ id: 'd', name: 'ask_agent', arguments: '{"agent_name":"researcher","input_text":"x"}' }] }], {
      delegate: async () => {
        throw new ToolPause('child-9');
      },
    });
    const outcome = await h.run();
    expect(outcome).toEqual({ kind: 'paused', approvals: [] });
    expect(h.state.pending).toMatchObject([{ toolCallId: 'd', childTurnId: 'child-9' }]);
  });

  it('stops at max_iterations', async () => {
    const loop = { toolCalls: [{ id: 'l', name: 'action', arguments: '{"type":"again"}' }] };
    const h = harness(TOOLS, [loop, loop, loop]);
    expect(await h.run()).toMatchObject({ kind: 'finished', status: 'MAX_ITERATIONS', error: { code: 'MAX_ITERATIONS' } });
    expect(h.model.pending).toBe(0);
  });

  it('streams reasoning as thought events and keeps it as a think row before the answer', async () => {
    const h = harness(TOOLS, [{ reasoning: ['Greet ', 'back.'], text: ['Hi'] }]);
    await h.run();
    expect(h.events).toEqual([
      { type: 'thought', text: 'Greet ' },
      { type: 'thought', text: 'back.' },
      { type: 'content', delta: 'Hi' },
    ]);
    expect(h.state.rows).toEqual([{ type: 'think', content: 'Greet back.', agentName: 'helper' }]);
    expect(h.modelCalls[0]!.request).toBeNull();
  });

  it('keeps the last text said with tool calls when max_iterations ends the run', async () => {
    const h = harness(TOOLS.replace('max_iterations: 3', 'max_iterations: 1'), [
      { text: ['Working on it.'], toolCalls: [{ id: 'x', name: 'action', arguments: '{"type":"t"}' }] },
    ]);
    expect(await h.run()).toMatchObject({ kind: 'finished', status: 'MAX_ITERATIONS' });
    expect(h.state.text).toBe('Working on it.');
  });

  it('repairs a structured reply once, then fails with VALIDATION_FAILED and the errors', async () => {
    const structured = 'name: ex\ndescription: Extract.\nstructured_output: true\nproperties:\n  n: { type: integer }\nrequired: [n]\n';
    const h = harness(structured, [{ text: ['{"n":"one"}'] }, { text: ['{}'] }]);
    const outcome = await h.run();
    expect(outcome).toEqual({
      kind: 'finished',
      status: 'ERROR',
      error: {
        code: 'VALIDATION_FAILED',
        message: expect.stringContaining("must have required property 'n'"),
        details: { errors: ["/ must have required property 'n'"] },
      },
    });
    expect(h.model.requests[1]!.messages.slice(-2)).toEqual([
      { role: 'assistant', content: '{"n":"one"}' },
      {
        role: 'user',
        content: 'Your previous reply did not match the required JSON Schema:\n- /n must be integer\nReply again with only the corrected JSON object.',
      },
    ]);
    expect(h.state.text).toBe('');
    expect(h.events.at(-1)).toMatchObject({ type: 'error', code: 'VALIDATION_FAILED' });
  });

  it('asks a conversational agent for a caller’s response format and validates the reply like a structured agent’s', async () => {
    const agent = agentOf(TOOLS);
    const ctx = contextOf({ headers: { 'x-user-id': 'u1', 'x-tenant-id': 't1' } });
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const format = { type: 'json_schema' as const, json_schema: { name: 'place', schema } };
    const state = freshState(agent, ctx, [], 'Where?', [], { responseFormat: format, topP: 0.4, stop: ['END'], seed: 3 });
    const h = harness(TOOLS, [{ text: ['Lisbon'] }, { text: ['{"city":"Lisbon"}'] }], { state });
    expect(await h.run()).toEqual({ kind: 'finished', status: 'COMPLETED', error: null });
    expect(h.model.requests[0]).toMatchObject({ responseFormat: format, topP: 0.4, stop: ['END'], seed: 3 });
    expect(h.model.requests[1]!.messages.at(-1)!.content).toContain('not valid JSON');
    expect(h.state.text).toBe('{"city":"Lisbon"}');

    const anyObject = freshState(agent, ctx, [], 'Where?', [], { responseFormat: { type: 'json_object' } });
    const failing = harness(TOOLS, [{ text: ['[1]'] }, { text: ['"Lisbon"'] }], { state: anyObject });
    expect(await failing.run()).toMatchObject({
      status: 'ERROR',
      error: {
        code: 'VALIDATION_FAILED',
        message: expect.stringMatching(/^The reply did not match the requested response_format after one repair: \/ must be object/),
      },
    });
  });

  it('offers and runs only the tools a caller chose, with their temperature and max tokens', async () => {
    const agent = agentOf(TOOLS);
    const ctx = contextOf({ headers: { 'x-user-id': 'u1', 'x-tenant-id': 't1' } });
    const state = freshState(agent, ctx, [], 'Hello', [], { tools: ['action'], temperature: 0.2, maxTokens: 50, systemPromptSuffix: 'Be terse.' });
    const h = harness(TOOLS, [{ toolCalls: [{ id: 'm', name: 'register_metadata', arguments: '{}' }] }, { text: ['ok'] }], { state });
    await h.run();
    const [first] = h.model.requests;
    expect(first!.tools!.map((t) => t.name)).toEqual(['action']);
    expect(first).toMatchObject({ temperature: 0.2, maxTokens: 50 });
    expect(first!.messages[0]!.content!.endsWith('\n\nBe terse.')).toBe(true);
    expect(h.events.find((e) => e.type === 'tool_result')).toMatchObject({
      isError: true,
      result: { error: 'Tool "register_metadata" is not available to agent helper' },
    });
  });

  it('ends CANCELLED or INTERRUPTED by the abort reason', async () => {
    for (const [reason, status] of [
      ['cancelled', 'CANCELLED'],
      ['shutdown', 'INTERRUPTED'],
    ] as const) {
      const h = harness(TOOLS, [{ hang: ['Partial '] }]);
      const controller = new AbortController();
      const running = h.run({ signal: controller.signal });
      await new Promise((r) => setTimeout(r, 10));
      controller.abort(reason);
      expect(await running).toEqual({ kind: 'finished', status, error: null });
      expect(h.state.text).toBe('Partial ');
    }
  });

  it('ends with ERROR and an error event when the model fails, hiding unexpected internals', async () => {
    const h = harness(TOOLS, [{ fail: new Error('socket hang up at 10.0.0.3') }]);
    const outcome = await h.run();
    expect(outcome).toEqual({ kind: 'finished', status: 'ERROR', error: { code: 'INTERNAL', message: 'The agent run failed unexpectedly' } });
    expect(h.events).toEqual([{ type: 'error', code: 'INTERNAL', message: 'The agent run failed unexpectedly' }]);
    expect(h.unexpected).toHaveLength(1);
  });
});
