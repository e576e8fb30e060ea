import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { decodeGlobalID } from '@pothos/plugin-relay';
import { describe, expect, it } from 'vitest';
import { caller, errorCode, newUser, type Caller } from '../support/client.js';
import { startAgentServer, useAgentServer } from '../support/agents.js';
import { backend, tempDataDir } from '../support/server.js';
import type { RecordedRequest } from '../support/fake-openai.js';
import { capturingLogger } from '../support/log-capture.js';
import { IngestDocument, JobDocument, QueueReembedDocument, RemQueryDocument, type JobQuery, type MemoryItemInput } from '../generated/graphql.js';

// Embeddings come from the fake OpenAI server, whose `holdNext` catches a re-embed between two
// batches of REM_REEMBED_BATCH_SIZE rows.
const SETTINGS = { JOB_KINDS: 'reembed', JOB_POLL_MS: '100', EMBEDDING_PROVIDER: 'openai', REM_REEMBED_BATCH_SIZE: '2' };

type Server = Awaited<ReturnType<typeof startAgentServer>>;
type ReembedJob = NonNullable<JobQuery['job']>;

async function queueReembed(user: Caller) {
  const { queueReembed } = await user.data(QueueReembedDocument);
  if (queueReembed.__typename !== 'QueueReembedSuccess') throw new Error(JSON.stringify(queueReembed));
  return queueReembed.job;
}

async function waitForJob(user: Caller, id: string, until: (job: ReembedJob) => boolean): Promise<ReembedJob> {
  for (let i = 0; i < 400; i++) {
    const { job } = await user.data(JobDocument, { id });
    if (until(job!)) return job!;
    if (job!.status === 'FAILED') throw new Error(JSON.stringify(job));
    await sleep(25);
  }
  throw new Error(`job ${id} never got there`);
}

const finished = (user: Caller, id: string) => waitForJob(user, id, (job) => job.status === 'DONE');

async function ingest(user: Caller, items: MemoryItemInput[]) {
  const { ingest } = await user.data(IngestDocument, { items });
  expect(ingest.__typename).toBe('IngestSuccess');
}

/** The tenant's rows as if written before a model change (or by SQL): no vector of the configured model. */
const dropVectors = (env: Server, tenant: string) => env.server.db.prisma.$executeRaw`DELETE FROM embeddings WHERE tenant_id = ${tenant}`;
const vectorsOf = (env: Server, tenant: string, userId: string | null) => env.server.db.prisma.embedding.count({ where: { tenantId: tenant, userId } });
const search = async (user: Caller, text: string) =>
  (await user.data(RemQueryDocument, { query: `SEARCH "${text}" LIMIT 10` })).remQuery.hits.map((h) => h.key);

/** Embeddings requests for the rows of this tenant (a job of another suite's tenant may run here too, on PostgreSQL). */
const forTenant = (tenant: string) => (request: RecordedRequest) => JSON.stringify(request.body.input).includes(tenant);

/**
 * Holds the tenant's next embeddings request (a re-embed's first batch) and, once it came, lets it
 * through holding the one after: after `reached`, the job has done one batch and waits until `resume()`.
 */
function pauseAfterFirstBatch(fake: Server['fake'], tenant: string): { reached: Promise<void>; resume: () => void } {
  const first = fake.holdNext('embeddings', forTenant(tenant));
  let second = () => {};
  const reached = first.reached.then(() => {
    second = fake.holdNext('embeddings', forTenant(tenant)).release;
    first.release();
  });
  return { reached, resume: () => second() };
}

/** Three entities, a resource and a moment; their text names the tenant. */
const aliceRows = (tenant: string): MemoryItemInput[] => [
  { entity: { key: 'walrus colony', content: `walrus colony on the arctic ice (${tenant})` } },
  { entity: { key: 'puffin burrow', content: `puffin burrow on the cliff (${tenant})` } },
  { entity: { key: 'narwhal pod', content: `narwhal pod under the ice (${tenant})` } },
  { resource: { key: 'field notes', content: `field notes about seabirds (${tenant})` } },
  { moment: { key: 'survey day', content: `survey day at the glacier (${tenant})` } },
];

describe('reembed as a background job', () => {
  const env = useAgentServer(SETTINGS);

  it('re-embeds the caller’s own rows, reporting progress while it runs; one open job per caller', async () => {
    const alice = newUser(env.server.url);
    const tenant = alice.headers['x-tenant-id']!;
    const bob = newUser(env.server.url, tenant);
    await ingest(alice, aliceRows(tenant));
    await ingest(bob, [{ entity: { key: 'bobs walrus', content: `another walrus colony (${tenant})` } }]);
    await dropVectors(env, tenant);
    expect(await search(alice, 'walrus colony arctic ice')).toEqual([]);

    const paused = pauseAfterFirstBatch(env.fake, tenant);
    const job = await queueReembed(alice);
    expect(job.kind).toBe('reembed');
    await paused.reached;

    // After the first batch (2 of alice's 3 entities) the job has written its progress and waits on the second.
    const running = await waitForJob(alice, job.id, (j) => j.progress !== null);
    expect(running).toMatchObject({ status: 'RUNNING', progress: { table: 'entities', scanned: 2, embedded: 2 }, result: null });
    expect((await queueReembed(alice)).id).toBe(job.id);
    expect(errorCode(await bob.request(JobDocument, { id: job.id }))).toBe('NOT_FOUND');

    paused.resume();
    const done = await finished(alice, job.id);
    expect(done.result).toEqual({ model: 'text-embedding-3-small', dimension: 1536, embedded: 5 });
    expect(done.progress).toEqual({ table: 'moments', scanned: 5, embedded: 5 });
    expect(await search(alice, 'walrus colony arctic ice')).toContain('walrus-colony');
    expect(await vectorsOf(env, tenant, alice.headers['x-user-id']!)).toBe(5);
    expect(await vectorsOf(env, tenant, bob.headers['x-user-id']!)).toBe(0);

    // Finished, it no longer stands for the caller's scope: a new job, with nothing left to do.
    const again = await queueReembed(alice);
    expect(again.id).not.toBe(job.id);
    expect((await finished(alice, again.id)).result).toMatchObject({ embedded: 0 });
  });

  it('an admin’s job re-embeds the whole tenant and is the tenant’s: other admins share it, users do not see it', async () => {
    const alice = newUser(env.server.url);
    const tenant = alice.headers['x-tenant-id']!;
    const bob = newUser(env.server.url, tenant);
    const admin = newUser(env.server.url, tenant, { 'x-roles': 'admin' });
    const otherAdmin = newUser(env.server.url, tenant, { 'x-roles': 'admin' });
    await ingest(alice, [{ entity: { key: 'alices note', content: `alice likes glaciers (${tenant})` } }]);
    await ingest(bob, [{ entity: { key: 'bobs note', content: `bob likes icebergs (${tenant})` } }]);
    await ingest(admin, [{ entity: { key: 'tenant handbook', content: `the handbook for everyone (${tenant})`, shared: true } }]);
    await dropVectors(env, tenant);

    const paused = pauseAfterFirstBatch(env.fake, tenant);
    const job = await queueReembed(admin);
    await paused.reached;
    expect((await queueReembed(otherAdmin)).id).toBe(job.id);
    expect(await waitForJob(otherAdmin, job.id, (j) => j.progress !== null)).toMatchObject({ status: 'RUNNING', progress: { scanned: 2 } });
    expect(errorCode(await alice.request(JobDocument, { id: job.id }))).toBe('NOT_FOUND');
    const stored = await env.server.db.prisma.job.findUniqueOrThrow({ where: { id: decodeGlobalID(job.id).id } });
    expect(stored).toMatchObject({ userId: null, payload: { scope: 'tenant', requestedBy: admin.headers['x-user-id'] } });

    paused.resume();
    const done = await finished(admin, job.id);
    expect(done.result).toMatchObject({ embedded: 3 });
    expect(done.progress).toEqual({ table: 'entities', scanned: 3, embedded: 3 });
    for (const userId of [alice.headers['x-user-id']!, bob.headers['x-user-id']!, null]) expect(await vectorsOf(env, tenant, userId)).toBe(1);
  });

  it('refuses anonymous callers with a typed error and queues nothing', async () => {
    const tenant = `t-${randomUUID()}`;
    const anonymous = caller(env.server.url, { 'x-tenant-id': tenant });
    const { queueReembed } = await anonymous.data(QueueReembedDocument);
    expect(queueReembed).toMatchObject({ __typename: 'ForbiddenError', code: 'FORBIDDEN' });
    expect(await env.server.db.prisma.job.count({ where: { tenantId: tenant } })).toBe(0);
  });
});

// Its own servers, after the suite's shared one stopped: on PostgreSQL no other process takes the job.
describe('reembed job across a restart', () => {
  it('stopped by a shutdown between batches, it is resumed by the next process and counts on from where it stopped', async () => {
    const database: Record<string, string> = backend() === 'postgres' ? {} : { DATA_DIR: await tempDataDir() };
    const logs = capturingLogger();
    const first = await startAgentServer({ ...SETTINGS, ...database }, { logger: logs.logger });
    let alice: Caller;
    let jobId: string;
    let tenant: string;
    try {
      alice = newUser(first.server.url);
      tenant = alice.headers['x-tenant-id']!;
      await ingest(alice, aliceRows(tenant));
      await dropVectors(first, tenant);
      const paused = pauseAfterFirstBatch(first.fake, tenant);
      jobId = (await queueReembed(alice)).id;
      await paused.reached;
      await waitForJob(alice, jobId, (j) => j.progress !== null);

      // The shutdown asks the job to stop; it finishes the batch under way (the 3rd entity), stores
      // its count and goes back to the queue.
      const stopped = first.server.stop();
      while (!logs.lines().some((l) => String(l.msg).startsWith('asked running jobs to stop'))) await sleep(10);
      paused.resume();
      await stopped;
    } finally {
      await first.server.stop();
      await first.fake.close();
    }

    const second = await startAgentServer({ ...SETTINGS, ...database });
    try {
      const done = await finished(caller(second.server.url, alice.headers), jobId);
      // Released, not failed: this is its first counted attempt.
      expect(done).toMatchObject({ status: 'DONE', result: { embedded: 5 }, progress: { table: 'moments', scanned: 5, embedded: 5 } });
      expect((await second.server.db.prisma.job.findUniqueOrThrow({ where: { id: decodeGlobalID(jobId).id } })).attempts).toBe(1);
      // The second process embedded only what the first had not: the resource and the moment.
      const resumed = second.fake.requests.filter((r) => r.path === '/v1/embeddings' && forTenant(tenant)(r));
      expect(resumed.map((r) => r.body.input.length)).toEqual([1, 1]);
      expect(await second.server.db.prisma.embedding.count({ where: { userId: alice.headers['x-user-id'] } })).toBe(5);
    } finally {
      await second.server.stop();
      await second.fake.close();
    }
  });
});
