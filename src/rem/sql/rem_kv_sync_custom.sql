-- rem_kv_sync_custom as it stands after prisma/migrations/20261128220021_kv_sync_per_statement_custom
-- (a statement-level trigger: the written rows arrive as the transition tables new_rows / old_rows).
-- Change it here and in a new migration (a new argument list or result needs DROP FUNCTION first);
-- test/unit/rem-sql-functions.test.ts fails until the two agree.

CREATE OR REPLACE FUNCTION "rem_kv_sync_custom"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM "kv_store" k USING "old_rows" o WHERE k."entity_type" = TG_TABLE_NAME AND k."entity_id" = o."id";
    RETURN NULL;
  END IF;
  INSERT INTO "kv_store" ("entity_type", "entity_id", "entity_key", "content_summary", "graph_edges",
                          "tenant_id", "user_id", "updated_at")
  SELECT TG_TABLE_NAME, n."id", n."key", left(COALESCE(n."summary", n."content", n."name"), 1000),
         n."graph_edges", n."tenant_id", n."user_id", now()
  FROM "new_rows" n
  ON CONFLICT ("entity_type", "entity_id") DO UPDATE SET
    "entity_key" = EXCLUDED."entity_key",
    "content_summary" = EXCLUDED."content_summary",
    "graph_edges" = EXCLUDED."graph_edges",
    "tenant_id" = EXCLUDED."tenant_id",
    "user_id" = EXCLUDED."user_id",
    "updated_at" = EXCLUDED."updated_at";
  RETURN NULL;
END
$$;
