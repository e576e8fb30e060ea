import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { agentContentHash, parseAgentYaml } from '../../src/agents/spec.js';
import type { ResolvedAgent } from '../../src/agents/registry.js';
import { runAgentLoop } from '../../src/engine/agent-loop.js';
import { contextFor } from '../../src/engine/history.js';
import { requestScope } from '../../src/engine/model-request.js';
import { addHistory, freshState } from '../../src/engine/run-state.js';
import { requestOverhead, TOKEN_CEILING } from '../../src/llm/token-count.js';
import { actionTool } from '../../src/tools/builtin/action.js';
import { ToolRegistry } from '../../src/tools/registry.js';
import { contextOf } from '../support/client.js';
import { ScriptedModel } from '../support/scripted-model.js';

// What the history budget counts is what the loop sends: both come from turnRequest.

const spec = parseAgentYaml(`
name: helper
description: You help.
tools:
  - name: action
max_tokens: 40
`);
const agent: ResolvedAgent = {
  name: spec.name,
  version: null,
  origin: 'builtin',
  spec,
  source: '',
  userId: null,
  createdAt: null,
  contentHash: agentContentHash(spec),
};
const tools = new ToolRegistry([actionTool]);
const settings = {
  defaultAgent: 'helper',
  historyTokenBudget: 10_000,
  historyCompressChars: 0,
  ephemeralRetentionMs: 0,
  contextTokenBudget: 10_000,
  memoryTokenBudget: 500,
  approvalTtlMs: 0,
  heartbeatMs: 1000,
  maxDepth: 3,
  maxToolCallsPerResponse: 8,
  maxChildTurns: 10,
};
const ctx = { ...contextOf({ headers: { 'x-user-id': 'u1', 'x-tenant-id': 't1' } }), addedInstruction: 'Answer in French.' };
const stored = {
  profile: { name: 'Ada', summary: 'Writes programs', content: null },
  moments: [],
  conversation: [
    { type: 'assistant' as const, role: 'assistant' as const, content: 'Earlier answer', seq: 2, crumb: false },
    { type: 'user' as const, role: 'user' as const, content: 'Earlier question', seq: 1, crumb: false },
  ],
};

const session = { id: 's1', name: 'Trip planning', metadata: { project: 'alps' }, routing: true, activeAgent: 'planner' };

describe('the model request', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: new Date('2026-01-02T03:04:05Z') }));
  afterEach(() => vi.useRealTimers());

  it('is counted by the history budget exactly as the agent loop then sends it', async () => {
    const state = freshState(agent, ctx, [], 'Hello', [], { temperature: 0.3, systemPromptSuffix: 'Be brief.' });
    const context = await contextFor(
      { sql: undefined as never, settings, tools },
      { ctx, session, agent, model: new ScriptedModel([]), state, withMemory: true, stored },
    );
    addHistory(state, context);
    const model = new ScriptedModel([{ text: ['Bonjour'] }]);
    await runAgentLoop({
      agent,
      model,
      tools,
      state,
      signal: new AbortController().signal,
      request: requestScope(ctx, session),
      gatedTools: new Set(),
      maxToolCallsPerResponse: 8,
      ports: {
        emit: () => {},
        delegate: () => Promise.reject(new Error('no delegation here')),
        toolContext: { agent: ctx, prisma: undefined as never, turnId: 't', sessionId: 's1', jobId: null, agentName: agent.name },
        onUnexpected: (error) => {
          throw error;
        },
        modelCalled: async () => {},
      },
    });
    const [sent] = model.requests;
    expect({ ...sent, signal: undefined }).toEqual(JSON.parse(JSON.stringify(context.request)));
    expect(sent!.messages.map((m) => m.content)).toEqual([
      expect.stringContaining('Be brief.'),
      expect.stringMatching(
        /Session name: Trip planning\nSession metadata: \{"project":"alps"\}\nAgent: .*\nRouting: this session routes; its active agent is planner\n\nAnswer in French\./,
      ),
      expect.stringContaining('[Memory: user profile'),
      'Earlier question',
      'Earlier answer',
      'Hello',
    ]);
    expect(sent).toMatchObject({ temperature: 0.3, maxTokens: 40, tools: [expect.objectContaining({ name: 'action' })] });
    expect(requestOverhead(TOKEN_CEILING, context.request)).toBe(requestOverhead(TOKEN_CEILING, sent!));
  });
});
