import { z } from 'zod';

export const pubsubSettings = z
  .object({
    REDIS_URL: z
      .string()
      .regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
      .optional()
      .describe('Redis for pubsub between instances (turn streams, cancellation, approval and agent changes); unset means in-process'),
  })
  .transform((e) => ({ redisUrl: e.REDIS_URL }));
