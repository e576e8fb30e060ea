import { z } from 'zod';

/** Routing messages to agents, and the background jobs (dreaming, experiments, re-embeds). */
export const workflowSettings = z
  .object({
    ROUTING_FILE: z
      .string()
      .min(1)
      .optional()
      .describe(
        '`routing.yaml` with rules choosing an agent per message (see [Agents](agents.md#routing)); validated at start-up, an invalid file stops the server with line and column',
      ),
    ROUTING_CLASSIFIER_AGENT: z
      .string()
      .min(1)
      .default('router')
      .describe('structured agent (`{agent, reason}`) that picks the active agent of sessions created with `routing: true`'),
    JOB_KINDS: z
      .string()
      .default('dream,experiment,reembed,import,agent_process,classify,draft')
      .transform((v) =>
        v
          .split(',')
          .map((k) => k.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.enum(['dream', 'experiment', 'reembed', 'import', 'agent_process', 'classify', 'draft'])))
      .meta({
        description:
          'background jobs this process runs, comma-separated (`dream`, `experiment`, `reembed`, `import`, and inbound email’s `agent_process`, `classify`, `draft`); empty makes an API-only instance',
        shownType: 'list',
      }),
    JOB_POLL_MS: z.coerce
      .number()
      .int()
      .min(10)
      .default(1000)
      .describe('how often a process looks for queued jobs (it also starts at once on jobs queued through itself)'),
    JOB_LEASE_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(30_000)
      .describe('a running job’s lease, renewed by its process; a job whose lease ran out (its process died) is taken over'),
    JOB_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(2).describe('jobs one process runs at once'),
    JOB_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(20).default(3).describe('attempts before a failing job is FAILED (retried after 1 s, 2 s, …)'),
    DREAM_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(0)
      .describe('how often every user’s new conversation is dreamed over; `0` = only on demand (`dream`)'),
    DREAM_AGENT: z.string().min(1).default('dreaming').describe('structured agent that turns a conversation into moments, entities and edges'),
    COMPACTION_KEEP_MESSAGES: z.coerce
      .number()
      .int()
      .min(0)
      .default(20)
      .describe(
        'after dreaming over a session, its answers older than its newest this many user and assistant messages reach the model as `[Earlier: … → REM LOOKUP <moment key>]` breadcrumbs to the moment covering them (one is written where none does), recorded as a `memory` message; the stored answers stay as they were (see [REM memory](rem.md#compaction)); `0` = never',
      ),
  })
  .transform((e) => ({
    routingFile: e.ROUTING_FILE,
    classifierAgent: e.ROUTING_CLASSIFIER_AGENT,
    jobs: { kinds: e.JOB_KINDS, pollMs: e.JOB_POLL_MS, leaseMs: e.JOB_LEASE_MS, concurrency: e.JOB_CONCURRENCY, maxAttempts: e.JOB_MAX_ATTEMPTS },
    dreamIntervalMs: e.DREAM_INTERVAL_MS,
    dreamAgent: e.DREAM_AGENT,
    compactKeepMessages: e.COMPACTION_KEEP_MESSAGES,
  }));
