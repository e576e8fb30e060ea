import pg from 'pg';
import { Prisma } from './generated/client.js';
import type { ProcessLiveness } from './process-liveness.js';

// Apart from process-liveness.ts so that an embedded database's server never loads node-postgres.

/** First key of the two-key advisory locks naming live processes ('remg'); the second is hashtext(process id). */
const LOCK_SPACE = 0x72656d67;
const RETAKE_MS = 1000;

/**
 * PostgreSQL: each process holds a session-level advisory lock named for it on a connection of its
 * own (not one of the pool's), which PostgreSQL lets go of when that connection ends, however the
 * process ended. A process whose lock nobody holds has stopped. A hash collision can only make a
 * stopped process look alive, which leaves its trees to the heartbeat's staleness, as before.
 */
export async function openPostgresLiveness(url: string, self: string, onLost: (error: Error) => void): Promise<ProcessLiveness & { close(): Promise<void> }> {
  const lock = new ProcessLock(url, self, onLost);
  await lock.take();
  return {
    gone: (processId) => Prisma.sql`NOT EXISTS (
      SELECT 1 FROM pg_locks l
      WHERE l.locktype = 'advisory' AND l.granted AND l.classid = ${Prisma.raw(String(LOCK_SPACE))} AND l.objid = hashtext(${processId})::oid AND l.objsubid = 2
        AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database()))`,
    close: () => lock.close(),
  };
}

/** The lock on its connection; when the connection is lost (other processes now see this one as stopped), it is taken again. */
class ProcessLock {
  private client: pg.Client | undefined;
  private retake: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly url: string,
    private readonly self: string,
    private readonly onLost: (error: Error) => void,
  ) {}

  async take(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url, application_name: 'remgraph process lock' });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('the connection holding this process’s liveness lock ended')));
    try {
      await client.connect();
      const { rows } = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS taken', [LOCK_SPACE, this.self]);
      if (!rows[0]?.taken) throw new Error(`the liveness lock of process ${this.self} is held by another connection`);
    } catch (error) {
      await client.end().catch(() => {});
      throw error;
    }
    if (this.closed) return void (await client.end().catch(() => {}));
    this.client = client;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retake);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }

  private lost(client: pg.Client, error: Error) {
    if (this.closed || this.client !== client) return;
    this.client = undefined;
    void client.end().catch(() => {});
    this.onLost(error);
    this.scheduleRetake();
  }

  private scheduleRetake() {
    this.retake = setTimeout(() => {
      this.take().catch((error: Error) => {
        this.onLost(error);
        if (!this.closed) this.scheduleRetake();
      });
    }, RETAKE_MS);
    this.retake.unref();
  }
}
