import { setTimeout as sleep } from 'node:timers/promises';
import { createPubSub } from '@graphql-yoga/subscription';
import { decodeGlobalID, encodeGlobalID } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import { newUser, type Caller } from '../support/client.js';
import { chat, useAgentServer } from '../support/agents.js';
import { backend } from '../support/server.js';
import type { RecordedRequest } from '../support/fake-openai.js';
import { DreamDocument, DreamedMemoryDocument, JobDocument } from '../generated/graphql.js';
import { JobQueue } from '../../src/jobs/job-queue.js';
import { embeddedLiveness } from '../../src/db/process-liveness.js';
import { scheduleDreams } from '../../src/dreaming/dream.js';

const env = useAgentServer({ JOB_KINDS: 'dream', JOB_POLL_MS: '100' });

async function dream(user: Caller, sessionId?: string) {
  const { dream } = await user.data(DreamDocument, { input: sessionId ? { sessionId } : null });
  if (dream.__typename !== 'DreamSuccess') throw new Error(JSON.stringify(dream));
  return dream.job;
}

async function finished(user: Caller, id: string) {
  for (let i = 0; i < 600; i++) {
    const { job } = await user.data(JobDocument, { id });
    if (job!.status === 'DONE' || job!.status === 'FAILED') return job!;
    await sleep(50);
  }
  throw new Error('the job did not finish');
}

const raw = (globalId: string) => decodeGlobalID(globalId).id;
const dreamRequests = () => env.fake.chatRequests.filter((r) => r.body.response_format?.json_schema?.name === 'dreaming');
const lastUser = (r: RecordedRequest) => r.body.messages.at(-1).content as string;

const BUDGET_DREAM = {
  moments: [{ key: 'Q3 budget meeting', summary: 'Planned the Q3 budget review with Sarah Chen.', topic_tags: ['budget', 'q3'], entity_keys: ['sarah-chen'] }],
  entities: [
    { key: 'sarah-chen', name: 'Sarah Chen', entity_type: 'person', summary: 'Head of finance' },
    { key: 'q3-budget', name: 'Q3 budget', entity_type: 'project' },
  ],
  edges: [{ src: 'sarah-chen', dst: 'q3-budget', rel_type: 'owns', weight: 0.8 }],
};
const TRIP_DREAM = {
  moments: [{ key: 'lisbon-trip-planning', summary: 'Booked flights to Lisbon.', topic_tags: ['travel'], entity_keys: ['lisbon'] }],
  entities: [{ key: 'lisbon', name: 'Lisbon', entity_type: 'place' }],
  edges: [],
};

describe('dreaming', () => {
  it('consolidates two sessions into moments, entities and edges recording the job, for that user only', async () => {
    const alice = newUser(env.server.url);
    const bob = newUser(env.server.url, alice.headers['x-tenant-id']);
    env.fake.enqueue({ text: 'Sure, I noted the meeting.' }, { text: 'Flights booked.' }, { text: 'Bob’s secret is safe.' });
    const budget = await chat(env.server.url, alice, { content: 'I meet Sarah Chen on Monday about the Q3 budget.' });
    const trip = await chat(env.server.url, alice, { content: 'Book me flights to Lisbon for May.' });
    const bobs = await chat(env.server.url, bob, { content: 'My secret project is Falcon.' });

    env.fake.enqueue(
      (req) => ({ json: lastUser(req).includes('Sarah Chen') ? BUDGET_DREAM : TRIP_DREAM }),
      (req) => ({ json: lastUser(req).includes('Sarah Chen') ? BUDGET_DREAM : TRIP_DREAM }),
    );
    const job = await dream(alice);
    expect(job).toMatchObject({ kind: 'dream', status: 'QUEUED' });
    const done = await finished(alice, job.id);
    expect(done).toMatchObject({ status: 'DONE', attempts: 1, error: null });
    expect(done.result).toEqual({
      sessions: [
        { sessionId: raw(budget.sent.session.id), fromSeq: 0, toSeq: 2, moments: ['q3-budget-meeting'], entities: ['sarah-chen', 'q3-budget'], edges: 2 },
        { sessionId: raw(trip.sent.session.id), fromSeq: 0, toSeq: 2, moments: ['lisbon-trip-planning'], entities: ['lisbon'], edges: 1 },
      ],
    });

    // The agent read each session's transcript, and never Bob's.
    const requests = dreamRequests();
    expect(requests).toHaveLength(2);
    expect(lastUser(requests[0]!)).toMatch(
      /^Session ".*" \(.*\), messages 1 to 2,\nfrom .* to .*:\n\nuser: I meet Sarah Chen on Monday about the Q3 budget\.\nassistant: Sure, I noted the meeting\.$/,
    );
    expect(requests.map(lastUser).join('\n')).not.toContain('Falcon');

    const memory = await alice.data(DreamedMemoryDocument);
    const moments = memory.moments.edges.map((e) => e.node);
    const meeting = moments.find((m) => m.key === 'q3-budget-meeting')!;
    expect(meeting).toMatchObject({
      summary: 'Planned the Q3 budget review with Sarah Chen.',
      momentType: 'conversation',
      tags: ['budget', 'q3'],
      metadata: { participants: ['sarah-chen'], messages: { from: 1, to: 2 } },
      graphEdges: [{ dst: 'sarah-chen', relType: 'involves' }],
      sourceJob: { id: job.id },
      sourceTurn: null,
    });
    expect(meeting.sessionId).toBe(budget.sent.session.id);
    const [question, answer] = await env.server.db.prisma.message.findMany({ where: { sessionId: raw(budget.sent.session.id) }, orderBy: { seq: 'asc' } });
    expect([meeting.startsAt, meeting.endsAt]).toEqual([question!.createdAt.toISOString(), answer!.createdAt.toISOString()]);
    expect(moments.find((m) => m.key === 'lisbon-trip-planning')).toMatchObject({
      sessionId: trip.sent.session.id,
      graphEdges: [{ dst: 'lisbon', relType: 'involves' }],
    });
    const entities = memory.entities.edges.map((e) => e.node);
    expect(entities.find((e) => e.key === 'sarah-chen')).toEqual({
      key: 'sarah-chen',
      name: 'Sarah Chen',
      entityType: 'person',
      summary: 'Head of finance',
      graphEdges: [{ dst: 'q3-budget', relType: 'owns', weight: 0.8 }],
      sourceJob: { id: job.id },
    });

    // Bob's memory and session are untouched, and he cannot read Alice's job.
    const bobsMemory = await bob.data(DreamedMemoryDocument);
    expect(bobsMemory.moments.edges).toEqual([]);
    expect(bobsMemory.entities.edges).toEqual([]);
    expect((await env.server.db.prisma.session.findUniqueOrThrow({ where: { id: raw(bobs.sent.session.id) } })).dreamedSeq).toBe(0);
    expect((await bob.request(JobDocument, { id: job.id })).body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');
    const foreign = await alice.data(DreamDocument, { input: { sessionId: bobs.sent.session.id } });
    expect(foreign.dream).toMatchObject({ __typename: 'NotFoundError', code: 'NOT_FOUND' });
  });

  it('dreams over each range of a session once: a second dream reads only what came after', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'Noted.' });
    const first = await chat(env.server.url, user, { content: 'I meet Sarah Chen about the Q3 budget.' });
    env.fake.enqueue({ json: BUDGET_DREAM });
    await finished(user, (await dream(user)).id);

    // Nothing new: the job does nothing and asks no model.
    const before = env.fake.chatRequests.length;
    expect((await finished(user, (await dream(user, first.sent.session.id)).id)).result).toEqual({ sessions: [] });
    expect(env.fake.chatRequests).toHaveLength(before);

    env.fake.enqueue({ text: 'Moved to Tuesday.' });
    await chat(env.server.url, user, { content: 'The budget meeting moved to Tuesday.', sessionId: first.sent.session.id });
    env.fake.enqueue({
      json: {
        moments: [{ key: 'q3-budget-meeting', summary: 'The Q3 budget meeting moved to Tuesday.', entity_keys: ['q3-budget'] }],
        entities: [],
        edges: [],
      },
    });
    const again = await finished(user, (await dream(user, first.sent.session.id)).id);
    // The new turn stored its user message, the memory it was given (the moment dreamed above) and its answer.
    const last = (await env.server.db.prisma.message.aggregate({ where: { sessionId: raw(first.sent.session.id) }, _max: { seq: true } }))._max.seq!;
    expect(last).toBeGreaterThan(3);
    expect(again.result).toMatchObject({ sessions: [{ fromSeq: 2, toSeq: last, moments: ['q3-budget-meeting'] }] });
    const read = lastUser(dreamRequests().at(-1)!);
    expect(read).toMatch(new RegExp(`messages 3 to ${last}`));
    expect(read).not.toContain('user: I meet Sarah Chen');
    expect(read).toContain('user: The budget meeting moved to Tuesday.');
    const meeting = (await user.data(DreamedMemoryDocument)).moments.edges.map((e) => e.node).find((m) => m.key === 'q3-budget-meeting')!;
    // The new participant is added; the earlier one stays.
    expect(meeting.graphEdges).toEqual([
      { dst: 'sarah-chen', relType: 'involves' },
      { dst: 'q3-budget', relType: 'involves' },
    ]);
    expect(meeting.summary).toBe('The Q3 budget meeting moved to Tuesday.');
  });

  it('retries a dream whose model answers do not match the schema even after a repair, then fails it, writing nothing', async () => {
    const user = newUser(env.server.url);
    env.fake.enqueue({ text: 'ok' });
    const sent = await chat(env.server.url, user, { content: 'hello' });
    // Each attempt asks once for a repair: three attempts, two replies each.
    env.fake.enqueue(...[1, 2, 3].flatMap(() => [{ json: { moments: 'none' } }, { text: 'not json at all' }]));
    const job = await finished(user, (await dream(user)).id);
    expect(job).toMatchObject({ status: 'FAILED', attempts: 3, error: { code: 'MODEL_ERROR' } });
    expect((job.error as { message: string }).message).toMatch(
      /^dreaming did not finish: The reply did not match the agent's output schema after one repair: not valid JSON/,
    );
    expect(lastUser(dreamRequests().at(-1)!)).toMatch(/^Your previous reply did not match the required JSON Schema:/);
    expect((await env.server.db.prisma.session.findUniqueOrThrow({ where: { id: raw(sent.sent.session.id) } })).dreamedSeq).toBe(0);
    expect((await user.data(DreamedMemoryDocument)).moments.edges).toEqual([]);
  }, 60_000);

  // The schedule picks every user with new conversation in the database; on PostgreSQL that database
  // is shared with every other suite, whose users this server's fake model has no script for.
  it.skipIf(backend() === 'postgres')('the schedule queues a dream for every user with new conversation', async () => {
    const users = [newUser(env.server.url), newUser(env.server.url)];
    for (const user of users) {
      env.fake.enqueue({ text: 'ok' });
      await chat(env.server.url, user, { content: 'Lisbon in May' });
    }
    // Earlier tests left conversation of other users undreamed on purpose; this test is about these two.
    const ids = users.map((u) => u.headers['x-user-id']!);
    await env.server.db.prisma.session.updateMany({ where: { userId: { notIn: ids } }, data: { dreamedSeq: 1_000_000 } });
    env.fake.enqueue({ json: TRIP_DREAM }, { json: TRIP_DREAM });
    // It only queues (it never claims), so whom it takes for stopped does not matter.
    const queue = new JobQueue(env.server.db.prisma, 'test-scheduler', createPubSub(), embeddedLiveness('test-scheduler'));
    expect(await scheduleDreams({ prisma: env.server.db.prisma, queue })).toBe(2);
    // Queued already: scheduling again adds nothing.
    await scheduleDreams({ prisma: env.server.db.prisma, queue });
    const jobs = await env.server.db.prisma.job.findMany({ where: { userId: { in: ids } } });
    expect(jobs).toHaveLength(2);
    for (const user of users)
      expect((await finished(user, encodeGlobalID('Job', jobs.find((j) => j.userId === user.headers['x-user-id'])!.id))).status).toBe('DONE');
    expect(await scheduleDreams({ prisma: env.server.db.prisma, queue })).toBe(0);
  });
});
