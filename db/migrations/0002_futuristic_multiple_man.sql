CREATE TABLE `billing_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`outcome` text NOT NULL,
	`payload` text NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `checkouts` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`product_id` text NOT NULL,
	`provider` text NOT NULL,
	`token_hash` text,
	`status` text DEFAULT 'open' NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `checkouts_user_idx` ON `checkouts` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `order_payments` (
	`id` text PRIMARY KEY NOT NULL,
	`ref` text NOT NULL,
	`order_no` text NOT NULL,
	`user_id` text NOT NULL,
	`amount` integer NOT NULL,
	`currency` text NOT NULL,
	`credits` integer NOT NULL,
	`grant_id` text,
	`payment_intent` text,
	`refunded_amount` integer DEFAULT 0 NOT NULL,
	`clawed_back` integer DEFAULT 0 NOT NULL,
	`period_end` integer,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`order_no`) REFERENCES `orders`(`order_no`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `order_payments_ref_unique` ON `order_payments` (`ref`);--> statement-breakpoint
CREATE INDEX `order_payments_order_idx` ON `order_payments` (`order_no`);--> statement-breakpoint
CREATE INDEX `order_payments_user_idx` ON `order_payments` (`user_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `order_payments_pi_idx` ON `order_payments` (`payment_intent`);--> statement-breakpoint
CREATE TABLE `products` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`credits` integer NOT NULL,
	`interval` text,
	`amount` integer NOT NULL,
	`currency` text DEFAULT 'usd' NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`sort_order` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	`updated_at` integer
);
--> statement-breakpoint
CREATE TABLE `referral_rewards` (
	`invitee_id` text PRIMARY KEY NOT NULL,
	`inviter_id` text NOT NULL,
	`order_no` text NOT NULL,
	`credits` integer NOT NULL,
	`grant_id` text,
	`created_at` integer DEFAULT (unixepoch('subsec') * 1000) NOT NULL,
	FOREIGN KEY (`invitee_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`inviter_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `referral_rewards_inviter_idx` ON `referral_rewards` (`inviter_id`);--> statement-breakpoint
ALTER TABLE `orders` ADD `kind` text DEFAULT 'subscription' NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `provider` text DEFAULT 'admin' NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `currency` text DEFAULT 'usd' NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `external_id` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `customer_id` text;--> statement-breakpoint
ALTER TABLE `orders` ADD `status_at` integer;--> statement-breakpoint
CREATE UNIQUE INDEX `orders_external_idx` ON `orders` (`external_id`);