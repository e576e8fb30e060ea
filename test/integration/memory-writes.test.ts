import { describe, expect, it } from 'vitest';
import { newUser } from '../support/client.js';
import { chat, followTurn, registerAgent, send, shape, untilPaused, useAgentServer } from '../support/agents.js';
import { DecideApprovalDocument, EntityProvenanceDocument, TurnMemoryWritesDocument, UpsertEntityDocument } from '../generated/graphql.js';

const env = useAgentServer();

const NOTE_TAKER = `
name: note-taker
description: You save what the user tells you to memory.
tools:
  - name: save_memory
`;

const CAREFUL_NOTE_TAKER = `
name: careful-note-taker
description: You save to memory only with approval.
tools:
  - name: save_memory
    requires_approval: true
`;

const sarah = {
  kind: 'entity',
  key: 'Sarah Chen',
  name: 'Sarah Chen',
  entity_type: 'person',
  summary: 'Head of finance',
  edges: [{ dst: 'acme-corp', rel_type: 'works_at', weight: 0.9 }],
};

describe('save_memory', () => {
  it('upserts an entity and a moment with edges, each recording the turn that wrote it', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, NOTE_TAKER);
    env.fake.enqueue(
      {
        toolCalls: [
          { id: 's1', name: 'save_memory', arguments: sarah },
          {
            id: 's2',
            name: 'save_memory',
            arguments: {
              kind: 'moment',
              key: 'budget call 2026-02',
              summary: 'Sarah approved the Q3 budget',
              starts_at: '2026-02-03T10:00:00Z',
              edges: [{ dst: 'sarah-chen', rel_type: 'involves' }],
            },
          },
        ],
      },
      { text: 'Saved.' },
    );
    const { sent, events } = await chat(env.server.url, user, {
      content: 'Remember: Sarah Chen runs finance at Acme; she approved the Q3 budget on Feb 3.',
      agent: 'note-taker',
    });
    expect(shape(events)).toEqual(['tool_call', 'tool_call', 'tool_result', 'tool_result', 'content*', 'final']);
    expect(events[2]).toMatchObject({ isError: false, result: { saved: { kind: 'entity', key: 'sarah-chen' }, edges: 1 } });
    expect(events[3]).toMatchObject({ isError: false, result: { saved: { kind: 'moment', key: 'budget-call-2026-02' }, edges: 1 } });

    const { turn } = await user.data(TurnMemoryWritesDocument, { id: sent.turn.id });
    expect(turn!.memoryWrites.entities).toEqual([
      {
        key: 'sarah-chen',
        name: 'Sarah Chen',
        entityType: 'person',
        graphEdges: [{ dst: 'acme-corp', relType: 'works_at', weight: 0.9 }],
        sourceTurn: { id: sent.turn.id },
      },
    ]);
    expect(turn!.memoryWrites.moments).toEqual([
      {
        key: 'budget-call-2026-02',
        summary: 'Sarah approved the Q3 budget',
        startsAt: '2026-02-03T10:00:00.000Z',
        sessionId: sent.session.id,
        graphEdges: [{ dst: 'sarah-chen', relType: 'involves' }],
        sourceTurn: { id: sent.turn.id },
      },
    ]);
    expect(turn!.memoryWrites.resources).toEqual([]);

    // A later turn adds a relation: the earlier one stays, and the row names its new writer.
    env.fake.enqueue(
      { toolCalls: [{ id: 's3', name: 'save_memory', arguments: { kind: 'entity', key: 'sarah-chen', edges: [{ dst: 'bob-lee', rel_type: 'manages' }] } }] },
      { text: 'Noted.' },
    );
    const second = await chat(env.server.url, user, { content: 'She manages Bob Lee.', agent: 'note-taker', sessionId: sent.session.id });
    const { entity } = await user.data(EntityProvenanceDocument, { key: 'sarah-chen' });
    expect(entity).toMatchObject({
      summary: 'Head of finance',
      graphEdges: [
        { dst: 'acme-corp', relType: 'works_at' },
        { dst: 'bob-lee', relType: 'manages' },
      ],
      sourceTurn: { id: second.sent.turn.id, agent: 'note-taker' },
    });
    expect((await user.data(TurnMemoryWritesDocument, { id: sent.turn.id })).turn!.memoryWrites.entities).toEqual([]);

    // A person's write clears the agent provenance.
    await user.data(UpsertEntityDocument, { input: { key: 'sarah-chen', summary: 'CFO' } });
    expect((await user.data(EntityProvenanceDocument, { key: 'sarah-chen' })).entity).toMatchObject({ summary: 'CFO', sourceTurn: null });

    // Another user sees none of it.
    const other = newUser(env.server.url, user.headers['x-tenant-id']);
    expect((await other.data(EntityProvenanceDocument, { key: 'sarah-chen' })).entity).toBeNull();
  });

  it('returns invalid input to the model as a tool error and writes nothing', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, NOTE_TAKER);
    env.fake.enqueue(
      { toolCalls: [{ id: 'b1', name: 'save_memory', arguments: { kind: 'moment', key: '!!!', starts_at: 'yesterday' } }] },
      { text: 'Could not save.' },
    );
    const { sent, events } = await chat(env.server.url, user, { content: 'remember', agent: 'note-taker' });
    expect(events[1]).toMatchObject({ isError: true, result: { code: 'VALIDATION_FAILED' } });
    const { turn } = await user.data(TurnMemoryWritesDocument, { id: sent.turn.id });
    expect(turn!.memoryWrites).toEqual({ entities: [], moments: [], resources: [] });
  });

  it('is gated like any tool: nothing is written until a person approves', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, CAREFUL_NOTE_TAKER);
    env.fake.enqueue({ toolCalls: [{ id: 'g1', name: 'save_memory', arguments: sarah }] });
    const sent = await send(user, { content: 'remember Sarah', agent: 'careful-note-taker' });
    const before = await untilPaused(env.server.url, user, sent.turn.id);
    expect(shape(before)).toEqual(['tool_call', 'approval_needed']);
    expect((await user.data(TurnMemoryWritesDocument, { id: sent.turn.id })).turn!.memoryWrites.entities).toEqual([]);
    expect(await env.server.db.prisma.entity.count({ where: { userId: user.headers['x-user-id'] } })).toBe(0);

    env.fake.enqueue({ text: 'Saved Sarah.' });
    const approvalId = (before[1] as { approvalId: string }).approvalId;
    await user.data(DecideApprovalDocument, { id: approvalId, approve: true });
    const after = await followTurn(env.server.url, user, sent.turn.id, (before[1] as { seq: number }).seq);
    expect(shape(after)).toEqual(['approval_result', 'resume', 'tool_result', 'content*', 'final']);
    const { turn } = await user.data(TurnMemoryWritesDocument, { id: sent.turn.id });
    expect(turn!.memoryWrites.entities.map((e) => [e.key, e.sourceTurn?.id])).toEqual([['sarah-chen', sent.turn.id]]);
  });
});
