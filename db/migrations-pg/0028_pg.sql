CREATE TABLE "reports" (
	"id" text PRIMARY KEY NOT NULL,
	"gen_id" text NOT NULL,
	"reporter_id" text NOT NULL,
	"owner_id" text NOT NULL,
	"reason" text NOT NULL,
	"details" text,
	"status" text NOT NULL,
	"created_at" bigint NOT NULL,
	"due_at" bigint NOT NULL,
	"resolved_at" bigint,
	"resolved_by" text,
	"resolution_note" text
);

--> statement-breakpoint
CREATE TABLE "takedowns" (
	"gen_id" text PRIMARY KEY NOT NULL,
	"report_id" text,
	"reason" text NOT NULL,
	"result_urls" text NOT NULL,
	"quarantined" bigint DEFAULT 0 NOT NULL,
	"evidence" text,
	"removed_by" text NOT NULL,
	"note" text,
	"removed_at" bigint DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint NOT NULL
);

--> statement-breakpoint
CREATE UNIQUE INDEX "reports_reporter_gen_idx" ON "reports" USING btree ("reporter_id","gen_id");
--> statement-breakpoint
CREATE INDEX "reports_status_due_idx" ON "reports" USING btree ("status","due_at");
--> statement-breakpoint
CREATE INDEX "reports_gen_idx" ON "reports" USING btree ("gen_id");
