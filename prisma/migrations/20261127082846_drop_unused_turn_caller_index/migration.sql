-- Nothing reads turns by caller and start time any more: per-user quotas count quota_starts
-- (by ordinal) and running turns through turns_running_by_caller_custom. Every turn paid for this
-- index twice (its insert, and its outcome, which changes indexed columns and so updates every index).
-- DropIndex
DROP INDEX "turns_tenant_id_user_id_started_at_idx";
