-- Two statements on every turn's path read rows that no index reached, so their cost grew with the
-- tables: the quota's count of the caller's running top-level turns scanned every turn, and the
-- recent moments of the session put in the context scanned the caller's moments. Partial indexes
-- (Prisma's schema cannot express them, hence `_custom`): the first holds only running turns, so it
-- stays tiny and costs a turn's start and end one small index entry.
CREATE INDEX "turns_running_by_caller_custom" ON "turns" ("tenant_id", "user_id") WHERE "parent_id" IS NULL AND "status" = 'RUNNING';
CREATE INDEX "moments_recent_in_session_custom" ON "moments" ("session_id", "created_at" DESC, "id" DESC) WHERE "session_id" IS NOT NULL;
