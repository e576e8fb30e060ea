-- The OpenAI-compatible request behind a top-level turn: a client's retry joins that turn.
-- CreateTable
CREATE TABLE "turn_requests" (
    "key" TEXT NOT NULL,
    "turn_id" UUID NOT NULL,
    "explicit" BOOLEAN NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "turn_requests_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "turn_requests_turn_id_idx" ON "turn_requests"("turn_id");

-- AddForeignKey
ALTER TABLE "turn_requests" ADD CONSTRAINT "turn_requests_turn_id_fkey" FOREIGN KEY ("turn_id") REFERENCES "turns"("id") ON DELETE CASCADE ON UPDATE CASCADE;
