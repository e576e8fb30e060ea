import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { databaseSettings } from './database.js';
import { pubsubSettings } from './pubsub.js';

const workerVariables = z.object({
  WORKERS: z
    .string()
    .regex(/^\d+$/, 'must be a whole number of server processes, e.g. 2')
    .transform(Number)
    .pipe(z.number().min(1, 'must be at least 1').max(256, 'must be at most 256'))
    .optional()
    .meta({
      description:
        'server processes sharing the port (`serve --workers N` overrides it); more than one needs PostgreSQL and Redis (see [Operating](operating.md)); each has its own `DATABASE_POOL_SIZE` pool',
      shownType: 'integer, 1–256',
      shownDefault: 'one per core with `DATABASE_URL` and `REDIS_URL`, else `1`',
    }),
  DATABASE_URL: databaseSettings.in.shape.DATABASE_URL,
  REDIS_URL: pubsubSettings.in.shape.REDIS_URL,
});

/**
 * How many server processes share the port. More than one needs what lets processes share work:
 * PostgreSQL (PGlite's data directory has one owner) and Redis (a request may land on any worker,
 * so what one worker publishes must reach the others). By default, one per core when both are set.
 */
export const workerSettings = workerVariables
  .superRefine((e, ctx) => {
    if (e.WORKERS === undefined || e.WORKERS === 1) return;
    const problem = (message: string) => ctx.addIssue({ code: 'custom', path: ['WORKERS'], message });
    if (!e.DATABASE_URL) {
      problem(
        `${e.WORKERS} workers need DATABASE_URL (PostgreSQL): the embedded PGlite database is one PostgreSQL ` +
          'running inside the process that opened DATA_DIR, and no other process can open that directory while it ' +
          'runs, so on PGlite the server is one process (1 worker)',
      );
    } else if (!e.REDIS_URL) {
      problem(
        `${e.WORKERS} workers need REDIS_URL: workers share one port, so a client's requests land on any of them, and ` +
          'without Redis what one worker publishes (turn cancellations, approval, session and agent changes) never ' +
          'reaches the others (turn events would, late, through the database log only)',
      );
    }
  })
  .transform((e) => ({ count: e.WORKERS ?? (e.DATABASE_URL && e.REDIS_URL ? availableParallelism() : 1) }));
