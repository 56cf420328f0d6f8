CREATE TABLE `ops_alerts` (
	`key` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`message` text NOT NULL,
	`state` text DEFAULT 'ok' NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	`window_start` integer,
	`first_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`last_sent_at` integer,
	`sent_count` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE INDEX `generations_created_idx` ON `generations` (`created_at`);