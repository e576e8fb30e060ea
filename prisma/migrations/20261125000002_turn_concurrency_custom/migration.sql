-- One active (running or paused) top-level turn per session, enforced by the database so that two
-- processes cannot both start a turn in the same session. Child turns (parent_id set) run inside
-- their parent's turn and are not counted.
CREATE UNIQUE INDEX "turns_one_active_per_session_custom" ON "turns" ("session_id")
  WHERE "parent_id" IS NULL AND "status" IN ('RUNNING', 'AWAITING_APPROVAL');
