-- A turn's events are stored in chunks, one row per write of a turn's consecutive events, instead
-- of one row per event: every stored event was an index entry and a foreign-key check of its own.
-- Rows already stored become chunks of one event each.
ALTER TABLE "turn_events" ADD COLUMN "events" JSONB,
ADD COLUMN "last_seq" INTEGER;

UPDATE "turn_events" SET "events" = jsonb_build_array("payload"), "last_seq" = "seq";

-- AlterTable
ALTER TABLE "turn_events" DROP COLUMN "payload",
DROP COLUMN "type",
ALTER COLUMN "events" SET NOT NULL,
ALTER COLUMN "last_seq" SET NOT NULL;
