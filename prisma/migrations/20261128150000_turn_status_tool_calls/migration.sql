-- A turn may end handing calls of the caller's own tools back to it (client tools on /v1).
-- AlterEnum
ALTER TYPE "TurnStatus" ADD VALUE 'TOOL_CALLS';
