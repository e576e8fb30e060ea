import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { caller } from '../support/client.js';
import { runCli } from '../support/process.js';
import { startTestServer, tempDataDir } from '../support/server.js';
import { RemQueryDocument } from '../generated/graphql.js';

describe('remgraph ingest_file', () => {
  it('ingests a file as the given user, searchable through the API; the same file again is unchanged; bad input exits non-zero with a message', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'remgraph-ingest-'));
    const file = join(dir, 'travel-policy.md');
    await writeFile(file, '# Travel policy\n\nTrains are booked second class.\n\n## Flights\n\nFlights over 500 euros need approval from Sarah Chen.\n');
    const databaseUrl = inject('databaseUrl');
    const database: Record<string, string> = databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: await tempDataDir() };
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
      const hits = (await caller(server.url, { 'x-user-id': user, 'x-tenant-id': tenant }).data(RemQueryDocument, { query: 'SEARCH "flights need approval from Sarah Chen" FROM resources LIMIT 1' })).remQuery.hits;
      expect(hits.map((h) => h.key)).toEqual(['travel-policy-chunk-2']);
    } finally {
      await server.stop();
    }
  });
});
