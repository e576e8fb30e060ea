-- Real turns as a regression set: examples keep their source turn, experiments may replay them.
-- AlterTable
ALTER TABLE "examples" ADD COLUMN "source_turn_id" UUID,
ADD COLUMN "source" JSONB;

-- AlterTable
ALTER TABLE "experiments" ADD COLUMN "regression" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN "overrides" JSONB;

-- AlterTable
ALTER TABLE "experiment_results" ADD COLUMN "turn_id" UUID,
ADD COLUMN "baseline_scores" JSONB NOT NULL DEFAULT '{}';
