-- rem_fuzzy_custom as it stands after prisma/migrations/20261126024738_rem_query_functions_custom.
-- Change it here and in a new migration (a new argument list or result needs DROP FUNCTION first);
-- test/unit/rem-sql-functions.test.ts fails until the two agree.

CREATE OR REPLACE FUNCTION "rem_fuzzy_custom"(p_tenant text, p_user text, p_text text, p_threshold real, p_limit int, p_candidates int)
RETURNS TABLE (entity_type text, entity_id uuid, entity_key text, content_summary text, graph_edges jsonb, user_id text, score real)
LANGUAGE plpgsql SET plan_cache_mode = force_custom_plan SET enable_seqscan = off AS $fn$
#variable_conflict use_column
BEGIN
  -- Without enable_seqscan = off, LIMIT p_candidates tempts the planner into a sequential scan that
  -- "finds enough rows early" when it overestimates the matches, and reads every key when there
  -- are few (18 s at 1M keys instead of a bitmap scan of the trigram index).
  PERFORM set_config('pg_trgm.word_similarity_threshold', p_threshold::text, true);
  RETURN QUERY
    SELECT c.entity_type, c.entity_id, c.entity_key, c.content_summary, c.graph_edges, c.user_id, c.score
    FROM (
      SELECT kv.entity_type, kv.entity_id, kv.entity_key, kv.content_summary, kv.graph_edges, kv.user_id,
             word_similarity(p_text, kv.entity_key) AS score
      FROM "kv_store" kv
      WHERE kv.entity_key %> p_text AND kv.tenant_id = p_tenant AND (kv.user_id = p_user OR kv.user_id IS NULL)
      LIMIT p_candidates
    ) c
    ORDER BY c.score DESC, c.entity_key
    LIMIT p_limit;
END
$fn$;
