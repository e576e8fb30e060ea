import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { startApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';

export type TestServer = App;

/**
 * Starts the real server on a random port against this run's backend: the fresh PostgreSQL
 * database on the postgres backend, or a PGlite database (in memory unless `dataDir` is given).
 */
export async function startTestServer(env: Record<string, string | undefined> = {}): Promise<TestServer> {
  const databaseUrl = inject('databaseUrl');
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SHUTDOWN_GRACE_MS: '1000',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: 'memory://' }),
    ...env,
  });
  return startApp(config, createLogger(config.log.level));
}

export async function tempDataDir(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), 'remgraph-test-')), 'data');
}

export const backend = (): 'pglite' | 'postgres' => (inject('databaseUrl') ? 'postgres' : 'pglite');
