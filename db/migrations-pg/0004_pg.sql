DROP INDEX "generations_status_poll_idx";
--> statement-breakpoint
CREATE INDEX "generations_claim_idx" ON "generations" USING btree ("status","next_poll_at","created_at","id");
