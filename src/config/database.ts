import { z } from 'zod';

/** PostgreSQL connections per process, unless DATABASE_POOL_SIZE says otherwise (or several workers must share fewer). */
export const DEFAULT_POOL_SIZE = 10;

/** PostgreSQL when DATABASE_URL is set, else the embedded PGlite database in DATA_DIR. */
export const databaseSettings = z
  .object({
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// connection string')
      .optional(),
    DATA_DIR: z.string().min(1).default('.data'),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).optional(),
    /**
     * How long turn events wait in memory before a round writes them, when the writer is idle; a
     * turn's end or pause is written at once. Under load the writer waits for its running round and
     * then longer, three times the last round's time, up to 250 ms (or this when longer), so a busy
     * process writes bigger, fewer rounds. 25 ms on PostgreSQL, where other server processes may
     * follow a turn through its stored events; 250 ms on PGlite, where only this process reads them
     * while the turn runs: in a burst of 100 turns, writing each turn's events ten times less often
     * took 4-17 % off the server's CPU per turn (bench/side-by-side.ts).
     */
    EVENT_FLUSH_MS: z.coerce.number().int().min(1).max(5000).optional(),
  })
  .transform((e) => ({
    url: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    poolSize: e.DATABASE_POOL_SIZE ?? DEFAULT_POOL_SIZE,
    /** DATABASE_POOL_SIZE was given: `serve --workers` keeps it even where it does not fit (with a warning). */
    poolSizeSet: e.DATABASE_POOL_SIZE !== undefined,
    eventFlushMs: e.EVENT_FLUSH_MS ?? (e.DATABASE_URL ? 25 : 250),
  }));
