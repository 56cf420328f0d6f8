CREATE TABLE "safety_events" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"category" text,
	"user_id" text,
	"detail" text,
	"created_at" bigint DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint NOT NULL
);

--> statement-breakpoint
CREATE TABLE "safety_terms" (
	"normalized" text PRIMARY KEY NOT NULL,
	"term" text NOT NULL,
	"created_at" bigint DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint NOT NULL
);

--> statement-breakpoint
CREATE INDEX "safety_events_created_idx" ON "safety_events" USING btree ("created_at");
