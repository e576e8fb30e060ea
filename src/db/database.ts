import type { PGlite } from '@electric-sql/pglite';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { PrismaPGlite } from 'pglite-prisma-adapter';
import type { Config } from '../config/config.js';
import { DEFAULT_POOL_SIZE } from '../config/database.js';
import { lockDataDir, type DataDirLock } from './data-dir-lock.js';
import type { PrismaClient } from './generated/client.js';
import { spawnDatabase, type SpawnedDatabase } from './pglite-spawn.js';
import type { PGliteThread, Watchdog } from './pglite-thread.js';
import { flushGinPendingLists } from './gin-pending-lists.js';
import { runScriptsWhole } from './script-runner.js';
import type { ProcessLiveness } from './process-liveness.js';
import { pgliteSqlClient, postgresSqlClient, type SqlClient } from './sql-client.js';
import { statementNames } from './statement-names.js';
import { warmUp } from './warm-up.js';

export type Backend = 'pglite' | 'postgres';

export interface Database {
  prisma: PrismaClient;
  /** Single statements without Prisma's client in between, for the hottest reads (see sql-client.ts). */
  sql: SqlClient;
  backend: Backend;
  /**
   * Runs `work` with an adapter for the schema engine (migrations), holding a lock that keeps
   * concurrent processes from migrating the same database at once.
   */
  withMigrationAdapter<T>(work: (adapter: SqlMigrationAwareDriverAdapterFactory) => Promise<T>): Promise<T>;
  /**
   * For a database that cannot cancel a statement itself (PGlite; PostgreSQL has statement_timeout):
   * call it while holding the database (inside a transaction). When `ms` pass before `disarm()`, the
   * work in flight fails with `error()` and the database is stopped and reopened, data intact.
   */
  interruptAfter?(ms: number, error: () => Error): Watchdog;
  /**
   * Housekeeping a database without autovacuum (PGlite) needs, run by the maintenance sweep. Every
   * turn's start prunes its caller's quota starts older than a minute, finding the first to keep by
   * reading the caller's index entries from the oldest: unvacuumed, that read steps over every start
   * ever pruned (57 index pages per start after 20,000 turns of one user), and each turn costs more
   * than the one before. The table holds about a minute of starts, so vacuuming it is quick. The
   * same holds for the indexes on a turn's or an approval's status: a turn's start reads its caller's
   * running turns, and the sweep the paused turns and the pending approvals, and every turn or
   * approval ever RUNNING or PENDING left an entry there that only a vacuum removes (VACUUM leaves
   * them be while they are on under 2% of the table's pages: bounded, and much cheaper than cleaning
   * every index each time). It also flushes the GIN indexes' pending lists, which every FUZZY call
   * scans until then.
   */
  tidy?(): Promise<void>;
  /**
   * Marks the process `processId` alive until the database is closed, and tells whether others are
   * (see process-liveness.ts). `onLost` hears of this process looking stopped to the others for a while.
   */
  liveness(processId: string, onLost: (error: Error) => void): Promise<ProcessLiveness>;
  /** With openDatabase's `warmUp`: Prisma's client started while the database opened (warm-up.ts), resolving with how long it took. */
  warmedUp?: Promise<number>;
  close(): Promise<void>;
}

/** DATABASE_URL (PostgreSQL; PGlite when absent), DATA_DIR (or `memory://`), DATABASE_POOL_SIZE (config/database.ts). */
export type DatabaseSettings = Pick<Config['database'], 'dataDir'> &
  Partial<Pick<Config['database'], 'url' | 'poolSize'>> & {
    /** The database a new PGlite data directory starts as a copy of (pglite.ts; the built one when absent). */
    template?: string;
  };

interface OpenOptions {
  /** Start Prisma's client while the database opens (a server's start-up: see warm-up.ts and `Database.warmedUp`). */
  warmUp?: boolean;
}

/** The only place that knows which backend is in use. */
export async function openDatabase(settings: DatabaseSettings, options: OpenOptions = {}): Promise<Database> {
  return settings.url
    ? openPostgres(settings.url, settings.poolSize ?? DEFAULT_POOL_SIZE, options)
    : openEmbedded(settings.dataDir, settings.template, options);
}

/** Starts Prisma's client on `db` when asked to, without making a failure of it unhandled (the caller awaits it). */
function warming(db: Database, options: OpenOptions): Database {
  if (!options.warmUp) return db;
  const warmedUp = warmUp(db);
  warmedUp.catch(() => {});
  return { ...db, warmedUp };
}

async function openEmbedded(dataDir: string, template: string | undefined, options: OpenOptions): Promise<Database> {
  // A memory:// database is a private directory of its own.
  const lock = dataDir.startsWith('memory://') ? undefined : await lockDataDir(dataDir);
  // The worker thread starts first: PostgreSQL boots in it while this thread loads PGlite's client
  // side and Prisma's client, and (asked to) starts the latter (its statements wait in the thread's
  // client until the database is open).
  let spawned: SpawnedDatabase;
  try {
    spawned = await spawnDatabase(dataDir, template);
  } catch (error) {
    lock?.release();
    throw error;
  }
  let client: PGliteThread & PGlite;
  let db: Database;
  try {
    const [{ PGliteThread }, { PrismaPGlite }, { PrismaClient }] = await Promise.all([
      import('./pglite-thread.js'),
      import('pglite-prisma-adapter'),
      import('./generated/client.js'),
    ]);
    // The adapter needs only PGlite's query interface, which the thread's client has.
    client = PGliteThread.adopt(spawned) as PGliteThread & PGlite;
    db = warming(embedded(client, PrismaClient, PrismaPGlite, lock), options);
  } catch (error) {
    await spawned.opening.worker.terminate();
    lock?.release();
    throw error;
  }
  try {
    await client.opened();
    return db;
  } catch (error) {
    await client.close();
    lock?.release();
    throw error;
  }
}

function embedded(client: PGliteThread & PGlite, Prisma: typeof PrismaClient, Adapter: typeof PrismaPGlite, lock: DataDirLock | undefined): Database {
  const prisma = new Prisma({ adapter: new Adapter(client) });
  const sql = pgliteSqlClient(client);
  return {
    prisma,
    sql,
    backend: 'pglite',
    // One process owns a PGlite directory (the lock), so there is nobody to race with.
    withMigrationAdapter: (work) => work(runScriptsWhole(new Adapter(client), (script) => client.exec(script))),
    interruptAfter: (ms, error) => client.interruptAfter(ms, error),
    tidy: async () => {
      await client.query('VACUUM quota_starts');
      await client.query('VACUUM turns, approvals');
      await flushGinPendingLists(sql);
    },
    liveness: async (processId) => (await import('./process-liveness.js')).embeddedLiveness(processId),
    async close() {
      try {
        await prisma.$disconnect();
        await client.close();
      } finally {
        lock?.release();
      }
    },
  };
}

const MIGRATION_LOCK_KEY = 7_241_902_311;

async function openPostgres(url: string, poolSize: number, options: OpenOptions): Promise<Database> {
  // Loaded here: an embedded database never needs them.
  const [{ default: pg }, { PrismaPg }, { PrismaClient }, { openPostgresLiveness }] = await Promise.all([
    import('pg'),
    import('@prisma/adapter-pg'),
    import('./generated/client.js'),
    import('./postgres-liveness.js'),
  ]);
  // A connection the pool opened stays open (min = max; pg-pool would close it after 10 s idle): a
  // new one starts a backend, prepares every statement again and plans each of them afresh for
  // its first executions, which made a burst of turns after a quiet spell cost PostgreSQL twice the
  // CPU per turn of the same burst on connections already warm.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, min: poolSize });
  // One naming for both: a name stands for one text on every connection.
  const names = statementNames();
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, { statementNameGenerator: names }) });
  let lock: Awaited<ReturnType<typeof openPostgresLiveness>> | undefined;
  // Prisma's client starts (asked to) while the pool connects.
  const db = warming(
    {
      prisma,
      sql: postgresSqlClient(pool, names),
      backend: 'postgres',
      async withMigrationAdapter(work) {
        const lock = await pool.connect();
        // The schema engine takes and releases its own advisory lock, possibly on different pooled
        // connections; a private one-connection pool, ended afterwards, never leaves it held.
        const enginePool = new pg.Pool({ connectionString: url, max: 1 });
        try {
          await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
          return await work(runScriptsWhole(new PrismaPg(enginePool), (script) => enginePool.query(script)));
        } finally {
          await enginePool.end().catch(() => {});
          await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
          lock.release();
        }
      },
      async liveness(processId, onLost) {
        await lock?.close();
        lock = await openPostgresLiveness(url, processId, onLost);
        return lock;
      },
      async close() {
        await prisma.$disconnect();
        await pool.end();
        await lock?.close();
      },
    },
    options,
  );
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await db.warmedUp?.catch(() => {});
    await pool.end().catch(() => {});
    throw error;
  }
  return db;
}
