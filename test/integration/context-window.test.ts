import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { newUser } from '../support/client.js';
import { chat, registerAgent, useAgentServer } from '../support/agents.js';
import { dreamed } from '../support/dreams.js';
import { RemQueryDocument, TurnRecordDocument, UpsertEntityDocument, UpsertMomentDocument } from '../generated/graphql.js';

// Small budgets, so a few messages overflow them (and a recent window of two messages for compaction).
const env = useAgentServer({
  HISTORY_TOKEN_BUDGET: '150',
  HISTORY_COMPRESS_CHARS: '200',
  MEMORY_TOKEN_BUDGET: '120',
  CONTEXT_TOKEN_BUDGET: '3000',
  COMPACTION_KEEP_MESSAGES: '2',
  JOB_KINDS: 'dream',
  JOB_POLL_MS: '100',
});

const LOOKER = 'name: looker\ndescription: You look things up.\ntools:\n  - name: search\n';
const BREADCRUMB = /\n\n\.\.\. \[Message truncated - REM LOOKUP (session-[0-9a-f-]+-msg-\d+) to recover full content\] \.\.\.\n\n/;

/** What one chat message costs in o200k_base tokens, framing included (OpenAI's 3 per message). */
const cost = (content: string) => 3 + countTokens(content);
const conversation = (body: any) => body.messages.filter((m: any) => m.role === 'user' || m.role === 'assistant');

describe('the context window', () => {
  it('fits history newest-first to the token budget, compressing long earlier answers head + tail with a breadcrumb that LOOKUP resolves', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, LOOKER);
    const long = `Plan: ${'measure twice and cut once, '.repeat(30)}then ship.`;
    env.fake.enqueue({ text: 'Short one.' }, { text: long }, { text: 'Third.' });
    const opening = `Tell me ${'a short thing, '.repeat(12)}`;
    const first = await chat(env.server.url, user, { content: opening, agent: 'looker' });
    const sessionId = first.sent.session.id;
    await chat(env.server.url, user, { content: 'Write the plan', agent: 'looker', sessionId });
    await chat(env.server.url, user, { content: 'And now?', agent: 'looker', sessionId });
    env.fake.enqueue({ text: 'Fourth.' });
    await chat(env.server.url, user, { content: 'Last question', agent: 'looker', sessionId });

    const sent = conversation(env.fake.chatRequests[3]!.body);
    const history = sent.slice(0, -1);
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'Last question' });
    // The newest messages, in order, and as many as the budget holds: the next older one does not fit.
    const all = [opening, 'Short one.', 'Write the plan', 'COMPRESSED', 'And now?', 'Third.'];
    expect(history.map((m: any) => (BREADCRUMB.test(m.content) ? 'COMPRESSED' : m.content))).toEqual(all.slice(all.length - history.length));
    expect(history.length).toBeLessThan(all.length);
    const used = history.reduce((sum: number, m: any) => sum + cost(m.content), 0);
    expect(used).toBeLessThanOrEqual(150);
    const nextOlder = all[all.length - history.length - 1]!;
    expect(used + cost(nextOlder)).toBeGreaterThan(150);

    const compressed = history.find((m: any) => BREADCRUMB.test(m.content));
    expect(compressed.content.startsWith('Plan: measure twice')).toBe(true);
    expect(compressed.content.endsWith('cut once, then ship.')).toBe(true);
    const key = BREADCRUMB.exec(compressed.content)![1]!;
    const found = await user.data(RemQueryDocument, { query: `LOOKUP "${key}"` });
    expect(found.remQuery.hits).toMatchObject([{ key, content: long }]);
  });

  it('counts the whole request: a long system prompt leaves less room for history', async () => {
    const user = newUser(env.server.url);
    // About 3,100 tokens of instructions: more than the whole request may use, so no history at all.
    await registerAgent(user, `name: verbose\ndescription: "${'Follow every house rule carefully. '.repeat(520)}"\n`);
    await registerAgent(user, 'name: terse\ndescription: Be brief.\n');
    env.fake.enqueue({ text: 'First answer.' }, { text: 'Second.' }, { text: 'Third.' });
    const first = await chat(env.server.url, user, { content: 'First question', agent: 'terse' });
    await chat(env.server.url, user, { content: 'Second question', agent: 'terse', sessionId: first.sent.session.id });
    await chat(env.server.url, user, { content: 'Third question', agent: 'verbose', sessionId: first.sent.session.id });

    expect(conversation(env.fake.chatRequests[1]!.body)).toHaveLength(3);
    expect(conversation(env.fake.chatRequests[2]!.body)).toEqual([{ role: 'user', content: 'Third question' }]);
  });

  it('injects the user’s profile and the session’s recent moments as labelled, budgeted memory, never stored', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, LOOKER);
    env.fake.enqueue({ text: 'Hello.' });
    const first = await chat(env.server.url, user, { content: 'Hi', agent: 'looker' });
    const sessionId = first.sent.session.id;
    await user.data(UpsertEntityDocument, {
      input: {
        key: `user-${user.headers['x-user-id']}`,
        name: 'Ada Lovelace',
        summary: 'Prefers short answers; works on the analytical engine.',
        content: `Notes: ${'likes numbers. '.repeat(200)}`,
      },
    });
    for (const [i, name] of ['Budget review', 'Engine design call'].entries()) {
      await user.data(UpsertMomentDocument, { input: { key: `moment ${i}`, name, summary: `Discussed ${name.toLowerCase()}.`, sessionId } });
    }
    env.fake.enqueue({ text: 'Noted.' });
    const second = await chat(env.server.url, user, { content: 'What do you know about me?', agent: 'looker', sessionId });

    const system = env.fake.chatRequests[1]!.body.messages.filter((m: any) => m.role === 'system').map((m: any) => m.content);
    const [profile, moments] = system.slice(2);
    expect(profile.split('\n').slice(0, 3)).toEqual([
      `[Memory: user profile (REM LOOKUP "user-${user.headers['x-user-id']}")]`,
      'Ada Lovelace',
      'Prefers short answers; works on the analytical engine.',
    ]);
    expect(countTokens(profile)).toBeLessThanOrEqual(60);
    expect(profile).not.toContain('likes numbers. '.repeat(200));
    expect(moments.split('\n')).toEqual([
      '[Memory: recent moments of this session, newest first]',
      '- Engine design call: Discussed engine design call. [REM LOOKUP "moment-1"]',
      '- Budget review: Discussed budget review. [REM LOOKUP "moment-0"]',
    ]);
    expect(countTokens(profile) + countTokens(moments)).toBeLessThanOrEqual(120);
    // Memory goes before the conversation.
    expect(env.fake.chatRequests[1]!.body.messages.map((m: any) => m.role)).toEqual(['system', 'system', 'system', 'system', 'user', 'assistant', 'user']);

    // Rebuilt for every turn, never stored.
    const rows = (await user.data(TurnRecordDocument, { id: second.sent.turn.id })).turn!.session.messages.edges.map((e) => e.node);
    expect(rows.map((m) => m.type)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });

  it('counts compacted answers as their breadcrumbs: after compaction more of the conversation fits the same budget', async () => {
    const user = newUser(env.server.url);
    await registerAgent(user, 'name: plain\ndescription: You answer.\n');
    const answers = [1, 2, 3].map((i) => `Answer ${i}: ${'the quick brown fox jumps over the lazy dog, '.repeat(30)}done.`);
    env.fake.enqueue(...answers.map((text) => ({ text })), { text: 'Fourth.' });
    const first = await chat(env.server.url, user, { content: 'Question 1', agent: 'plain' });
    const sessionId = first.sent.session.id;
    for (const content of ['Question 2', 'Question 3', 'Question 4']) await chat(env.server.url, user, { content, agent: 'plain', sessionId });
    // A dreamed moment with a short key covers the whole conversation, so the breadcrumbs are short too.
    env.fake.enqueue({ json: { moments: [{ key: 'qa', summary: 'Questions.' }], entities: [], edges: [] } });
    expect((await dreamed(user, sessionId)).result.sessions[0]!.compacted).toMatchObject({ answers: [2, 4, 6] });
    env.fake.enqueue({ text: 'Fifth.' });
    await chat(env.server.url, user, { content: 'Question 5', agent: 'plain', sessionId });

    // The history as sent: the conversation and the compaction's memory message, not the memory blocks before it.
    const historyOf = (body: any) =>
      body.messages.slice(0, -1).filter((m: any) => m.role !== 'system' || m.content.startsWith('[Memory: earlier answers')) as { content: string }[];
    const before = historyOf(env.fake.chatRequests[3]!.body);
    const after = historyOf(env.fake.chatRequests.at(-1)!.body);
    const asked = (history: { content: string }[]) => history.filter((m) => /^Question \d$/.test(m.content)).length;
    // Each answer alone is over the budget: what fits is its breadcrumb.
    expect(cost(answers[2]!)).toBeGreaterThan(150);
    const crumbs = after.filter((m) => m.content.startsWith('[Earlier: Answer'));
    expect(crumbs.length).toBeGreaterThan(0);
    for (const crumb of crumbs) expect(crumb.content.endsWith('… → REM LOOKUP qa]')).toBe(true);
    expect(asked(after)).toBeGreaterThan(asked(before));
    for (const history of [before, after]) expect(history.reduce((sum, m) => sum + cost(m.content), 0)).toBeLessThanOrEqual(150);
  });
});
