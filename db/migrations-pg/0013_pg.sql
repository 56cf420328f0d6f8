CREATE TABLE "files" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"storage_key" text NOT NULL,
	"content_type" text NOT NULL,
	"width" bigint NOT NULL,
	"height" bigint NOT NULL,
	"bytes" bigint NOT NULL,
	"source" text NOT NULL,
	"created_at" bigint NOT NULL,
	"expires_at" bigint
);

--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "inputs" text;
--> statement-breakpoint
ALTER TABLE "files" ADD CONSTRAINT "files_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "files_user_created_idx" ON "files" USING btree ("user_id","created_at");
--> statement-breakpoint
CREATE INDEX "files_expires_idx" ON "files" USING btree ("expires_at") WHERE expires_at IS NOT NULL;
