-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "progress" JSONB;
