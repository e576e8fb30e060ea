-- rem_lookup_custom as it stands after prisma/migrations/20261126100000_rem_generic_plans_custom.
-- Change it here and in a new migration (a new argument list or result needs DROP FUNCTION first);
-- test/unit/rem-sql-functions.test.ts fails until the two agree.

CREATE OR REPLACE FUNCTION "rem_lookup_custom"(p_tenant text, p_user text, p_keys text[])
RETURNS TABLE (entity_type text, entity_id text, entity_key text, content_summary text, graph_edges jsonb, user_id text, content text, name text)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $fn$
BEGIN
  RETURN QUERY
    SELECT kv."entity_type", kv."entity_id"::text, kv."entity_key", kv."content_summary", kv."graph_edges", kv."user_id",
           COALESCE(e."content", r."content", m."content"), COALESCE(e."name", r."name", m."name")
    FROM "kv_store" kv
    LEFT JOIN "entities" e ON kv."entity_type" = 'entities' AND e."id" = kv."entity_id"
    LEFT JOIN "resources" r ON kv."entity_type" = 'resources' AND r."id" = kv."entity_id"
    LEFT JOIN "moments" m ON kv."entity_type" = 'moments' AND m."id" = kv."entity_id"
    WHERE kv."entity_key" = ANY(p_keys) AND kv."tenant_id" = p_tenant AND (kv."user_id" = p_user OR kv."user_id" IS NULL);
END
$fn$;
