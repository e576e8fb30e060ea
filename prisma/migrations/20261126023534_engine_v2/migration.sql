-- Turn engine v2: a turn tree is held by one process at a time (runner/heartbeat_at of its root),
-- and approval decisions are announced in the log by whoever holds the tree.

-- AlterTable
ALTER TABLE "approvals" ADD COLUMN     "announced_at" TIMESTAMPTZ(3);
-- Decisions made before this migration were announced when they were taken.
UPDATE "approvals" SET "announced_at" = COALESCE("decided_at", now()) WHERE "status" <> 'PENDING';

-- AlterTable
ALTER TABLE "turns" ADD COLUMN     "root_id" UUID;
WITH RECURSIVE tree AS (
  SELECT "id", "id" AS "root_id" FROM "turns" WHERE "parent_id" IS NULL
  UNION ALL
  SELECT t."id", tree."root_id" FROM "turns" t JOIN tree ON t."parent_id" = tree."id"
)
UPDATE "turns" SET "root_id" = tree."root_id" FROM tree WHERE "turns"."id" = tree."id";
ALTER TABLE "turns" ALTER COLUMN "root_id" SET NOT NULL;
-- Only a tree's root records who holds it now.
UPDATE "turns" SET "runner" = NULL WHERE "parent_id" IS NOT NULL OR "status" <> 'RUNNING';

-- CreateIndex
CREATE INDEX "turns_root_id_idx" ON "turns"("root_id");
