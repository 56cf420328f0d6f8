CREATE TABLE "redemption_codes" (
	"id" text PRIMARY KEY NOT NULL,
	"code_hash" text NOT NULL,
	"prefix" text NOT NULL,
	"credits" bigint NOT NULL,
	"max_uses" bigint NOT NULL,
	"per_user" bigint DEFAULT 1 NOT NULL,
	"uses" bigint DEFAULT 0 NOT NULL,
	"expires_at" bigint,
	"validity_days" bigint,
	"disabled_at" bigint,
	"created_by" text,
	"created_at" bigint DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint NOT NULL
);

--> statement-breakpoint
CREATE TABLE "redemption_uses" (
	"id" text PRIMARY KEY NOT NULL,
	"code_id" text NOT NULL,
	"user_id" text,
	"email_hash" text NOT NULL,
	"grant_id" text,
	"created_at" bigint DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint NOT NULL
);

--> statement-breakpoint
ALTER TABLE "redemption_uses" ADD CONSTRAINT "redemption_uses_code_id_redemption_codes_id_fk" FOREIGN KEY ("code_id") REFERENCES "public"."redemption_codes"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "redemption_codes_hash" ON "redemption_codes" USING btree ("code_hash");
--> statement-breakpoint
CREATE INDEX "redemption_uses_code_email" ON "redemption_uses" USING btree ("code_id","email_hash");
