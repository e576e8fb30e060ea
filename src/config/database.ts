import { z } from 'zod';

/** PostgreSQL when DATABASE_URL is set, else the embedded PGlite database in DATA_DIR. */
export const databaseSettings = z
  .object({
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgresql:// connection string')
      .optional(),
    DATA_DIR: z.string().min(1).default('.data'),
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  })
  .transform((e) => ({ url: e.DATABASE_URL, dataDir: e.DATA_DIR, poolSize: e.DATABASE_POOL_SIZE }));
