ALTER TABLE "api_keys" ADD COLUMN "scopes" text;
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "credit_limit" bigint;
--> statement-breakpoint
ALTER TABLE "api_keys" ADD COLUMN "credit_period" text;
--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "api_key_id" text;
--> statement-breakpoint
CREATE INDEX "generations_key_created_idx" ON "generations" USING btree ("api_key_id","created_at") WHERE api_key_id IS NOT NULL;
