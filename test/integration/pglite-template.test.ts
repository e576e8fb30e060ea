import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { applyMigrations, pendingMigrations } from '../../src/db/migrations.js';
import { tempDataDir } from '../support/server.js';
import { databaseUrl } from '../support/database-url.js';

const hasMarker = async (db: Awaited<ReturnType<typeof openDatabase>>) =>
  (await db.sql.query<{ found: boolean }>("SELECT to_regnamespace('template_marker') IS NOT NULL AS found"))[0]!.found;

describe.runIf(!databaseUrl())('a new PGlite data directory starts as a copy of the template', () => {
  it('copies it (the lock file taken first notwithstanding), applies the migrations a stale template lacks, and none from a current one', async () => {
    // A template built before the migrations existed: initdb only, plus a schema that tells copies apart (outside public, where Prisma wants nothing it did not make).
    const stale = join(await mkdtemp(join(tmpdir(), 'remgraph-template-')), 'data');
    const pglite = await PGlite.create({ dataDir: stale });
    await pglite.exec('CREATE SCHEMA template_marker');
    await pglite.close();

    const first = await tempDataDir();
    let db = await openDatabase({ dataDir: first, template: stale });
    try {
      expect(await hasMarker(db)).toBe(true);
      const missing = await pendingMigrations(db);
      expect(missing.length).toBeGreaterThan(0);
      expect(await applyMigrations(db)).toEqual(missing);
      expect(await pendingMigrations(db)).toEqual([]);
    } finally {
      await db.close();
    }

    // `first` is now what the build makes: a template with every migration.
    db = await openDatabase({ dataDir: await tempDataDir(), template: first });
    try {
      expect(await hasMarker(db)).toBe(true);
      expect(await applyMigrations(db)).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('leaves an existing database as it is', async () => {
    const stale = join(await mkdtemp(join(tmpdir(), 'remgraph-template-')), 'data');
    const pglite = await PGlite.create({ dataDir: stale });
    await pglite.exec('CREATE SCHEMA template_marker');
    await pglite.close();
    const dataDir = await tempDataDir();
    const fresh = await PGlite.create({ dataDir });
    await fresh.close();
    const db = await openDatabase({ dataDir, template: stale });
    try {
      expect(await hasMarker(db)).toBe(false);
    } finally {
      await db.close();
    }
  });
});
