-- The maintenance sweep deletes ended ephemeral turns; only they are in this index, so the sweep
-- never scans the turns table (Prisma cannot express a partial index, hence _custom).
CREATE INDEX "turns_ephemeral_finished_custom" ON "turns" ("finished_at") WHERE "ephemeral";
