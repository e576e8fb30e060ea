import { z } from 'zod';

/** Routing messages to agents, and the background jobs (dreaming, experiments, re-embeds). */
export const workflowSettings = z
  .object({
    /** routing.yaml: ordered rules choosing an agent per message; validated at start-up. */
    ROUTING_FILE: z.string().min(1).optional(),
    /** Agent (structured output {agent, reason}) that picks the active agent of sessions with routing on. */
    ROUTING_CLASSIFIER_AGENT: z.string().min(1).default('router'),
    /** Kinds of background job this process runs (comma-separated: dream, experiment, reembed, import); empty = none (an API-only instance). */
    JOB_KINDS: z
      .string()
      .default('dream,experiment,reembed,import')
      .transform((v) =>
        v
          .split(',')
          .map((k) => k.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.enum(['dream', 'experiment', 'reembed', 'import']))),
    /** How often each process looks for queued jobs (dreams, experiments, re-embeds) besides being told of new ones. */
    JOB_POLL_MS: z.coerce.number().int().min(10).default(1000),
    /** A running job's lease; its process renews it, and a job whose lease ran out is taken over. */
    JOB_LEASE_MS: z.coerce.number().int().min(100).default(30_000),
    /** Jobs one process runs at once. */
    JOB_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(2),
    /** Attempts before a failing job is FAILED for good (retried with exponential backoff from 1 s). */
    JOB_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3),
    /** How often every user's new conversation is dreamed over (consolidated into memory); 0 = only on demand. */
    DREAM_INTERVAL_MS: z.coerce.number().int().min(0).default(0),
    /** Structured agent that turns a conversation into moments, entities and edges. */
    DREAM_AGENT: z.string().min(1).default('dreaming'),
  })
  .transform((e) => ({
    routingFile: e.ROUTING_FILE,
    classifierAgent: e.ROUTING_CLASSIFIER_AGENT,
    jobs: { kinds: e.JOB_KINDS, pollMs: e.JOB_POLL_MS, leaseMs: e.JOB_LEASE_MS, concurrency: e.JOB_CONCURRENCY, maxAttempts: e.JOB_MAX_ATTEMPTS },
    dreamIntervalMs: e.DREAM_INTERVAL_MS,
    dreamAgent: e.DREAM_AGENT,
  }));
