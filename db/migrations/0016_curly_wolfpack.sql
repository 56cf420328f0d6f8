CREATE TABLE `deleted_emails` (
	`email_hash` text PRIMARY KEY NOT NULL,
	`deleted_at` integer NOT NULL
);
--> statement-breakpoint
ALTER TABLE `user` ADD `suspended_at` integer;--> statement-breakpoint
ALTER TABLE `user` ADD `suspended_reason` text;--> statement-breakpoint
ALTER TABLE `user` ADD `deleted_at` integer;