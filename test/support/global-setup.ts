import type { TestProject } from 'vitest/node';
import pg from 'pg';
import { openDatabase } from '../../src/db/database.js';
import { applyMigrations } from '../../src/db/migrations.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Connection string of this run's fresh PostgreSQL database ('' on the PGlite backend). */
    databaseUrl: string;
  }
}

/**
 * On the postgres backend: creates a fresh database for this run, applies the migrations once,
 * and drops it afterwards. PGlite suites need nothing: each server opens its own database.
 */
export default async function setup(project: TestProject) {
  if (project.config.env.TEST_BACKEND !== 'postgres') {
    project.provide('databaseUrl', '');
    return;
  }
  // vitest.config.ts adds the postgres project only when TEST_POSTGRES_URL is set.
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
  project.provide('databaseUrl', url.toString());

  return async () => {
    const cleanup = new pg.Client({ connectionString: adminUrl });
    await cleanup.connect();
    await cleanup.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await cleanup.end();
  };
}
