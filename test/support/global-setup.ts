import type { TestProject } from 'vitest/node';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.js';
import { applyMigrations } from '../../src/db/migrations.js';
import { ensureBuilt } from '../../scripts/build.mjs';

declare module 'vitest' {
  export interface ProvidedContext {
    /**
     * This run's migrated PostgreSQL database, which every test file's own database is a copy of
     * (file-database.ts); '' on the PGlite backend.
     */
    databaseTemplateUrl: string;
  }
}

/**
 * On the postgres backend: creates a fresh database for this run and applies the migrations once;
 * each test file then runs on a copy of it (file-database.ts), so files running side by side never
 * see each other's rows or statistics. Drops them all afterwards. PGlite suites need nothing: each
 * server opens its own database.
 */
type Teardown = () => Promise<void>;

export default async function setup(project: TestProject): Promise<Teardown | undefined> {
  // Tests run `remgraph` compiled (bin/remgraph.js), which rebuilds a stale dist/ first and says so
  // on stderr: built once here, before any of them, for every project.
  const state = globalThis as { remgraphBuilt?: Promise<unknown>; remgraphTemplate?: Promise<{ url: string; drop: Teardown }> };
  state.remgraphBuilt ??= ensureBuilt(['server', 'database']);
  await state.remgraphBuilt;
  if (project.config.env.TEST_BACKEND !== 'postgres') {
    project.provide('databaseTemplateUrl', '');
    return undefined;
  }
  // One template for the run, whichever PostgreSQL project (isolated or not) asks first; dropped once.
  state.remgraphTemplate ??= migratedTemplate();
  const template = await state.remgraphTemplate;
  project.provide('databaseTemplateUrl', template.url);
  return template.drop;
}

async function migratedTemplate(): Promise<{ url: string; drop: Teardown }> {
  // vitest.config.ts adds the postgres projects only when TEST_POSTGRES_URL is set.
  const adminUrl = process.env.TEST_POSTGRES_URL!;
  const name = `remgraph_test_${Date.now()}_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(
      `The postgres test backend cannot reach TEST_POSTGRES_URL=${adminUrl} (unset it, ` +
        `or set REMGRAPH_TEST_BACKENDS=pglite, to skip it): ${(error as Error).message}`,
      { cause: error },
    );
  }
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ url: url.toString(), dataDir: '' });
  try {
    await applyMigrations(db);
  } finally {
    await db.close();
  }
  let dropped: Promise<void> | undefined;
  const drop = async () => {
    const cleanup = new pg.Client({ connectionString: adminUrl });
    await cleanup.connect();
    const copies = await cleanup.query<{ datname: string }>(`SELECT datname FROM pg_database WHERE datname LIKE $1`, [`${name}\\_%`]);
    for (const { datname } of copies.rows) await cleanup.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
    await cleanup.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await cleanup.end();
  };
  return { url: url.toString(), drop: () => (dropped ??= drop()) };
}
