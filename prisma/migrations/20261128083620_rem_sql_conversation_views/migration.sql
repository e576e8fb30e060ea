-- REM SQL mode reads the caller's own conversation too (p8's checks: SQL over messages, tokens,
-- latency): scoped views over messages, turns, llm_calls and agents, with the same scope as the
-- REM views (rem_sql_scope). Enums are text, so that `message_type IN ('tool_call', ...)` reads as
-- in p8. Run state (checkpoints, runners, heartbeats) stays out: it is the server's, not the caller's.

CREATE VIEW "rem_sql_custom"."messages" WITH (security_barrier) AS
  SELECT "id", "session_id", "seq", "type"::text AS "message_type", "content", "tool_calls", "tool_call_id", "tool_name",
         "turn_id", "input_tokens", "output_tokens", "latency_ms", "model", "agent_name", "trace_id", "span_id",
         "metadata", "is_eval", "tenant_id", "user_id", "created_at"
  FROM "public"."messages"
  WHERE "tenant_id" = current_setting('remgraph.tenant_id')
    AND ("user_id" = current_setting('remgraph.user_id') OR "user_id" IS NULL);

CREATE VIEW "rem_sql_custom"."turns" WITH (security_barrier) AS
  SELECT "id", "session_id", "parent_id", "root_id", "agent", "agent_version", "routed_by"::text AS "routed_by",
         "routing_rule", "model", "status"::text AS "status", "depth", "agent_path", "iterations", "final_message_id",
         "error", "tool_calls_log", "usage", "is_eval", "client_id", "ephemeral", "tenant_id", "user_id",
         "started_at", "finished_at", "trace_id", "span_id"
  FROM "public"."turns"
  WHERE "tenant_id" = current_setting('remgraph.tenant_id')
    AND ("user_id" = current_setting('remgraph.user_id') OR "user_id" IS NULL);

CREATE VIEW "rem_sql_custom"."llm_calls" WITH (security_barrier) AS
  SELECT "id", "turn_id", "session_id", "provider", "model", "iteration", "input_tokens", "output_tokens",
         "usage_estimated", "latency_ms", "finish_reason", "request", "error", "tenant_id", "user_id", "created_at"
  FROM "public"."llm_calls"
  WHERE "tenant_id" = current_setting('remgraph.tenant_id')
    AND ("user_id" = current_setting('remgraph.user_id') OR "user_id" IS NULL);

CREATE VIEW "rem_sql_custom"."agents" WITH (security_barrier) AS
  SELECT "id", "name", "version", "kind"::text AS "kind", "description", "source", "spec", "content_hash",
         "tenant_id", "user_id", "created_at"
  FROM "public"."agents"
  WHERE "tenant_id" = current_setting('remgraph.tenant_id')
    AND ("user_id" = current_setting('remgraph.user_id') OR "user_id" IS NULL);

GRANT SELECT ON "rem_sql_custom"."messages", "rem_sql_custom"."turns", "rem_sql_custom"."llm_calls", "rem_sql_custom"."agents"
  TO "rem_reader_custom";
