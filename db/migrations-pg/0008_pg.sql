CREATE TABLE "ops_alerts" (
	"key" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"message" text NOT NULL,
	"state" text DEFAULT 'ok' NOT NULL,
	"count" bigint DEFAULT 0 NOT NULL,
	"window_start" bigint,
	"first_at" bigint NOT NULL,
	"last_seen_at" bigint NOT NULL,
	"last_sent_at" bigint,
	"sent_count" bigint DEFAULT 0 NOT NULL
);

--> statement-breakpoint
CREATE INDEX "generations_created_idx" ON "generations" USING btree ("created_at");
