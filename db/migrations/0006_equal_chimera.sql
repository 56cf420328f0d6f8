ALTER TABLE `checkouts` ADD `credits` integer;--> statement-breakpoint
ALTER TABLE `checkouts` ADD `amount` integer;--> statement-breakpoint
ALTER TABLE `checkouts` ADD `currency` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `credits` integer;