import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SpanExporter } from '@opentelemetry/sdk-trace';
import { startApp, type App } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config/config.js';
import type { PrismaClient } from '../../src/db/generated/client.js';
import { openDatabase, type Database } from '../../src/db/database.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { databaseUrl } from './database-url.js';

export type TestServer = App;

/**
 * Starts the real server on a random port against this run's backend: the fresh PostgreSQL
 * database on the postgres backend, or a PGlite database (in memory unless `dataDir` is given).
 */
export async function startTestServer(env: Record<string, string | undefined> = {}, options: TestServerOptions = {}): Promise<TestServer> {
  const config = testConfig(env);
  const logger = options.logger ?? createLogger(config.log.level);
  if (!options.observe && !options.beforeStatement) return startApp(config, logger, undefined, options.spanExporter);
  const db = await openDatabase(config.database);
  const observe = options.observe ?? (() => {});
  const beforeStatement = options.beforeStatement;
  const extended = db.prisma.$extends({
    query: {
      async $allOperations({ model, operation, args, query }) {
        observe({ model, operation, sql: rawSql(args) });
        return query(args);
      },
    },
  }) as unknown as PrismaClient;
  // A transaction's BEGIN and COMMIT are round trips no operation above reports.
  const prisma = new Proxy(extended, {
    get: (target, key) =>
      key === '$transaction'
        ? (...args: Parameters<PrismaClient['$transaction']>) => {
            observe({ operation: '$transaction' });
            return target.$transaction(...args);
          }
        : Reflect.get(target, key),
  });
  const sql: Database['sql'] = {
    query: async (text, params) => {
      observe({ operation: 'sql', sql: text });
      await beforeStatement?.(text, params ?? []);
      return db.sql.query(text, params);
    },
  };
  return startApp(config, logger, Promise.resolve({ ...db, prisma, sql }), options.spanExporter);
}

/** A test server's settings against this run's backend, with `env` on top. */
export function testConfig(env: Record<string, string | undefined> = {}): Config {
  const url = databaseUrl();
  return loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    SHUTDOWN_GRACE_MS: '1000',
    // On PostgreSQL a test file's servers share its database: only the suites about jobs run them
    // (each its own kind), so that no server takes another's jobs to its own fake model.
    JOB_KINDS: '',
    ...(url ? { DATABASE_URL: url } : { DATA_DIR: 'memory://' }),
    ...env,
  });
}

export interface TestServerOptions {
  /** Receives the server's logs (default: a logger at TEST_LOG_LEVEL, silent unless set). */
  logger?: Logger;
  /** Sees every database operation the server makes, through Prisma or straight to the driver. */
  observe?: QueryObserver;
  /** Runs before each direct statement (`sql`) reaches the database, with its text and parameters. */
  beforeStatement?: (text: string, params: readonly unknown[]) => Promise<void>;
  /** Receives the server's OpenTelemetry spans (tracing is off otherwise). */
  spanExporter?: SpanExporter;
}

/**
 * Told about every database operation of a test server: a model operation, raw SQL through Prisma,
 * a direct statement (`sql`), or the start of a transaction through Prisma (`$transaction`, whose
 * statements are reported on their own).
 */
type QueryObserver = (query: { model?: string; operation: string; sql?: string }) => void;

function rawSql(args: unknown): string | undefined {
  if (Array.isArray(args) && Array.isArray(args[0])) return (args[0] as string[]).join('?');
  // $queryRawUnsafe / $executeRawUnsafe: the statement, then its parameters.
  if (Array.isArray(args) && typeof args[0] === 'string') return args[0];
  const sql = (args as { strings?: string[] } | undefined)?.strings;
  return sql ? sql.join('?') : undefined;
}

export async function tempDataDir(): Promise<string> {
  return join(await mkdtemp(join(tmpdir(), 'remgraph-test-')), 'data');
}

export const backend = (): 'pglite' | 'postgres' => (databaseUrl() ? 'postgres' : 'pglite');
