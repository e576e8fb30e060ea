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
  })
  .transform((e) => ({
    url: e.DATABASE_URL,
    dataDir: e.DATA_DIR,
    poolSize: e.DATABASE_POOL_SIZE ?? DEFAULT_POOL_SIZE,
    /** DATABASE_POOL_SIZE was given: `serve --workers` keeps it even where it does not fit (with a warning). */
    poolSizeSet: e.DATABASE_POOL_SIZE !== undefined,
  }));
