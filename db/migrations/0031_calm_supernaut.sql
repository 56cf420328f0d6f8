CREATE TABLE `reports` (
	`id` text PRIMARY KEY NOT NULL,
	`gen_id` text NOT NULL,
	`reporter_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`reason` text NOT NULL,
	`details` text,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`due_at` integer NOT NULL,
	`resolved_at` integer,
	`resolved_by` text,
	`resolution_note` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `reports_reporter_gen_idx` ON `reports` (`reporter_id`,`gen_id`);--> statement-breakpoint
CREATE INDEX `reports_status_due_idx` ON `reports` (`status`,`due_at`);--> statement-breakpoint
CREATE INDEX `reports_gen_idx` ON `reports` (`gen_id`);--> statement-breakpoint
CREATE TABLE `takedowns` (
	`gen_id` text PRIMARY KEY NOT NULL,
	`report_id` text,
	`reason` text NOT NULL,
	`result_urls` text NOT NULL,
	`quarantined` integer DEFAULT 0 NOT NULL,
	`evidence` text,
	`removed_by` text NOT NULL,
	`note` text,
	`removed_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
