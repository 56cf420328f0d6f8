CREATE TABLE `files` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`storage_key` text NOT NULL,
	`content_type` text NOT NULL,
	`width` integer NOT NULL,
	`height` integer NOT NULL,
	`bytes` integer NOT NULL,
	`source` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer,
	FOREIGN KEY (`user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `files_user_created_idx` ON `files` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `files_expires_idx` ON `files` (`expires_at`) WHERE expires_at IS NOT NULL;--> statement-breakpoint
ALTER TABLE `generations` ADD `inputs` text;