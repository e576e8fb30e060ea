-- CreateEnum
CREATE TYPE "ExperimentStatus" AS ENUM ('QUEUED', 'RUNNING', 'DONE', 'FAILED');

-- CreateEnum
CREATE TYPE "ResultStatus" AS ENUM ('PENDING', 'RUNNING', 'DONE', 'ERROR');

-- CreateTable
CREATE TABLE "datasets" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "description" TEXT,
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "datasets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "examples" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "dataset_id" UUID NOT NULL,
    "ord" INTEGER NOT NULL,
    "input" TEXT NOT NULL,
    "expected" TEXT,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "examples_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "experiments" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "dataset_id" UUID NOT NULL,
    "agent" TEXT NOT NULL,
    "agent_version" INTEGER,
    "model" TEXT,
    "evaluators" TEXT[],
    "concurrency" INTEGER NOT NULL,
    "status" "ExperimentStatus" NOT NULL DEFAULT 'QUEUED',
    "total" INTEGER NOT NULL,
    "done" INTEGER NOT NULL DEFAULT 0,
    "job_id" UUID,
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "experiments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "experiment_results" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "experiment_id" UUID NOT NULL,
    "example_id" UUID NOT NULL,
    "ord" INTEGER NOT NULL,
    "status" "ResultStatus" NOT NULL DEFAULT 'PENDING',
    "output" TEXT,
    "scores" JSONB NOT NULL DEFAULT '{}',
    "usage" JSONB NOT NULL DEFAULT '{}',
    "error" JSONB,
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "experiment_results_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "datasets_tenant_id_user_id_created_at_idx" ON "datasets"("tenant_id", "user_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "examples_dataset_id_ord_key" ON "examples"("dataset_id", "ord");

-- CreateIndex
CREATE INDEX "experiments_tenant_id_user_id_created_at_idx" ON "experiments"("tenant_id", "user_id", "created_at");

-- CreateIndex
CREATE INDEX "experiments_dataset_id_idx" ON "experiments"("dataset_id");

-- CreateIndex
CREATE INDEX "experiment_results_experiment_id_status_ord_idx" ON "experiment_results"("experiment_id", "status", "ord");

-- CreateIndex
CREATE UNIQUE INDEX "experiment_results_experiment_id_example_id_key" ON "experiment_results"("experiment_id", "example_id");

-- AddForeignKey
ALTER TABLE "examples" ADD CONSTRAINT "examples_dataset_id_fkey" FOREIGN KEY ("dataset_id") REFERENCES "datasets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiments" ADD CONSTRAINT "experiments_dataset_id_fkey" FOREIGN KEY ("dataset_id") REFERENCES "datasets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiment_results" ADD CONSTRAINT "experiment_results_experiment_id_fkey" FOREIGN KEY ("experiment_id") REFERENCES "experiments"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "experiment_results" ADD CONSTRAINT "experiment_results_example_id_fkey" FOREIGN KEY ("example_id") REFERENCES "examples"("id") ON DELETE CASCADE ON UPDATE CASCADE;
