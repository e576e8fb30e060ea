-- A turn reads its session's newest messages of the types a model's context holds (history.ts).
-- With the (session_id, seq) index alone, the planner read every message of a long session and
-- sorted them (the types and the non-null content are filters it cannot push into that index), so
-- a turn at message 10,000 read 10,000 rows for the 500 it keeps. This partial index holds only
-- context rows, in position order: the read walks it backwards and stops at its limit. Its
-- predicate is the read's own (stored-context.ts), which is how the planner knows it may use it.
CREATE INDEX "messages_context_in_session_custom" ON "messages" ("session_id", "seq")
  WHERE "content" IS NOT NULL AND "type" IN ('user', 'assistant', 'system', 'memory', 'observation');
