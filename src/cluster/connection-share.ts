import { ConfigError } from '../config/config.js';

/**
 * How many more connections PostgreSQL would accept from this role to this database now: the
 * least of the server's room (max_connections less the superuser reserve and every connection
 * open), the database's CONNECTION LIMIT and the role's (a superuser is subject to neither).
 * Counted before the workers start, so their connections are not in it.
 */
export async function connectionRoom(url: string): Promise<number> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ server: number; database: number | null; role: number | null }>(ROOM);
    const room = Math.min(...Object.values(rows[0]!).filter((n): n is number => n !== null));
    // This connection closes before the workers open theirs.
    return room + 1;
  } finally {
    await client.end();
  }
}

const ROOM = `
  SELECT
    current_setting('max_connections')::int - current_setting('superuser_reserved_connections')::int
      - (SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend') AS server,
    (SELECT d.datconnlimit - (SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database())
       FROM pg_database d, pg_roles r
       WHERE d.datname = current_database() AND r.rolname = current_user AND d.datconnlimit >= 0 AND NOT r.rolsuper) AS database,
    (SELECT r.rolconnlimit - (SELECT count(*)::int FROM pg_stat_activity WHERE usename = current_user)
       FROM pg_roles r
       WHERE r.rolname = current_user AND r.rolconnlimit >= 0 AND NOT r.rolsuper) AS role`;

export interface PoolShare {
  /** Connections in each worker's pool. */
  poolSize: number;
  /** What to log about it: the default was lowered to fit, or the setting does not fit. */
  notice?: { level: 'info' | 'warn'; message: string };
}

/**
 * Each worker's pool, so that `workers` of them fit in `room` connections: each worker holds its
 * pool and one connection for its liveness lock. The default pool shrinks to fit; a pool size the
 * operator set is kept (they may know better, e.g. of connections that will close) with a warning,
 * since under load its requests would fail with "too many connections".
 */
export function sharePool(room: number, workers: number, configured: { poolSize: number; poolSizeSet: boolean }): PoolShare {
  const fits = Math.floor(room / workers) - 1;
  if (fits < 1)
    throw new ConfigError([
      `WORKERS: ${workers} workers need at least ${2 * workers} PostgreSQL connections (a pool connection and a liveness ` +
        `lock each), and the database accepts ${room} more: lower --workers (WORKERS), or raise PostgreSQL's ` +
        'max_connections (or the CONNECTION LIMIT of the database or role)',
    ]);
  if (configured.poolSize <= fits) return { poolSize: configured.poolSize };
  const pool = configured.poolSizeSet ? `DATABASE_POOL_SIZE=${configured.poolSize}` : `the default pool of ${configured.poolSize}`;
  const need = `${workers} workers with ${pool} hold up to ${workers * (configured.poolSize + 1)} PostgreSQL connections (the pool and a liveness lock each)`;
  if (configured.poolSizeSet)
    return {
      poolSize: configured.poolSize,
      notice: {
        level: 'warn',
        message: `${need}, and the database accepts ${room} more: under load, requests will fail with "too many connections"; set DATABASE_POOL_SIZE to ${fits} or less`,
      },
    };
  return { poolSize: fits, notice: { level: 'info', message: `${need}, and the database accepts ${room} more: each worker's pool holds ${fits}` } };
}
