CREATE TABLE `rate_limits` (
	`bucket` text PRIMARY KEY NOT NULL,
	`tat` integer NOT NULL
);
--> statement-breakpoint
DROP TABLE `rate_limit_hits`;