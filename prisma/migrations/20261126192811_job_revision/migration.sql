-- AlterTable
ALTER TABLE "jobs" ADD COLUMN     "revision" INTEGER NOT NULL DEFAULT 0;
