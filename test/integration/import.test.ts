import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { decodeGlobalID, encodeGlobalID } from '@pothos/plugin-relay';
import { caller, collect, newUser, wsClient, type Caller } from '../support/client.js';
import { ownPostgresDatabase } from '../support/own-database.js';
import { runCli, spawnServer } from '../support/process.js';
import { backend, startTestServer, tempDataDir, type TestServer } from '../support/server.js';
import { ImportFileDocument, JobDocument, JobProgressDocument, RemQueryDocument, type ImportFileMutation } from '../generated/graphql.js';
import { databaseUrl } from '../support/database-url.js';

const MAX_FILE = 4 * 1024 * 1024;
// Imports of more rows than this drop the vector index and build it after; smaller ones keep it.
const SETTINGS = { IMPORT_REINDEX_THRESHOLD: '1000', JOB_KINDS: 'import', JOB_POLL_MS: '100', INGEST_MAX_FILE_BYTES: String(MAX_FILE), LOG_LEVEL: 'silent' };
const REDIS_URL = process.env.TEST_REDIS_URL;

const SYLLABLES = ['ka', 'ro', 'mi', 'tu', 'se', 'la', 'po', 'ne', 'vi', 'da', 'gu', 'fe', 'ho', 'zi', 'bu', 'ty'];
/** Four made-up words of their own for each row, so that rows' vectors are far apart (as real text is) and SEARCH finds one by them. */
const phrase = (i: number) =>
  [1, 2, 3, 4]
    .map((k) => {
      const h = Math.imul((i + 1) ^ (k << 20), 2654435761);
      return Math.imul(h ^ (h >>> 15), 0x85ebca6b) >>> 13;
    })
    .map((h) => [0, 4, 8].map((shift) => SYLLABLES[(h >>> shift) & 15]).join(''))
    .join(' ');
const entityLine = (i: number, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ entity: { key: `person-${i}`, name: `Person ${i}`, entityType: 'person', content: `Person ${i}: ${phrase(i)}.`, ...extra } });

/** n entities, a resource and a moment: one JSON item a line. */
function jsonl(n: number): string {
  const lines = Array.from({ length: n - 2 }, (_, i) => entityLine(i + 1));
  lines.push(JSON.stringify({ resource: { key: 'handbook', name: 'Handbook', content: 'Flights need approval.', tags: ['policy'] } }));
  lines.push(JSON.stringify({ moment: { key: 'kickoff', name: 'Kickoff', startsAt: '2026-01-05T09:00:00Z', endsAt: '2026-01-05T10:00:00Z' } }));
  return `${lines.join('\n')}\n`;
}

async function tempFile(name: string, text: string): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'remgraph-import-')), name);
  await writeFile(path, text);
  return path;
}

async function databaseEnv(): Promise<Record<string, string>> {
  const url = databaseUrl();
  return url ? { DATABASE_URL: url } : { DATA_DIR: await tempDataDir() };
}

async function counts(env: Record<string, string>, tenant: string) {
  const db = await openDatabase(env.DATABASE_URL ? { url: env.DATABASE_URL, dataDir: '' } : { dataDir: env.DATA_DIR! });
  try {
    const [row] = await db.prisma.$queryRawUnsafe<{ entities: number; resources: number; moments: number; vectors: number; kv: number; indexed: number }[]>(
      `SELECT (SELECT count(*) FROM entities WHERE tenant_id = $1)::int AS entities, (SELECT count(*) FROM resources WHERE tenant_id = $1)::int AS resources,
              (SELECT count(*) FROM moments WHERE tenant_id = $1)::int AS moments, (SELECT count(*) FROM embeddings WHERE tenant_id = $1)::int AS vectors,
              (SELECT count(*) FROM kv_store WHERE tenant_id = $1)::int AS kv,
              (SELECT count(*) FROM pg_indexes WHERE indexname = 'embeddings_hnsw_384_custom')::int AS indexed`,
      tenant,
    );
    return row!;
  } finally {
    await db.close();
  }
}

const search = async (user: Caller, text: string) => (await user.data(RemQueryDocument, { query: text })).remQuery.hits.map((h) => h.key);

describe('remgraph import', () => {
  it('imports 3,000 rows from a file in batches, the vector index rebuilt, searchable right after', { timeout: 900_000 }, async () => {
    // Whether it rebuilds depends on every tenant's vectors: in the suite's shared PostgreSQL database, on what other files wrote.
    const own = backend() === 'postgres' ? await ownPostgresDatabase('remgraph_import_rebuild') : undefined;
    const env = own ? { DATABASE_URL: own.url } : await databaseEnv();
    const tenant = `t-${randomUUID()}`;
    const file = await tempFile('memory.jsonl', jsonl(3000));
    const run = await runCli(['import', file, '--user', 'alice', '--tenant', tenant], { ...env, ...SETTINGS }).exit;
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/rows\/s · ETA/);
    expect(run.stdout).toMatch(
      /Imported 3000 rows \(2998 entities, 1 resources, 1 moments\) from .*memory\.jsonl in [\d.]+ s \(\d+ rows\/s\); vector index rebuilt\.\n$/,
    );
    expect(await counts(env, tenant)).toEqual({ entities: 2998, resources: 1, moments: 1, vectors: 3000, kv: 3000, indexed: 1 });

    const server = await startTestServer(env);
    try {
      const alice = caller(server.url, { 'x-user-id': 'alice', 'x-tenant-id': tenant });
      expect(await search(alice, `SEARCH "${phrase(2321)}" FROM entities LIMIT 1`)).toEqual(['person-2321']);
      expect((await alice.data(RemQueryDocument, { query: 'LOOKUP "kickoff"' })).remQuery.hits.map((h) => h.key)).toEqual(['kickoff']);
    } finally {
      await server.stop();
      await own?.drop();
    }
  });

  it('stops at a bad line with its number, keeping the lines before; resumes from a line; skips bad lines when asked', { timeout: 300_000 }, async () => {
    const env = await databaseEnv();
    const tenant = `t-${randomUUID()}`;
    const lines = Array.from({ length: 10 }, (_, i) => entityLine(i + 1));
    lines[4] = JSON.stringify({ entity: { key: '!!!', name: 'bad' } });
    lines[6] = '{"entity": {"key": "cut';
    const file = await tempFile('people.jsonl', `${lines.join('\n')}\n`);
    const cli = (args: string[]) => runCli(['import', file, '--tenant', tenant, '--user', 'bob', ...args], { ...env, ...SETTINGS }).exit;

    const stopped = await cli([]);
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toBe('line 5: entity.key: must contain letters or digits\nLines before 5 are imported; resume with --from-line 5.\n');
    expect(await counts(env, tenant)).toMatchObject({ entities: 4, vectors: 4, indexed: 1 });

    const resumed = await cli(['--from-line', '6']);
    expect(resumed.code).toBe(1);
    expect(resumed.stderr).toMatch(/^line 7: not JSON \(.*\)\nLines before 7 are imported; resume with --from-line 7\.\n$/);
    expect(await counts(env, tenant)).toMatchObject({ entities: 5 });

    const skipping = await cli(['--from-line', '7', '--skip-invalid']);
    expect(skipping.code).toBe(0);
    expect(skipping.stderr).toMatch(/^line 7: not JSON \(.*\) \(skipped\)\n$/);
    expect(skipping.stdout).toMatch(/Imported 3 rows .*; 1 bad lines skipped\.\n$/);
    expect(await counts(env, tenant)).toMatchObject({ entities: 8, vectors: 8, kv: 8, indexed: 1 });

    // Again from the start: the same rows are updated (a key's later line wins), none added.
    const again = await cli(['--skip-invalid']);
    expect(again.code).toBe(0);
    expect(await counts(env, tenant)).toMatchObject({ entities: 8, vectors: 8 });

    const bad = await runCli(['import', join(file, '..', 'missing.jsonl')], { ...env, ...SETTINGS }).exit;
    expect([bad.code, bad.stderr.trim()]).toEqual([1, `${join(file, '..', 'missing.jsonl')}: no such file or directory`]);
    const usage = await runCli(['import', file, '--from-line', 'x'], { ...env, ...SETTINGS }).exit;
    expect(usage.code).toBe(2);
  });

  it('imports every *.jsonl of a directory in name order, numbering lines across them', { timeout: 300_000 }, async () => {
    const env = await databaseEnv();
    const tenant = `t-${randomUUID()}`;
    const dir = await mkdtemp(join(tmpdir(), 'remgraph-import-dir-'));
    await writeFile(join(dir, 'b.jsonl'), `${entityLine(3)}\n${JSON.stringify({ entity: { key: 'person-1', summary: 'updated later' } })}\n{}\n`);
    await writeFile(join(dir, 'a.jsonl'), `${entityLine(1)}\n\n${entityLine(2)}`);
    await writeFile(join(dir, 'notes.txt'), 'not imported');
    const run = await runCli(['import', dir, '--tenant', tenant], { ...env, ...SETTINGS }).exit;
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('line 6 (b.jsonl:3): give exactly one of entity, resource or moment\nLines before 6 are imported; resume with --from-line 6.\n');
    expect(await counts(env, tenant)).toMatchObject({ entities: 3 });
    const db = await openDatabase(env.DATABASE_URL ? { url: env.DATABASE_URL, dataDir: '' } : { dataDir: env.DATA_DIR! });
    try {
      // Without --user: the tenant's shared rows; a later line updates only the fields it gives.
      const person = await db.prisma.entity.findFirstOrThrow({ where: { tenantId: tenant, key: 'person-1' } });
      expect([person.userId, person.name, person.summary]).toEqual([null, 'Person 1', 'updated later']);
    } finally {
      await db.close();
    }
  });
});

describe.runIf(backend() === 'pglite')('remgraph import and a running server', () => {
  it('is refused next to a server on the same data directory, and writes nothing', { timeout: 300_000 }, async () => {
    const dataDir = await tempDataDir();
    const file = await tempFile('few.jsonl', `${entityLine(1)}\n`);
    const server = await spawnServer({ DATA_DIR: dataDir });
    const tenant = `t-${randomUUID()}`;
    try {
      const refused = await runCli(['import', file, '--tenant', tenant], { DATA_DIR: dataDir, LOG_LEVEL: 'silent' }).exit;
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim()).toBe(`the database in ${dataDir} is in use by remgraph (pid ${server.proc.pid}): stop it, or use the API (importFile)`);
      expect(refused.stdout).toBe('');
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(await counts({ DATA_DIR: dataDir }, tenant)).toMatchObject({ entities: 0 });
  });
});

async function upload(url: string, user: Caller, name: string, bytes: string | Uint8Array) {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query: print(ImportFileDocument), variables: { file: null } }));
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append('0', new Blob([typeof bytes === 'string' ? bytes : Buffer.from(bytes)]), name);
  const res = await fetch(url, { method: 'POST', headers: { ...user.headers, 'x-graphql-yoga-csrf': '1' }, body: form });
  const body = (await res.json()) as { data?: ImportFileMutation; errors?: unknown[] };
  expect(body.errors, JSON.stringify(body.errors)).toBeUndefined();
  return body.data!.importFile;
}

async function finished(user: Caller, id: string) {
  for (;;) {
    const { job } = await user.data(JobDocument, { id });
    if (job && (job.status === 'DONE' || job.status === 'FAILED')) return job;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Everything jobProgress(id) emits to `user` over graphql-ws until it completes. */
async function follow(url: string, user: Caller, id: string) {
  const client = wsClient(url, user.headers);
  try {
    return await collect(client, JobProgressDocument, { id }).done;
  } finally {
    await client.dispose();
  }
}

/**
 * Queues an import of `lines` lines (on `url`), follows it (on `watchUrl`) and checks that every
 * batch's progress was emitted in order, ending DONE with every line written.
 */
async function importAndFollow(url: string, watchUrl: string, user: Caller, lines: number, batch: number) {
  const queued = await upload(url, user, 'memory.jsonl', jsonl(lines));
  if (queued.__typename !== 'ImportFileSuccess') throw new Error(JSON.stringify(queued));
  const states = (await follow(watchUrl, user, queued.job.id)).map((item) => (expect(item.errors).toBeUndefined(), item.data!.jobProgress));
  const done = (state: (typeof states)[number]) => (state.progress as { done: number } | null)?.done ?? 0;
  expect(states.map(done)).toEqual(states.map(done).sort((a, b) => a - b));
  // Followed from before the job ended (its batches take far longer than subscribing).
  expect(states.length).toBeGreaterThan(2);
  const running = states.filter((state) => state.status === 'RUNNING' && state.progress);
  const steps = running.slice(1).map((state, i) => done(state) - done(running[i]!));
  expect(steps).toEqual(steps.map((_, i) => (i === steps.length - 1 ? lines % batch || batch : batch)));
  expect(states.at(-1)).toMatchObject({ status: 'DONE', progress: { total: lines, done: lines, rows: lines }, result: { rows: lines } });
  return queued.job.id;
}

describe('importFile (GraphQL multipart)', () => {
  let server: TestServer;
  const BATCH = 50;
  beforeAll(async () => {
    server = await startTestServer({ ...SETTINGS, IMPORT_BATCH_SIZE: String(BATCH) });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('imports 3,000 rows as a job with progress, searchable once it is done', { timeout: 900_000 }, async () => {
    const user = newUser(server.url);
    const queued = await upload(server.url, user, 'memory.jsonl', jsonl(3000));
    if (queued.__typename !== 'ImportFileSuccess') throw new Error(JSON.stringify(queued));
    expect(queued.job.kind).toBe('import');
    const job = await finished(user, queued.job.id);
    expect(job).toMatchObject({
      status: 'DONE',
      // Whether the index was rebuilt depends on the vectors already there (a shared database on PostgreSQL).
      progress: { total: 3000, done: 3000, rows: 3000 },
      result: { rows: 3000, entities: 2998, resources: 1, moments: 1, skipped: 0, total: 3000 },
    });
    expect(await search(user, `SEARCH "${phrase(777)}" FROM entities LIMIT 1`)).toEqual(['person-777']);
    const tenant = user.headers['x-tenant-id']!;
    const userId = user.headers['x-user-id']!;
    expect(await server.db.prisma.entity.count({ where: { tenantId: tenant, userId } })).toBe(2998);
    expect(await server.db.prisma.embedding.count({ where: { tenantId: tenant, userId } })).toBe(3000);
  });

  it('a small import keeps the vector index and is searchable right after', { timeout: 120_000 }, async () => {
    const user = newUser(server.url);
    const queued = await upload(server.url, user, 'few.jsonl', `${entityLine(1)}\n${entityLine(2)}\n`);
    if (queued.__typename !== 'ImportFileSuccess') throw new Error(JSON.stringify(queued));
    expect(await finished(user, queued.job.id)).toMatchObject({
      status: 'DONE',
      result: { rows: 2, reindexed: false },
      progress: { stage: 'loading', done: 2 },
    });
    expect(await search(user, `SEARCH "${phrase(2)}" FROM entities LIMIT 1`)).toEqual(['person-2']);
  });

  it('streams a job’s progress over graphql-ws batch by batch to DONE, to its owner only; then drops the stored file', { timeout: 300_000 }, async () => {
    const user = newUser(server.url);
    const id = await importAndFollow(server.url, server.url, user, 975, BATCH);
    const job = await server.db.prisma.job.findUniqueOrThrow({ where: { id: decodeGlobalID(id).id } });
    expect(job.payload).toEqual({ name: 'memory.jsonl', admin: false });

    // A finished job: its final state once, then the subscription completes.
    expect((await follow(server.url, user, id)).map((item) => item.data?.jobProgress)).toEqual([
      expect.objectContaining({ id, status: 'DONE', result: expect.objectContaining({ rows: 975 }) }),
    ]);
    // A refused subscription ends with graphql-ws's error message, carrying the GraphQL errors.
    const codes = (who: Caller, jobId: string) =>
      follow(server.url, who, jobId).then(
        (items) => items,
        (error: Error) => (JSON.parse(error.message) as { extensions: { code: string } }[]).map((e) => e.extensions.code),
      );
    expect(await codes(newUser(server.url), id)).toEqual(['NOT_FOUND']);
    expect(await codes(newUser(server.url, user.headers['x-tenant-id']), id)).toEqual(['NOT_FOUND']);
    expect(await codes(user, encodeGlobalID('Job', randomUUID()))).toEqual(['NOT_FOUND']);
    expect(await codes(user, 'not-an-id')).toEqual(['VALIDATION_FAILED']);
  });

  it('refuses bad files with typed errors, naming a bad line, and queues nothing', async () => {
    const user = newUser(server.url);
    expect(await upload(server.url, user, 'memory.jsonl', `${entityLine(1)}\n${entityLine(2)}\n{"entity": {"key": ""}}\n`)).toMatchObject({
      __typename: 'ValidationError',
      code: 'VALIDATION_FAILED',
      message: 'line 3: entity.key: must contain letters or digits',
      issues: [{ line: 3 }],
    });
    expect(await upload(server.url, user, 'memory.jsonl', `${entityLine(1)}\n{"resource": {"key": "a"}, "moment": {"key": "b"}}\n`)).toMatchObject({
      __typename: 'ValidationError',
      message: 'line 2: give exactly one of entity, resource or moment',
    });
    expect(await upload(server.url, user, 'memory.jsonl', `${entityLine(1)}\n${JSON.stringify({ entity: { key: 'x', shared: true } })}\n`)).toMatchObject({
      __typename: 'ValidationError',
      message: 'line 2: entity.shared: only admins write shared memory',
    });
    expect(await upload(server.url, user, 'notes.md', '# Notes\n\nNot JSON at all.\n')).toMatchObject({
      __typename: 'ValidationError',
      message: expect.stringMatching(/^file: not a JSONL file \(line 1: not JSON/),
    });
    expect(await upload(server.url, user, 'image.png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff]))).toMatchObject({
      __typename: 'ValidationError',
      message: 'file: not a JSONL file (not UTF-8 text)',
    });
    expect(await upload(server.url, user, 'empty.jsonl', '\n\n')).toMatchObject({
      __typename: 'ValidationError',
      message: 'file: not a JSONL file (no JSON lines)',
    });
    const line = `${entityLine(1)}\n`;
    expect(await upload(server.url, user, 'big.jsonl', line.repeat(Math.ceil((MAX_FILE + 1) / line.length)))).toMatchObject({
      __typename: 'PayloadTooLargeError',
      limit: MAX_FILE,
    });
    expect(await server.db.prisma.job.count({ where: { tenantId: user.headers['x-tenant-id'], kind: 'import' } })).toBe(0);
  });
});

describe.runIf(databaseUrl() && REDIS_URL)('importFile across instances sharing PostgreSQL and Redis', () => {
  it('a client of an API-only instance follows, batch by batch, an import another instance runs', { timeout: 300_000 }, async () => {
    const worker = await startTestServer({ ...SETTINGS, IMPORT_BATCH_SIZE: '50', REDIS_URL });
    const api = await startTestServer({ ...SETTINGS, JOB_KINDS: '', REDIS_URL });
    try {
      await importAndFollow(api.url, api.url, newUser(api.url), 975, 50);
    } finally {
      await Promise.all([api.stop(), worker.stop()]);
    }
  });
});
