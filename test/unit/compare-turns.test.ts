import { describe, expect, it } from 'vitest';
import { diffOutcomes, type TurnOutcome } from '../../src/turns/compare-turns.js';
import { diffSequences } from '../../src/turns/sequence-diff.js';

const outcome = (over: Partial<TurnOutcome>): TurnOutcome => ({
  turn: {} as TurnOutcome['turn'],
  text: null,
  toolCalls: [],
  sources: [],
  usage: { inputTokens: 0, outputTokens: 0, requests: 0 },
  latencyMs: null,
  models: [],
  ...over,
});

describe('diffSequences', () => {
  it('keeps the longest common subsequence, removals before additions at one place', () => {
    const steps = diffSequences('abcd'.split(''), 'axcyd'.split(''), (x, y) => x === y);
    expect(steps.map((s) => (s.op === 'ADDED' ? `+${s.b}` : s.op === 'REMOVED' ? `-${s.a}` : s.a))).toEqual(['a', '-b', '+x', 'c', '+y', 'd']);
    expect(diffSequences([], ['a'], (x, y) => x === y)).toEqual([{ op: 'ADDED', b: 'a' }]);
    expect(diffSequences(['a'], [], (x, y) => x === y)).toEqual([{ op: 'REMOVED', a: 'a' }]);
  });
});

describe('diffOutcomes', () => {
  it('pairs tool calls by name in order and names the arguments that differ', () => {
    const call = (name: string, args: unknown, result: unknown = { ok: true }) => ({ name, arguments: args, result, isError: false });
    const c = diffOutcomes(
      outcome({ text: 'a\nb', toolCalls: [call('search', { q: 'x', limit: 5 }), call('lookup', { key: 'k' }), call('save', { v: 1 })] }),
      outcome({ text: 'a\nc', toolCalls: [call('search', { q: 'y', limit: 5, extra: true }), call('save', { v: 1 }, { ok: false }), call('note', {})] }),
    );
    expect(c.text).toEqual([
      { op: 'SAME', text: 'a' },
      { op: 'REMOVED', text: 'b' },
      { op: 'ADDED', text: 'c' },
    ]);
    expect(c.toolCalls.map((t) => [t.op, t.name, t.changedArguments, t.resultChanged])).toEqual([
      ['CHANGED', 'search', ['q', 'extra'], false],
      ['REMOVED', 'lookup', [], false],
      ['CHANGED', 'save', [], true],
      ['ADDED', 'note', [], false],
    ]);
  });

  it('reports sources added and removed by key, and no change for equal turns', () => {
    const c = diffOutcomes(outcome({ sources: [{ key: 'a' }, { key: 'b' }] }), outcome({ sources: [{ key: 'b' }, { key: 'c' }] }));
    expect(c.sourcesAdded).toEqual([{ key: 'c' }]);
    expect(c.sourcesRemoved).toEqual([{ key: 'a' }]);
    const same = diffOutcomes(outcome({ text: 'x' }), outcome({ text: 'x' }));
    expect(same).toMatchObject({ textChanged: false, text: [{ op: 'SAME', text: 'x' }], toolCalls: [], sourcesAdded: [], sourcesRemoved: [] });
  });
});
