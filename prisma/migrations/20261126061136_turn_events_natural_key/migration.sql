-- DropIndex
DROP INDEX "turn_events_turn_id_seq_key";

-- AlterTable
ALTER TABLE "turn_events" DROP CONSTRAINT "turn_events_pkey",
DROP COLUMN "id",
ADD CONSTRAINT "turn_events_pkey" PRIMARY KEY ("turn_id", "seq");
