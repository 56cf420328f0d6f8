CREATE TABLE `request_joins` (
	`user_id` text NOT NULL,
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`gen_ids` text NOT NULL,
	`created_at` integer NOT NULL,
	`answered_at` integer,
	PRIMARY KEY(`user_id`, `scope`, `key`),
	FOREIGN KEY (`user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `request_joins_created_idx` ON `request_joins` (`created_at`);