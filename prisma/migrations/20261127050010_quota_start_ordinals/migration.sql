-- DropIndex
DROP INDEX "quota_starts_tenant_id_user_id_started_at_idx";

-- AlterTable
ALTER TABLE "quota_starts" ADD COLUMN     "ordinal" BIGINT NOT NULL DEFAULT 0;

-- CreateIndex
CREATE INDEX "quota_starts_tenant_id_user_id_ordinal_idx" ON "quota_starts"("tenant_id", "user_id", "ordinal");

-- Starts recorded before this migration: numbered in order per caller, so that the first admissions
-- after it still count them.
UPDATE "quota_starts" AS q SET "ordinal" = n.rn
FROM (SELECT "id", row_number() OVER (PARTITION BY "tenant_id", "user_id" ORDER BY "started_at", "id") AS rn FROM "quota_starts") AS n
WHERE q."id" = n."id";
