ALTER TABLE `api_keys` ADD `scopes` text;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `credit_limit` integer;--> statement-breakpoint
ALTER TABLE `api_keys` ADD `credit_period` text;--> statement-breakpoint
ALTER TABLE `generations` ADD `api_key_id` text;--> statement-breakpoint
CREATE INDEX `generations_key_created_idx` ON `generations` (`api_key_id`,`created_at`) WHERE api_key_id IS NOT NULL;