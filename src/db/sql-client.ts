import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import { copyFromStdin } from './copy-from-stdin.js';

/**
 * One parameterised statement straight to the driver: node-postgres's pool, or the embedded
 * database's client. Prisma's client costs about 200 µs of this process's CPU per statement on top
 * of the driver's (raw SQL included), which on the hottest reads (REM queries, one per request) is
 * a quarter of a request's work. Statements here run outside Prisma's transactions, so they are
 * for single reads and writes that need none. Rows come back as the driver parses them: text,
 * numbers, booleans, arrays, parsed JSON and Dates (timestamps), bigint columns as the driver
 * gives them (cast them in SQL when a number is wanted).
 */
export interface SqlClient {
  query<T>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /**
   * On PostgreSQL only (PGlite's client runs in a worker thread and takes no COPY stream): `script`,
   * several statements as one simple query with one `COPY … FROM STDIN` among them, sent with `rows`
   * (copy-from-stdin.ts) on one pooled connection. A whole transaction (`BEGIN; …; COMMIT`) costs
   * two round trips this way, where one statement at a time costs one each; should it fail, the
   * connection rolls back whatever it left open.
   */
  copyIn?(script: string, rows: readonly string[]): Promise<void>;
}

/** On PostgreSQL: through the pool Prisma also uses, naming recurring statements as Prisma's adapter does. */
export function postgresSqlClient(pool: pg.Pool, statementName: (query: { sql: string }) => string | undefined): SqlClient {
  return {
    async query<T>(text: string, params: readonly unknown[] = []) {
      const name = statementName({ sql: text });
      const result = await pool.query({ text, values: params as unknown[], ...(name ? { name } : {}) });
      return result.rows as T[];
    },
    async copyIn(script: string, rows: readonly string[]) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await copyFromStdin(client, script, rows);
      } catch (error) {
        // A connection that cannot even roll back is not handed back to the pool.
        await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
        throw error;
      } finally {
        client.release(broken);
      }
    },
  };
}

/** On the embedded database: its client queues statements behind any open transaction, as Prisma's do. */
export function pgliteSqlClient(client: Pick<PGlite, 'query'>): SqlClient {
  return {
    async query<T>(text: string, params: readonly unknown[] = []) {
      return (await client.query<T>(text, params as unknown[])).rows;
    },
  };
}
