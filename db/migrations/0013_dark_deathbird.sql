CREATE TABLE `user_credit_stats` (
	`user_id` text PRIMARY KEY NOT NULL,
	`granted` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
DROP INDEX `credit_grants_user_idx`;--> statement-breakpoint
CREATE INDEX `credit_grants_live_idx` ON `credit_grants` (`user_id`,`expires_at`) WHERE remaining > 0;--> statement-breakpoint
CREATE INDEX `credit_grants_user_idx` ON `credit_grants` (`user_id`,`created_at`,`id`);--> statement-breakpoint
ALTER TABLE `generations` ADD `user_seq` integer;--> statement-breakpoint
CREATE INDEX `generations_user_seq_idx` ON `generations` (`user_id`,`user_seq`);--> statement-breakpoint
CREATE INDEX `generations_user_unfinished_idx` ON `generations` (`user_id`,`created_at`,`id`) WHERE status IN ('pending', 'processing');--> statement-breakpoint
CREATE INDEX `generations_user_finished_idx` ON `generations` (`user_id`,`completed_at`) WHERE status IN ('completed', 'failed');--> statement-breakpoint
CREATE INDEX `generations_user_hidden_idx` ON `generations` (`user_id`) WHERE hidden_at IS NOT NULL;--> statement-breakpoint
CREATE INDEX `checkouts_open_idx` ON `checkouts` (`created_at`) WHERE status = 'open';--> statement-breakpoint
CREATE INDEX `orders_active_sub_idx` ON `orders` (`user_id`,`period_end`) WHERE kind = 'subscription' AND status = 'paid';--> statement-breakpoint
CREATE INDEX `session_expires_idx` ON `session` (`expires_at`);--> statement-breakpoint
CREATE INDEX `verification_expires_idx` ON `verification` (`expires_at`);--> statement-breakpoint
CREATE INDEX `webhook_events_created_idx` ON `webhook_events` (`created_at`);--> statement-breakpoint
INSERT INTO `user_credit_stats` (`user_id`, `granted`) SELECT `user_id`, sum(`amount`) FROM `credit_grants` GROUP BY `user_id`;
--> statement-breakpoint
CREATE TRIGGER `credit_grants_stats_insert` AFTER INSERT ON `credit_grants` BEGIN
	INSERT INTO `user_credit_stats` (`user_id`, `granted`) VALUES (NEW.`user_id`, NEW.`amount`)
		ON CONFLICT (`user_id`) DO UPDATE SET `granted` = `granted` + excluded.`granted`;
END;
--> statement-breakpoint
CREATE TRIGGER `credit_grants_stats_delete` AFTER DELETE ON `credit_grants` BEGIN
	UPDATE `user_credit_stats` SET `granted` = `granted` - OLD.`amount` WHERE `user_id` = OLD.`user_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `credit_grants_stats_update` AFTER UPDATE OF `amount`, `user_id` ON `credit_grants` BEGIN
	UPDATE `user_credit_stats` SET `granted` = `granted` - OLD.`amount` WHERE `user_id` = OLD.`user_id`;
	INSERT INTO `user_credit_stats` (`user_id`, `granted`) VALUES (NEW.`user_id`, NEW.`amount`)
		ON CONFLICT (`user_id`) DO UPDATE SET `granted` = `granted` + excluded.`granted`;
END;
--> statement-breakpoint
UPDATE `generations` SET `user_seq` = r.`n` FROM (
	SELECT `id`, row_number() OVER (PARTITION BY `user_id` ORDER BY `created_at`, `id`) AS `n` FROM `generations`
) AS r WHERE `generations`.`id` = r.`id`;
--> statement-breakpoint
CREATE TRIGGER `generations_seq_insert` AFTER INSERT ON `generations` BEGIN
	UPDATE `generations` SET `user_seq` = `user_seq` + 1
		WHERE `user_id` = NEW.`user_id` AND `created_at` >= NEW.`created_at` AND (`created_at` > NEW.`created_at` OR `id` > NEW.`id`);
	UPDATE `generations` SET `user_seq` = 1 + coalesce((SELECT g.`user_seq` FROM `generations` g
		WHERE g.`user_id` = NEW.`user_id` AND g.`created_at` <= NEW.`created_at` AND (g.`created_at` < NEW.`created_at` OR g.`id` < NEW.`id`)
		ORDER BY g.`created_at` DESC, g.`id` DESC LIMIT 1), 0)
	WHERE `id` = NEW.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `generations_seq_delete` AFTER DELETE ON `generations`
WHEN EXISTS (SELECT 1 FROM `user` WHERE `id` = OLD.`user_id`) BEGIN
	UPDATE `generations` SET `user_seq` = `user_seq` - 1 WHERE `user_id` = OLD.`user_id` AND `user_seq` > OLD.`user_seq`;
END;
--> statement-breakpoint
CREATE TRIGGER `generations_seq_move` AFTER UPDATE OF `user_id`, `created_at`, `id` ON `generations`
WHEN OLD.`user_id` IS NOT NEW.`user_id` OR OLD.`created_at` IS NOT NEW.`created_at` OR OLD.`id` IS NOT NEW.`id` BEGIN
	UPDATE `generations` SET `user_seq` = `user_seq` - 1
		WHERE `user_id` = OLD.`user_id` AND `user_seq` > OLD.`user_seq` AND `id` <> NEW.`id`;
	UPDATE `generations` SET `user_seq` = `user_seq` + 1
		WHERE `user_id` = NEW.`user_id` AND `created_at` >= NEW.`created_at` AND (`created_at` > NEW.`created_at` OR `id` > NEW.`id`);
	UPDATE `generations` SET `user_seq` = 1 + coalesce((SELECT g.`user_seq` FROM `generations` g
		WHERE g.`user_id` = NEW.`user_id` AND g.`created_at` <= NEW.`created_at` AND (g.`created_at` < NEW.`created_at` OR g.`id` < NEW.`id`)
		ORDER BY g.`created_at` DESC, g.`id` DESC LIMIT 1), 0)
	WHERE `id` = NEW.`id`;
END;
