ALTER TABLE `files` ADD `sha256` text;--> statement-breakpoint
CREATE UNIQUE INDEX `files_user_sha256_idx` ON `files` (`user_id`,`sha256`);