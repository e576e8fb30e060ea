import pg from 'pg';
import { databaseUrl } from './database-url.js';

/**
 * An empty PostgreSQL database of a test's own, next to its file's: for tests whose outcome depends
 * on what the whole database holds (a bulk import decides whether to rebuild the vector index by
 * counting every tenant's vectors). `drop` removes it once its clients are gone.
 */
export async function ownPostgresDatabase(prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: databaseUrl() });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const target = new URL(databaseUrl());
  target.pathname = `/${name}`;
  return {
    url: target.toString(),
    drop: async () => {
      // After the pool's connections are gone (ended, not killed: a killed one is an uncaught error).
      while ((await admin.query(`SELECT 1 FROM pg_stat_activity WHERE datname = $1`, [name])).rowCount) await new Promise((r) => setTimeout(r, 50));
      await admin.query(`DROP DATABASE IF EXISTS "${name}"`);
      await admin.end();
    },
  };
}
