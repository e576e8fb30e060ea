import { decodeGlobalID } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import { newUser } from '../support/client.js';
import { chat, useAgentServer } from '../support/agents.js';
import { dreamed } from '../support/dreams.js';
import { CompactedSessionDocument, DreamedMemoryDocument, RemQueryDocument } from '../generated/graphql.js';

// A recent window of two messages: the answer before the last question is already old.
const env = useAgentServer({ JOB_KINDS: 'dream', JOB_POLL_MS: '100', COMPACTION_KEEP_MESSAGES: '2' });

const answer = (topic: string, end: string) => `${topic}: ${'walk the old town early, then take the tram up the hill, '.repeat(5)}${end}`;
const BREADCRUMB = /^\[Earlier: (.+)… → REM LOOKUP (\S+)\]$/;
const raw = (globalId: string) => decodeGlobalID(globalId).id;

describe('compaction', () => {
  it('replaces old answers with breadcrumbs to the moment covering them, writing moments where none does and recording memory messages', async () => {
    const user = newUser(env.server.url);
    const [a1, a2, a3, a4] = [answer('Lisbon', 'END-ONE'), answer('Porto', 'END-TWO'), answer('Sintra', 'END-THREE'), answer('Faro', 'END-FOUR')];
    env.fake.enqueue({ text: a1 }, { text: a2 });
    const first = await chat(env.server.url, user, { content: 'What to do in Lisbon?' });
    const sessionId = first.sent.session.id;
    await chat(env.server.url, user, { content: 'And in Porto?', sessionId });

    // The dream covers messages 1 to 4 with a moment; the answer at 2 is outside the window.
    env.fake.enqueue({ json: { moments: [{ key: 'portugal-trip', summary: 'Planned days in Lisbon and Porto.' }], entities: [], edges: [] } });
    const once = await dreamed(user, sessionId);
    expect(once).toMatchObject({ status: 'DONE', error: null });
    expect(once.result.sessions[0]!.compacted).toEqual({ answers: [2], moments: [], memorySeq: 5 });

    env.fake.enqueue({ text: a3 }, { text: a4 });
    await chat(env.server.url, user, { content: 'Is Sintra worth a day?', sessionId });
    await chat(env.server.url, user, { content: 'What about Faro?', sessionId });
    // This dream finds no moment in messages 5 to 9: compaction writes one for the answer at 7.
    env.fake.enqueue({ json: { moments: [], entities: [], edges: [] } });
    const window = `session-${raw(sessionId)}-messages-6-7`;
    const twice = await dreamed(user, sessionId);
    expect(twice.result.sessions[0]).toMatchObject({ fromSeq: 4, toSeq: 9, moments: [], compacted: { answers: [4, 7], moments: [window], memorySeq: 10 } });

    env.fake.enqueue({ text: 'Go in spring.' });
    await chat(env.server.url, user, { content: 'When should I go?', sessionId });
    const request = env.fake.chatRequests.at(-1)!.body;
    const history = request.messages.slice(request.messages.findIndex((m: any) => m.role === 'user'));
    const crumbs = history.filter((m: any) => BREADCRUMB.test(m.content));
    // The model sees breadcrumbs where the old answers were, the newest answer whole, and the memory messages.
    expect(
      history.map((m: any) => (BREADCRUMB.test(m.content) ? `crumb:${BREADCRUMB.exec(m.content)![2]}` : m.role === 'system' ? 'memory' : m.content)),
    ).toEqual([
      'What to do in Lisbon?',
      'crumb:portugal-trip',
      'And in Porto?',
      'crumb:portugal-trip',
      'memory',
      'Is Sintra worth a day?',
      `crumb:${window}`,
      'What about Faro?',
      a4,
      'memory',
      'When should I go?',
    ]);
    expect(crumbs.map((m: any) => m.role)).toEqual(['assistant', 'assistant', 'assistant']);
    expect(BREADCRUMB.exec(crumbs[0].content)![1]).toBe(a1.slice(0, 160).trimEnd());
    const sent = JSON.stringify(request.messages);
    for (const end of ['END-ONE', 'END-TWO', 'END-THREE']) expect(sent).not.toContain(end);
    const [note1, note2] = history.filter((m: any) => m.role === 'system').map((m: any) => m.content);
    expect(note1).toBe(
      '[Memory: earlier answers (messages 2) compacted into moments]\n- portugal-trip: Planned days in Lisbon and Porto. [REM LOOKUP "portugal-trip"]',
    );
    expect(note2.split('\n')).toEqual([
      '[Memory: earlier answers (messages 4, 7) compacted into moments]',
      '- portugal-trip: Planned days in Lisbon and Porto. [REM LOOKUP "portugal-trip"]',
      `- Messages 6 to 7 of "${first.sent.session.name}": Asked: Is Sintra worth a day? [REM LOOKUP "${window}"]`,
    ]);

    // LOOKUP on a breadcrumb's key gives the moment covering that answer: the written one holds it whole.
    const moments = (await user.data(DreamedMemoryDocument)).moments.edges.map((e) => e.node);
    expect(moments.find((m) => m.key === 'portugal-trip')).toMatchObject({ metadata: { messages: { from: 1, to: 4 } } });
    expect(moments.find((m) => m.key === window)).toMatchObject({
      momentType: 'session_chunk',
      sessionId,
      tags: ['compaction'],
      metadata: { messages: { from: 6, to: 7 } },
      sourceJob: { id: twice.id },
    });
    const found = await user.data(RemQueryDocument, { query: `LOOKUP "${window}"` });
    expect(found.remQuery.hits).toMatchObject([{ key: window, content: `user: Is Sintra worth a day?\nassistant: ${a3}` }]);
    expect((await user.data(RemQueryDocument, { query: 'LOOKUP "portugal-trip"' })).remQuery.hits).toMatchObject([{ key: 'portugal-trip' }]);

    // Nothing is lost: the stored answers are as they were, the compaction beside them.
    const rows = (await user.data(CompactedSessionDocument, { id: sessionId })).session!.messages.edges.map((e) => ({
      ...e.node,
      metadata: e.node.metadata as Record<string, unknown>,
    }));
    expect(rows.map((r) => r.type)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
      'memory',
      'user',
      'assistant',
      'user',
      'assistant',
      'memory',
      'user',
      'assistant',
    ]);
    expect(rows.filter((r) => r.type === 'assistant').map((r) => r.content)).toEqual([a1, a2, a3, a4, 'Go in spring.']);
    expect(rows[1]!.metadata.compaction).toEqual({ moment: 'portugal-trip', breadcrumb: crumbs[0].content });
    expect(rows[6]!.metadata.compaction).toEqual({ moment: window, breadcrumb: crumbs[2].content });
    expect(rows[8]!.metadata.compaction).toBeUndefined();
    expect(rows[9]).toMatchObject({ type: 'memory', content: note2, metadata: { compacted: { answers: [4, 7], moments: ['portugal-trip', window] } } });
  });

  it('leaves short answers and the recent window whole, and compacts nothing twice', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'Yes.' }, { text: answer('Braga', 'END-BRAGA') });
    const first = await chat(env.server.url, user, { content: 'Is Braga far?' });
    const sessionId = first.sent.session.id;
    await chat(env.server.url, user, { content: 'What is there?', sessionId });
    env.fake.enqueue({ json: { moments: [], entities: [], edges: [] } });
    // "Yes." is old but shorter than a breadcrumb; the long answer is recent.
    expect((await dreamed(user, sessionId)).result.sessions[0]!.compacted).toBeUndefined();
    expect((await user.data(DreamedMemoryDocument)).moments.edges).toEqual([]);

    env.fake.enqueue({ text: 'Take the train.' });
    await chat(env.server.url, user, { content: 'How do I get there?', sessionId });
    env.fake.enqueue({ json: { moments: [], entities: [], edges: [] } });
    expect((await dreamed(user, sessionId)).result.sessions[0]!.compacted).toEqual({
      answers: [4],
      moments: [`session-${raw(sessionId)}-messages-1-4`],
      memorySeq: 7,
    });
    // The next dream reads only the memory message: no model call, nothing compacted again.
    const asked = env.fake.chatRequests.length;
    const again = await dreamed(user, sessionId);
    expect(again.result.sessions).toEqual([{ sessionId: raw(sessionId), fromSeq: 6, toSeq: 7, moments: [], entities: [], edges: 0 }]);
    expect(env.fake.chatRequests).toHaveLength(asked);
    const rows = (await user.data(CompactedSessionDocument, { id: sessionId })).session!.messages.edges.map((e) => ({
      ...e.node,
      metadata: e.node.metadata as Record<string, unknown>,
    }));
    expect(rows.filter((r) => r.type === 'memory')).toHaveLength(1);
  });
});
