import { z } from 'zod';

/** PostgreSQL connections per process, unless DATABASE_POOL_SIZE says otherwise (or several workers must share fewer). */
export const DEFAULT_POOL_SIZE = 10;

/** PostgreSQL when DATABASE_URL is set, else the embedded PGlite database in DATA_DIR. */
export const databaseSettings = z
  .object({
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// connection string')
      .optional()
      .describe('PostgreSQL connection string (with the `vector` and `pg_trgm` extensions available); unset means the embedded PGlite database'),
    DATA_DIR: z
      .string()
      .min(1)
      .default('.data')
      .describe(
        'PGlite data directory, created with mode 0700 and used by one process at a time (`memory://` keeps nothing: a private temporary directory, removed at shutdown)',
      ),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).optional().meta({
      description:
        'PostgreSQL connections per process, opened as needed and then kept open (plus one that holds its liveness lock); with `--workers`, the default shrinks so that every worker fits in what PostgreSQL accepts',
      shownDefault: '`10` (less with many workers)',
    }),
    EVENT_FLUSH_MS: z.coerce.number().int().min(1).max(5000).optional().meta({
      description:
        'how long turn events wait in memory before a round writes them while the writer is idle (a turn’s end or pause is written at once); under load the writer waits for its running round and then three times that round’s time, up to 250 ms (or this, when longer), so a busy process writes fewer, bigger rounds; on PostgreSQL other server processes may follow a turn through its stored events, on PGlite only this process reads them while the turn runs',
      shownDefault: '`25` on PostgreSQL, `250` on PGlite',
    }),
  })
  .transform((e) => ({
    url: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    poolSize: e.DATABASE_POOL_SIZE ?? DEFAULT_POOL_SIZE,
    /** DATABASE_POOL_SIZE was given: `serve --workers` keeps it even where it does not fit (with a warning). */
    poolSizeSet: e.DATABASE_POOL_SIZE !== undefined,
    eventFlushMs: e.EVENT_FLUSH_MS ?? (e.DATABASE_URL ? 25 : 250),
  }));
