import { describe, expect, it } from 'vitest';
import { TurnView } from '../../web/src/turn-view.js';
import type { StepFieldsFragment, WebEventFragment } from '../../web/src/generated/graphql.js';

const base = { agent: 'boss', depth: 0 };
let seq = 0;
type Without<T> = T extends unknown ? Omit<T, 'seq' | 'agent' | 'depth'> : never;
const ev = (e: Without<WebEventFragment>) => ({ ...base, seq: ++seq, ...e }) as WebEventFragment;
const child = (childTurnId: string, path: string[], event: Partial<StepFieldsFragment> & { __typename: StepFieldsFragment['__typename'] }) =>
  ev({
    __typename: 'ChildEvent',
    childTurnId,
    childAgent: path.at(-1)!,
    path,
    event: { seq: 1, agent: path.at(-1)!, depth: path.length - 1, ...event } as StepFieldsFragment,
  });

describe('TurnView (the chat app’s model of a turn)', () => {
  it('joins streamed text, pairs tool calls with results and applies the final status and sources', () => {
    seq = 0;
    const view = new TurnView('t1', 'boss', 'RUNNING');
    view.apply(ev({ __typename: 'ThoughtEvent', text: 'Let me ' }));
    view.apply(ev({ __typename: 'ThoughtEvent', text: 'think.' }));
    view.apply(ev({ __typename: 'ToolCallEvent', toolCallId: 'c1', name: 'search', arguments: { q: 'x' } }));
    view.apply(ev({ __typename: 'ToolResultEvent', toolCallId: 'c1', name: 'search', result: { hits: 1 }, isError: false }));
    const source = { key: 'sarah-chen', title: null, uri: null, snippet: null, score: 0.9, entityType: 'entities' };
    view.apply(ev({ __typename: 'SourcesEvent', sources: [source] }));
    view.apply(ev({ __typename: 'ContentEvent', delta: 'Hello ' }));
    view.apply(ev({ __typename: 'ContentEvent', delta: 'world' }));
    view.apply(
      ev({
        __typename: 'FinalEvent',
        status: 'COMPLETED',
        content: 'Hello world',
        sources: [source],
        usage: { inputTokens: 1, outputTokens: 2, requests: 1, estimated: false },
      }),
    );
    expect(view.run.steps).toEqual([
      { kind: 'thought', text: 'Let me think.' },
      { kind: 'tool', toolCallId: 'c1', name: 'search', arguments: { q: 'x' }, result: { hits: 1 }, isError: false },
      { kind: 'text', text: 'Hello world' },
    ]);
    expect(view.run.sources).toEqual([source]);
    expect(view.finished).toBe(true);
  });

  it('ignores events it has seen, so a resumed subscription may overlap', () => {
    seq = 0;
    const view = new TurnView('t1', 'boss', 'RUNNING');
    const first = ev({ __typename: 'ContentEvent', delta: 'a' });
    const second = ev({ __typename: 'ContentEvent', delta: 'b' });
    expect([view.apply(first), view.apply(second), view.apply(first), view.apply(second)]).toEqual([true, true, false, false]);
    expect(view.run.steps).toEqual([{ kind: 'text', text: 'ab' }]);
    expect(view.lastSeq).toBe(2);
  });

  it('nests children by path, even when grandchildren arrive flattened', () => {
    seq = 0;
    const view = new TurnView('t1', 'boss', 'RUNNING');
    view.apply(child('c-mid', ['boss', 'middle'], { __typename: 'ContentEvent', delta: 'asking leaf' }));
    view.apply(child('c-leaf', ['boss', 'middle', 'leaf'], { __typename: 'ContentEvent', delta: 'leaf says hi' }));
    view.apply(child('c-other', ['boss', 'other'], { __typename: 'ContentEvent', delta: 'sibling' }));
    const [middle, other] = view.run.steps as { kind: 'child'; run: TurnView['run'] }[];
    expect(middle!.run).toMatchObject({
      agent: 'middle',
      steps: [
        { kind: 'text', text: 'asking leaf' },
        { kind: 'child', run: { agent: 'leaf', path: ['boss', 'middle', 'leaf'] } },
      ],
    });
    expect(other!.run).toMatchObject({ agent: 'other', steps: [{ kind: 'text', text: 'sibling' }] });
  });

  it('keeps a child’s approval pending until its decision arrives', () => {
    seq = 0;
    const view = new TurnView('t1', 'boss', 'RUNNING');
    view.apply(child('c1', ['boss', 'careful'], { __typename: 'ToolCallEvent', toolCallId: 'g', name: 'action', arguments: {} }));
    view.apply(
      child('c1', ['boss', 'careful'], {
        __typename: 'ApprovalNeededEvent',
        approvalId: 'a1',
        toolCallId: 'g',
        name: 'action',
        arguments: {},
        agentPath: ['boss', 'careful'],
      }),
    );
    expect(view.pendingApprovals().map((a) => a.approvalId)).toEqual(['a1']);
    view.apply(child('c1', ['boss', 'careful'], { __typename: 'ApprovalResultEvent', approvalId: 'a1', approved: false, reason: 'no', decidedBy: 'u1' }));
    expect(view.pendingApprovals()).toEqual([]);
    expect(view.run.steps[0]).toMatchObject({
      kind: 'child',
      run: { steps: [{ kind: 'tool' }, { kind: 'approval', decision: { approved: false, reason: 'no' } }] },
    });
  });

  it('shows the final answer when it was not streamed, and prefers it to a streamed text that lost pieces', () => {
    seq = 0;
    const repeated = new TurnView('t1', 'boss', 'RUNNING');
    repeated.apply(ev({ __typename: 'ToolCallEvent', toolCallId: 'c', name: 'ask_agent', arguments: {} }));
    repeated.apply(
      ev({
        __typename: 'FinalEvent',
        status: 'COMPLETED',
        content: 'child answer',
        sources: [],
        usage: { inputTokens: 0, outputTokens: 0, requests: 1, estimated: false },
      }),
    );
    expect(repeated.run.steps.at(-1)).toEqual({ kind: 'text', text: 'child answer' });

    const gappy = new TurnView('t2', 'boss', 'RUNNING');
    gappy.apply(ev({ __typename: 'ContentEvent', delta: 'Hel' }));
    gappy.apply(
      ev({
        __typename: 'FinalEvent',
        status: 'COMPLETED',
        content: 'Hello',
        sources: [],
        usage: { inputTokens: 0, outputTokens: 0, requests: 1, estimated: false },
      }),
    );
    expect(gappy.run.steps).toEqual([{ kind: 'text', text: 'Hello' }]);

    const failed = new TurnView('t3', 'boss', 'RUNNING');
    failed.apply(ev({ __typename: 'ContentEvent', delta: 'Partial ' }));
    failed.apply(ev({ __typename: 'ErrorEvent', code: 'MODEL_ERROR', message: 'timed out' }));
    failed.apply(
      ev({
        __typename: 'FinalEvent',
        status: 'ERROR',
        content: 'Partial',
        sources: [],
        usage: { inputTokens: 0, outputTokens: 0, requests: 1, estimated: false },
      }),
    );
    expect(failed.run.steps).toEqual([
      { kind: 'text', text: 'Partial' },
      { kind: 'error', code: 'MODEL_ERROR', message: 'timed out' },
    ]);
  });
});
