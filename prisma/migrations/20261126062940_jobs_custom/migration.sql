-- One queued or running job per dedupe key (e.g. one dream per user at a time): enqueueing again
-- while one waits or runs returns that one instead of adding another.
CREATE UNIQUE INDEX "jobs_one_open_per_dedupe_key_custom" ON "jobs" ("dedupe_key")
  WHERE "dedupe_key" IS NOT NULL AND "status" IN ('QUEUED', 'RUNNING');
