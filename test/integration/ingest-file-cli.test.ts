import { randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { access, mkdir, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../src/db/data-dir-lock.js';
import { openDatabase } from '../../src/db/database.js';
import { applyMigrations } from '../../src/db/migrations.js';
import { caller } from '../support/client.js';
import { runCli, spawnServer } from '../support/process.js';
import { backend, startTestServer, tempDataDir } from '../support/server.js';
import { RemQueryDocument, ResourcesDocument } from '../generated/graphql.js';
import { databaseUrl } from '../support/database-url.js';

const HANDBOOK = `# Handbook\n\n${'Trains are booked second class. '.repeat(8)}\n\n## Flights\n\n${'Flights over 500 euros need approval. '.repeat(8)}\n\n## Hotels\n\n${'Hotels are booked near the office. '.repeat(8)}\n`;

async function handbookFile(): Promise<string> {
  const file = join(await mkdtemp(join(tmpdir(), 'remgraph-ingest-')), 'handbook.md');
  await writeFile(file, HANDBOOK);
  return file;
}

/** Root with util-linux's unshare: a server can be started as PID 1 of a new pid namespace. */
const canUnsharePids = spawnSync('unshare', ['--pid', '--fork', '--kill-child=SIGKILL', 'true']).status === 0;

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('remgraph ingest_file', () => {
  it('ingests a file as the given user, searchable through the API; the same file again is unchanged; bad input exits non-zero with a message', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'remgraph-ingest-'));
    const file = join(dir, 'travel-policy.md');
    await writeFile(file, '# Travel policy\n\nTrains are booked second class.\n\n## Flights\n\nFlights over 500 euros need approval from Sarah Chen.\n');
    const url = databaseUrl();
    const database: Record<string, string> = url ? { DATABASE_URL: url } : { DATA_DIR: await tempDataDir() };
    const user = `u-${randomUUID()}`;
    const tenant = `t-${randomUUID()}`;

    const first = await runCli(['ingest_file', file, '--user', user, '--tenant', tenant, '--tags', 'policy,travel'], { ...database, LOG_LEVEL: 'silent' }).exit;
    expect(first.stderr).toBe('');
    expect(first.stdout).toMatch(/^.*travel-policy\.md: ingested as travel-policy, 2 chunks \(sha256 [0-9a-f]{64}\)\n$/);
    const again = await runCli(['ingest_file', file, '--user', user, '--tenant', tenant], { ...database, LOG_LEVEL: 'silent' }).exit;
    expect(again.stdout).toMatch(/: unchanged \(already ingested as travel-policy, 2 chunks/);

    const missing = await runCli(['ingest_file', join(dir, 'nope.md'), '--user', user], { ...database, LOG_LEVEL: 'silent' }).exit;
    expect([missing.code, missing.stderr.trim()]).toEqual([1, `${join(dir, 'nope.md')}: not a readable file`]);
    const noUser = await runCli(['ingest_file', file], { ...database, LOG_LEVEL: 'silent' }).exit;
    expect(noUser.code).toBe(2);
    await writeFile(join(dir, 'tool.exe'), 'MZ');
    const unsupported = await runCli(['ingest_file', join(dir, 'tool.exe'), '--user', user, '--tenant', tenant], { ...database, LOG_LEVEL: 'silent' }).exit;
    expect(unsupported.code).toBe(1);
    expect(unsupported.stderr).toMatch(/^tool\.exe: unsupported file type/);
    expect(unsupported.stderr).not.toMatch(/\bat .*\(/);

    const server = await startTestServer(database);
    try {
      const hits = (
        await caller(server.url, { 'x-user-id': user, 'x-tenant-id': tenant }).data(RemQueryDocument, {
          query: 'SEARCH "flights need approval from Sarah Chen" FROM resources LIMIT 1',
        })
      ).remQuery.hits;
      expect(hits.map((h) => h.key)).toEqual(['travel-policy-chunk-2']);
    } finally {
      await server.stop();
    }
  });
});

describe.runIf(backend() === 'pglite')('a PGlite data directory has one owner', () => {
  it('ingest_file against the directory of a running server exits non-zero, says so, and writes nothing', async () => {
    const dataDir = await tempDataDir();
    const file = await handbookFile();
    const user = { 'x-user-id': `u-${randomUUID()}`, 'x-tenant-id': `t-${randomUUID()}` };
    const server = await spawnServer({ DATA_DIR: dataDir });
    try {
      const refused = await runCli(['ingest_file', file, '--user', user['x-user-id'], '--tenant', user['x-tenant-id']], {
        DATA_DIR: dataDir,
        LOG_LEVEL: 'silent',
      }).exit;
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim()).toBe(`the database in ${dataDir} is in use by remgraph (pid ${server.proc.pid}): stop it, or use the API (ingestFile)`);
      expect(refused.stdout).toBe('');
      const listed = await caller(server.url, user).data(ResourcesDocument, { first: 10 });
      expect(listed.resources.totalCount).toBe(0);
    } finally {
      expect(await server.stop()).toBe(0);
    }
    // Released when the server stopped: the command now runs.
    expect(await exists(join(dataDir, LOCK_FILE))).toBe(false);
    const ran = await runCli(['ingest_file', file, '--user', user['x-user-id'], '--tenant', user['x-tenant-id']], { DATA_DIR: dataDir, LOG_LEVEL: 'silent' })
      .exit;
    expect([ran.code, ran.stderr]).toEqual([0, '']);
  });

  it('takes over a lock left by a process that is gone, and releases it on exit', async () => {
    const dataDir = await tempDataDir();
    const gone = runCli(['help'], {});
    await gone.exit;
    await mkdir(dataDir, { recursive: true });
    await writeFile(join(dataDir, LOCK_FILE), `${gone.proc.pid}\n`);
    const ran = await runCli(['ingest_file', await handbookFile(), '--user', 'alice'], { DATA_DIR: dataDir, LOG_LEVEL: 'silent' }).exit;
    expect([ran.code, ran.stderr]).toEqual([0, '']);
    expect((await readdir(dataDir)).filter((name) => name.startsWith(LOCK_FILE))).toEqual([]);
  });

  it('starts at once after the previous server was killed with -9, while that one may still be exiting', async () => {
    const dataDir = await tempDataDir();
    const killed = await spawnServer({ DATA_DIR: dataDir });
    killed.proc.kill('SIGKILL');
    const restarted = await spawnServer({ DATA_DIR: dataDir });
    try {
      expect((await fetch(new URL('/healthz', restarted.url))).status).toBe(200);
      expect(restarted.output()).not.toContain('in use by remgraph');
    } finally {
      expect(await restarted.stop()).toBe(0);
    }
  });

  it.runIf(canUnsharePids)('starts after a crash when its pid repeats (PID 1 of a fresh pid namespace, as in a container)', async () => {
    const dataDir = await tempDataDir();
    // --kill-child: the namespace's PID 1 (the server) dies with unshare, as a container's does.
    const inNamespace = ['unshare', '--pid', '--fork', '--kill-child=SIGKILL'];
    const crashed = await spawnServer({ DATA_DIR: dataDir }, 120_000, 'compiled', [], undefined, inNamespace);
    expect((await readFile(join(dataDir, LOCK_FILE), 'utf8')).split(' ')[0]).toBe('1');
    await crashed.stop('SIGKILL');
    // The lock still names pid 1, which the new server will be too.
    expect((await readFile(join(dataDir, LOCK_FILE), 'utf8')).split(' ')[0]).toBe('1');
    const restarted = await spawnServer({ DATA_DIR: dataDir }, 120_000, 'compiled', [], undefined, inNamespace);
    try {
      expect((await fetch(new URL('/healthz', restarted.url))).status).toBe(200);
    } finally {
      // unshare ignores SIGTERM while it waits for its child.
      await restarted.stop('SIGKILL');
    }
  });

  it('refuses a second opener in the same process too, until the first closes', async () => {
    const dataDir = await tempDataDir();
    const first = await openDatabase({ dataDir });
    try {
      await expect(openDatabase({ dataDir })).rejects.toThrow(`the database in ${dataDir} is in use by remgraph (pid ${process.pid}): stop it`);
    } finally {
      await first.close();
    }
    await (await openDatabase({ dataDir })).close();
  });
});

describe('ingest_file writes a file in one transaction', () => {
  it('a write that fails half-way (its vectors refused after its rows were written) leaves no row behind', async () => {
    const url = databaseUrl();
    const settings = url ? { url, dataDir: '' } : { dataDir: await tempDataDir() };
    const env: Record<string, string> = url ? { DATABASE_URL: url } : { DATA_DIR: settings.dataDir };
    const tenant = `t-${randomUUID()}`;
    const refuse = `refuse_${tenant.replaceAll('-', '_')}`;
    // The database itself refuses this tenant's vectors: they are stored after its resources and kv_store rows.
    const db = await openDatabase(settings);
    try {
      await applyMigrations(db);
      await db.prisma.$executeRawUnsafe(
        `CREATE FUNCTION ${refuse}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.tenant_id = '${tenant}' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`,
      );
      await db.prisma.$executeRawUnsafe(`CREATE TRIGGER ${refuse} BEFORE INSERT ON embeddings FOR EACH ROW EXECUTE FUNCTION ${refuse}()`);
    } finally {
      await db.close();
    }
    const count = async (table: string) => {
      const rows = await check.prisma.$queryRawUnsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1`, tenant);
      return rows[0]!.n;
    };
    let check!: Awaited<ReturnType<typeof openDatabase>>;
    try {
      const failed = await runCli(['ingest_file', await handbookFile(), '--user', 'alice', '--tenant', tenant], {
        ...env,
        LOG_LEVEL: 'silent',
        INGEST_CHUNK_CHARS: '200',
      }).exit;
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain('refused');
      expect(failed.stdout).toBe('');
      check = await openDatabase(settings);
      expect({ resources: await count('resources'), kv_store: await count('kv_store'), embeddings: await count('embeddings') }).toEqual({
        resources: 0,
        kv_store: 0,
        embeddings: 0,
      });
    } finally {
      check ??= await openDatabase(settings);
      await check.prisma.$executeRawUnsafe(`DROP TRIGGER IF EXISTS ${refuse} ON embeddings`);
      await check.prisma.$executeRawUnsafe(`DROP FUNCTION IF EXISTS ${refuse}()`);
      await check.close();
    }
  });
});
