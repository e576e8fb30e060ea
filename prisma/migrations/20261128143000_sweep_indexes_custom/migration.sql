-- Two statements of the maintenance sweep (every SWEEP_INTERVAL_MS) read every turn ever stored, as
-- no index reached their rows: the look for orphaned trees (held roots, tree-lease.ts) and the drop
-- of ephemeral turns kept long enough (ephemeral-turns.ts). Partial indexes holding only those rows
-- (Prisma's schema cannot express them, hence `_custom`): held roots are the trees running now, and
-- ephemeral roots live for EPHEMERAL_TURN_RETENTION_MS.
CREATE INDEX "turns_held_roots_custom" ON "turns" ("heartbeat_at") WHERE "parent_id" IS NULL AND "runner" IS NOT NULL;
CREATE INDEX "turns_ephemeral_roots_custom" ON "turns" ("finished_at") WHERE "ephemeral" AND "parent_id" IS NULL;
