CREATE TABLE `collection_items` (
	`collection_id` text NOT NULL,
	`gen_id` text NOT NULL,
	`added_at` integer NOT NULL,
	PRIMARY KEY(`collection_id`, `gen_id`),
	FOREIGN KEY (`collection_id`) REFERENCES `collections`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`gen_id`) REFERENCES `generations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `collection_items_added_idx` ON `collection_items` (`collection_id`,`added_at`);--> statement-breakpoint
CREATE INDEX `collection_items_gen_idx` ON `collection_items` (`gen_id`);--> statement-breakpoint
CREATE TABLE `collections` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `collections_user_name_idx` ON `collections` (`user_id`,`name_key`);--> statement-breakpoint
CREATE INDEX `collections_user_created_idx` ON `collections` (`user_id`,`created_at`);