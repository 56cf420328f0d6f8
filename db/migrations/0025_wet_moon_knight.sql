CREATE TABLE `redemption_codes` (
	`id` text PRIMARY KEY NOT NULL,
	`code_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`credits` integer NOT NULL,
	`max_uses` integer NOT NULL,
	`per_user` integer DEFAULT 1 NOT NULL,
	`uses` integer DEFAULT 0 NOT NULL,
	`expires_at` integer,
	`validity_days` integer,
	`disabled_at` integer,
	`created_by` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `redemption_codes_hash` ON `redemption_codes` (`code_hash`);--> statement-breakpoint
CREATE TABLE `redemption_uses` (
	`id` text PRIMARY KEY NOT NULL,
	`code_id` text NOT NULL,
	`user_id` text,
	`email_hash` text NOT NULL,
	`grant_id` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`code_id`) REFERENCES `redemption_codes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `redemption_uses_code_email` ON `redemption_uses` (`code_id`,`email_hash`);