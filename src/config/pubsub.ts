import { z } from 'zod';

export const pubsubSettings = z
  .object({
    /** Redis for pubsub between server instances; unset means in-process pubsub (one instance). */
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
      .optional(),
  })
  .transform((e) => ({ redisUrl: e.REDIS_URL }));
