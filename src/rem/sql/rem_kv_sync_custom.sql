-- rem_kv_sync_custom as it stands after prisma/migrations/20261125000001_rem_custom.
-- Change it here and in a new migration (a new argument list or result needs DROP FUNCTION first);
-- test/unit/rem-sql-functions.test.ts fails until the two agree.

CREATE OR REPLACE FUNCTION "rem_kv_sync_custom"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    DELETE FROM "kv_store" WHERE "entity_type" = TG_TABLE_NAME AND "entity_id" = OLD."id";
    RETURN OLD;
  END IF;
  INSERT INTO "kv_store" ("entity_type", "entity_id", "entity_key", "content_summary", "graph_edges",
                          "tenant_id", "user_id", "updated_at")
  VALUES (TG_TABLE_NAME, NEW."id", NEW."key", left(COALESCE(NEW."summary", NEW."content", NEW."name"), 1000),
          NEW."graph_edges", NEW."tenant_id", NEW."user_id", now())
  ON CONFLICT ("entity_type", "entity_id") DO UPDATE SET
    "entity_key" = EXCLUDED."entity_key",
    "content_summary" = EXCLUDED."content_summary",
    "graph_edges" = EXCLUDED."graph_edges",
    "tenant_id" = EXCLUDED."tenant_id",
    "user_id" = EXCLUDED."user_id",
    "updated_at" = EXCLUDED."updated_at";
  RETURN NEW;
END
$$;
