-- AlterTable
ALTER TABLE "llm_calls" ADD COLUMN "usage_estimated" BOOLEAN NOT NULL DEFAULT false;
