-- rem_embeddings_cleanup_custom as it stands after prisma/migrations/20261125222930_rem_sql_scope.
-- Change it here and in a new migration (a new argument list or result needs DROP FUNCTION first);
-- test/unit/rem-sql-functions.test.ts fails until the two agree.

CREATE OR REPLACE FUNCTION "rem_embeddings_cleanup_custom"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "embeddings" WHERE "entity_type" = TG_TABLE_NAME AND "entity_id" = OLD."id";
  RETURN OLD;
END
$$;
