-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "vector";

-- CreateEnum
CREATE TYPE "MessageType" AS ENUM ('user', 'assistant', 'system', 'tool_call', 'tool_response', 'observation', 'memory', 'think');

-- CreateEnum
CREATE TYPE "TurnStatus" AS ENUM ('RUNNING', 'AWAITING_APPROVAL', 'COMPLETED', 'MAX_ITERATIONS', 'ERROR', 'CANCELLED', 'INTERRUPTED');

-- CreateEnum
CREATE TYPE "ApprovalStatus" AS ENUM ('PENDING', 'APPROVED', 'REJECTED', 'EXPIRED');

-- CreateEnum
CREATE TYPE "AgentKind" AS ENUM ('agent', 'evaluator');

-- CreateTable
CREATE TABLE "sessions" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT,
    "agent" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "messages" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "session_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "type" "MessageType" NOT NULL,
    "content" TEXT,
    "tool_calls" JSONB,
    "tool_call_id" TEXT,
    "tool_name" TEXT,
    "turn_id" UUID,
    "input_tokens" INTEGER,
    "output_tokens" INTEGER,
    "latency_ms" INTEGER,
    "model" TEXT,
    "agent_name" TEXT,
    "trace_id" TEXT,
    "span_id" TEXT,
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "turns" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "session_id" UUID NOT NULL,
    "parent_id" UUID,
    "agent" TEXT NOT NULL,
    "agent_version" INTEGER,
    "model" TEXT,
    "status" "TurnStatus" NOT NULL DEFAULT 'RUNNING',
    "depth" INTEGER NOT NULL DEFAULT 0,
    "agent_path" TEXT[],
    "iterations" INTEGER NOT NULL DEFAULT 0,
    "final_message_id" UUID,
    "error" JSONB,
    "tool_calls_log" JSONB NOT NULL DEFAULT '[]',
    "usage" JSONB NOT NULL DEFAULT '{}',
    "checkpoint" JSONB,
    "last_seq" INTEGER NOT NULL DEFAULT 0,
    "runner" TEXT,
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "turns_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "turn_events" (
    "id" BIGSERIAL NOT NULL,
    "turn_id" UUID NOT NULL,
    "seq" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "turn_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "approvals" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "turn_id" UUID NOT NULL,
    "session_id" UUID NOT NULL,
    "tool_name" TEXT NOT NULL,
    "arguments" JSONB NOT NULL,
    "tool_call_id" TEXT NOT NULL,
    "agent_path" TEXT[],
    "status" "ApprovalStatus" NOT NULL DEFAULT 'PENDING',
    "reason" TEXT,
    "decided_by" TEXT,
    "decided_at" TIMESTAMPTZ(3),
    "expires_at" TIMESTAMPTZ(3),
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "approvals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agents" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "name" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "kind" "AgentKind" NOT NULL DEFAULT 'agent',
    "description" TEXT,
    "source" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "content_hash" TEXT NOT NULL,
    "user_id" TEXT,
    "tenant_id" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "agents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "llm_calls" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "turn_id" UUID,
    "session_id" UUID,
    "provider" TEXT NOT NULL,
    "model" TEXT NOT NULL,
    "iteration" INTEGER NOT NULL DEFAULT 0,
    "input_tokens" INTEGER NOT NULL DEFAULT 0,
    "output_tokens" INTEGER NOT NULL DEFAULT 0,
    "latency_ms" INTEGER NOT NULL DEFAULT 0,
    "finish_reason" TEXT,
    "error" TEXT,
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "llm_calls_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "resources" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "key" TEXT NOT NULL,
    "name" TEXT,
    "uri" TEXT,
    "content" TEXT,
    "summary" TEXT,
    "category" TEXT,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "graph_edges" JSONB NOT NULL DEFAULT '[]',
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "resources_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "entities" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "key" TEXT NOT NULL,
    "name" TEXT,
    "entity_type" TEXT,
    "uri" TEXT,
    "content" TEXT,
    "summary" TEXT,
    "extracted_data" JSONB,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "graph_edges" JSONB NOT NULL DEFAULT '[]',
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "entities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "moments" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "key" TEXT NOT NULL,
    "name" TEXT,
    "summary" TEXT,
    "content" TEXT,
    "moment_type" TEXT,
    "starts_at" TIMESTAMPTZ(3),
    "ends_at" TIMESTAMPTZ(3),
    "session_id" UUID,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "graph_edges" JSONB NOT NULL DEFAULT '[]',
    "metadata" JSONB NOT NULL DEFAULT '{}',
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "moments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "embeddings" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "entity_type" TEXT NOT NULL,
    "entity_id" UUID NOT NULL,
    "field" TEXT NOT NULL DEFAULT 'content',
    "model" TEXT NOT NULL,
    "dimension" INTEGER NOT NULL,
    "content_hash" TEXT NOT NULL,
    "embedding" vector NOT NULL,
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "embeddings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "kv_store" (
    "entity_type" TEXT NOT NULL,
    "entity_id" UUID NOT NULL,
    "entity_key" TEXT NOT NULL,
    "content_summary" TEXT,
    "graph_edges" JSONB NOT NULL DEFAULT '[]',
    "tenant_id" TEXT NOT NULL,
    "user_id" TEXT,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "kv_store_pkey" PRIMARY KEY ("entity_type","entity_id")
);

-- CreateIndex
CREATE INDEX "sessions_tenant_id_user_id_updated_at_id_idx" ON "sessions"("tenant_id", "user_id", "updated_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "messages_turn_id_idx" ON "messages"("turn_id");

-- CreateIndex
CREATE UNIQUE INDEX "messages_session_id_seq_key" ON "messages"("session_id", "seq");

-- CreateIndex
CREATE UNIQUE INDEX "turns_final_message_id_key" ON "turns"("final_message_id");

-- CreateIndex
CREATE INDEX "turns_session_id_started_at_idx" ON "turns"("session_id", "started_at");

-- CreateIndex
CREATE INDEX "turns_parent_id_idx" ON "turns"("parent_id");

-- CreateIndex
CREATE INDEX "turns_status_idx" ON "turns"("status");

-- CreateIndex
CREATE UNIQUE INDEX "turn_events_turn_id_seq_key" ON "turn_events"("turn_id", "seq");

-- CreateIndex
CREATE INDEX "approvals_tenant_id_user_id_status_idx" ON "approvals"("tenant_id", "user_id", "status");

-- CreateIndex
CREATE INDEX "approvals_session_id_idx" ON "approvals"("session_id");

-- CreateIndex
CREATE UNIQUE INDEX "approvals_turn_id_tool_call_id_key" ON "approvals"("turn_id", "tool_call_id");

-- CreateIndex
CREATE INDEX "agents_tenant_id_name_idx" ON "agents"("tenant_id", "name");

-- CreateIndex
CREATE INDEX "llm_calls_turn_id_idx" ON "llm_calls"("turn_id");

-- CreateIndex
CREATE INDEX "resources_tenant_id_user_id_idx" ON "resources"("tenant_id", "user_id");

-- CreateIndex
CREATE INDEX "resources_tags_idx" ON "resources" USING GIN ("tags");

-- CreateIndex
CREATE INDEX "entities_tenant_id_user_id_idx" ON "entities"("tenant_id", "user_id");

-- CreateIndex
CREATE INDEX "entities_tags_idx" ON "entities" USING GIN ("tags");

-- CreateIndex
CREATE INDEX "moments_tenant_id_user_id_idx" ON "moments"("tenant_id", "user_id");

-- CreateIndex
CREATE INDEX "moments_tags_idx" ON "moments" USING GIN ("tags");

-- CreateIndex
CREATE INDEX "moments_starts_at_idx" ON "moments"("starts_at");

-- CreateIndex
CREATE INDEX "embeddings_model_dimension_idx" ON "embeddings"("model", "dimension");

-- CreateIndex
CREATE UNIQUE INDEX "embeddings_entity_type_entity_id_field_model_key" ON "embeddings"("entity_type", "entity_id", "field", "model");

-- CreateIndex
CREATE INDEX "kv_store_tenant_id_entity_key_idx" ON "kv_store"("tenant_id", "entity_key");

-- CreateIndex
CREATE INDEX "kv_store_entity_key_trgm_idx" ON "kv_store" USING GIN ("entity_key" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "kv_store_content_summary_trgm_idx" ON "kv_store" USING GIN ("content_summary" gin_trgm_ops);

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "messages" ADD CONSTRAINT "messages_turn_id_fkey" FOREIGN KEY ("turn_id") REFERENCES "turns"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "turns" ADD CONSTRAINT "turns_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "turns" ADD CONSTRAINT "turns_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "turns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "turns" ADD CONSTRAINT "turns_final_message_id_fkey" FOREIGN KEY ("final_message_id") REFERENCES "messages"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "turn_events" ADD CONSTRAINT "turn_events_turn_id_fkey" FOREIGN KEY ("turn_id") REFERENCES "turns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_turn_id_fkey" FOREIGN KEY ("turn_id") REFERENCES "turns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "approvals" ADD CONSTRAINT "approvals_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "llm_calls" ADD CONSTRAINT "llm_calls_turn_id_fkey" FOREIGN KEY ("turn_id") REFERENCES "turns"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "llm_calls" ADD CONSTRAINT "llm_calls_session_id_fkey" FOREIGN KEY ("session_id") REFERENCES "sessions"("id") ON DELETE CASCADE ON UPDATE CASCADE;
