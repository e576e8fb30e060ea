-- A turn's model request carries its session's history, so storing each body whole made a long
-- session's llm_calls grow with the square of its length (and each turn write a TOAST row). The
-- history is cut out of `request` and named here by the session's messages it was built from; it
-- is rebuilt, byte for byte, when the body is read (engine/request-history.ts).
ALTER TABLE "llm_calls" ADD COLUMN "request_history" JSONB;
