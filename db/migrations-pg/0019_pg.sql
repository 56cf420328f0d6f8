ALTER TABLE "files" ADD COLUMN "sha256" text;
--> statement-breakpoint
CREATE UNIQUE INDEX "files_user_sha256_idx" ON "files" USING btree ("user_id","sha256");
