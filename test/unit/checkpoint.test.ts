import { describe, expect, it } from 'vitest';
import { agentContentHash, parseAgentYaml } from '../../src/agents/spec.js';
import type { ResolvedAgent } from '../../src/agents/registry.js';
import { CHECKPOINT_VERSION, CheckpointError, freshState, readCheckpoint, type RunState } from '../../src/engine/run-state.js';
import { contextOf } from '../support/client.js';

const spec = parseAgentYaml('name: helper\ndescription: You help.\n');
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
const ctx = { ...contextOf({ headers: { 'x-user-id': 'u1', 'x-tenant-id': 't1' } }), addedInstruction: 'Be brief.' };

/** A paused state with every field set, as the store writes it (JSON). */
function pausedState(): RunState {
  const state = freshState(agent, ctx, [{ role: 'user', content: 'earlier' }], 'Hello', ['action'], { temperature: 0.2, tools: ['action'] });
  state.messages.push({ role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'action', arguments: '{}' }] });
  state.iterations = 1;
  state.usage = { inputTokens: 10, outputTokens: 5, requests: 1, estimated: true };
  state.delegatedUsage = { inputTokens: 1, outputTokens: 1, requests: 1 };
  state.toolLog.push({ tool: 'search', toolCallId: 'c0', arguments: { q: 'x' }, result: { hits: [] }, isError: false, iteration: 1 });
  state.rows.push({ type: 'tool_call', content: null, toolCalls: [{ id: 'c1', name: 'action', arguments: '{}' }], agentName: 'helper' });
  state.sources.push({ key: 'doc-1', title: 'Doc' });
  state.metadata = { topic: 'x' };
  state.childOutputs.push('child said');
  state.pending.push({ toolCallId: 'c1', name: 'action', args: {}, shown: {}, approvalId: '00000000-0000-4000-8000-000000000001' });
  state.repaired = true;
  return JSON.parse(JSON.stringify(state)) as RunState;
}

describe('the paused-turn checkpoint', () => {
  it('is written with its version and read back unchanged, every field included', () => {
    const stored = pausedState();
    expect(stored.version).toBe(CHECKPOINT_VERSION);
    expect(readCheckpoint(stored)).toEqual(stored);
  });

  it('reads a checkpoint written before versioning as version 1', () => {
    const { version: _version, ...unversioned } = pausedState();
    expect(readCheckpoint(unversioned)).toEqual({ ...unversioned, version: 1 });
  });

  it('refuses another version, a damaged checkpoint or none with a CheckpointError that says why', () => {
    const read = (stored: unknown) => {
      try {
        readCheckpoint(stored);
      } catch (error) {
        return error;
      }
      throw new Error('read');
    };
    expect(read({ ...pausedState(), version: 2 })).toMatchObject({
      name: 'CheckpointError',
      code: 'INTERNAL',
      message: "The paused turn's checkpoint is of version 2; this server resumes version 1 only",
    });
    const damaged = read({ ...pausedState(), iterations: 'one', messages: [{ content: 'no role' }] });
    expect(damaged).toBeInstanceOf(CheckpointError);
    expect((damaged as Error).message).toMatch(/^The paused turn's checkpoint could not be read: messages\.0: is not a chat message; iterations: /);
    expect(read(null)).toMatchObject({ name: 'CheckpointError', message: 'The paused turn has no readable checkpoint' });
    expect(read('{"version":1}')).toBeInstanceOf(CheckpointError);
  });
});
