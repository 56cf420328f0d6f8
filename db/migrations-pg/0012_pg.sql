CREATE TABLE "deleted_emails" (
	"email_hash" text PRIMARY KEY NOT NULL,
	"deleted_at" bigint NOT NULL
);

--> statement-breakpoint
ALTER TABLE "user" ADD COLUMN "suspended_at" bigint;
--> statement-breakpoint
ALTER TABLE "user" ADD COLUMN "suspended_reason" text;
--> statement-breakpoint
ALTER TABLE "user" ADD COLUMN "deleted_at" bigint;
