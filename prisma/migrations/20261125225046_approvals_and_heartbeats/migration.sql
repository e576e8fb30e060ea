-- DropIndex
DROP INDEX "turns_status_idx";

-- AlterTable
ALTER TABLE "approvals" ADD COLUMN     "approved" BOOLEAN;

-- AlterTable
ALTER TABLE "turns" ADD COLUMN     "heartbeat_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "approvals_status_expires_at_idx" ON "approvals"("status", "expires_at");

-- CreateIndex
CREATE INDEX "turns_status_heartbeat_at_idx" ON "turns"("status", "heartbeat_at");
