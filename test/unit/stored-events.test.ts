import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/events/agent-event.js';
import { packEvents, unpackEvents, type StoredItem } from '../../src/events/stored-events.js';

const TURN = '4b09eff5-273d-43bd-97b1-46b6cb840bf0';
const t0 = Date.parse('2026-11-27T14:16:04.384Z');
const at = (ms: number) => new Date(t0 + ms).toISOString();
const content = (seq: number, delta: string, ms: number, agent = 'general', depth = 0): AgentEvent => ({
  seq,
  turnId: TURN,
  at: at(ms),
  agent,
  depth,
  type: 'content',
  delta,
});

describe('stored events', () => {
  it('stores a stream of content as one run, and reads back every event exactly', () => {
    const events: AgentEvent[] = [
      { seq: 1, turnId: TURN, at: at(0), agent: 'general', depth: 0, type: 'thought', text: 'hmm' },
      ...Array.from({ length: 50 }, (_, i) => content(i + 2, `tok${i} `, 3 + i * 20)),
      {
        seq: 52,
        turnId: TURN,
        at: at(1100),
        agent: 'general',
        depth: 0,
        type: 'final',
        status: 'COMPLETED',
        content: 'x',
        sources: [],
        usage: { inputTokens: 1, outputTokens: 50, requests: 1 },
      },
    ];
    const items = packEvents(events);
    expect(items.map((item) => item.type)).toEqual(['thought', 'content_run', 'final']);
    expect(items[1]).toMatchObject({ seq: 2, at: at(3), deltas: events.slice(1, 51).map((e) => (e as { delta: string }).delta) });
    expect(JSON.stringify(items)).not.toContain(TURN);
    // A tenth of the bytes of the events themselves.
    expect(JSON.stringify(items).length).toBeLessThan(JSON.stringify(events).length / 4);
    expect(unpackEvents(TURN, JSON.parse(JSON.stringify(items)) as StoredItem[])).toEqual(events);
  });

  it('starts a new run where the agent, the depth or the numbering changes', () => {
    const events = [content(1, 'a', 0), content(2, 'b', 1, 'child', 1), content(3, 'c', 2, 'child', 1), content(5, 'd', 3, 'child', 1)];
    const items = packEvents(events);
    expect(items.map((item) => [item.seq, item.type === 'content_run' ? item.deltas : null])).toEqual([
      [1, ['a']],
      [2, ['b', 'c']],
      [5, ['d']],
    ]);
    expect(unpackEvents(TURN, items)).toEqual(events);
  });

  it('stores whole a content event it could not give back exactly: another time format, or more fields', () => {
    const odd = { ...content(1, 'a', 0), at: '2026-11-27T14:16:04Z' };
    const extra = { ...content(2, 'b', 1), note: 'kept' } as unknown as AgentEvent;
    const items = packEvents([odd, extra]);
    expect(items.map((item) => item.type)).toEqual(['content', 'content']);
    expect(unpackEvents(TURN, items)).toEqual([odd, extra]);
  });

  it('reads rows stored before this form (whole events, turnId included) as they are', () => {
    const old = [content(1, 'a', 0), content(2, 'b', 5)];
    expect(unpackEvents(TURN, old as StoredItem[])).toEqual(old);
  });

  it('keeps the turnId of a child turn’s event nested in its parent’s', () => {
    const child = content(1, 'c', 0, 'helper', 1);
    const wrapped: AgentEvent = {
      seq: 3,
      turnId: 'parent',
      at: at(0),
      agent: 'general',
      depth: 0,
      type: 'child',
      childTurnId: TURN,
      childAgent: 'helper',
      path: ['general', 'helper'],
      event: child,
    };
    expect(unpackEvents('parent', packEvents([wrapped]))).toEqual([wrapped]);
  });
});
