DROP INDEX `generations_user_status_idx`;--> statement-breakpoint
ALTER TABLE `user_generation_stats` ADD `held` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `user_generation_stats` ADD `unfinished` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
DROP TRIGGER `generations_stats_insert`;--> statement-breakpoint
CREATE TRIGGER `generations_stats_insert` AFTER INSERT ON `generations` BEGIN
	INSERT INTO `user_generation_stats` (`user_id`, `tasks`, `tasks_version`, `held`, `unfinished`)
		VALUES (NEW.`user_id`, 1, 1, CASE WHEN NEW.`status` IN ('pending', 'processing') THEN NEW.`credits_cost` ELSE 0 END, NEW.`status` IN ('pending', 'processing'))
		ON CONFLICT (`user_id`) DO UPDATE SET `tasks` = `tasks` + 1, `tasks_version` = `tasks_version` + 1,
			`held` = `held` + excluded.`held`, `unfinished` = `unfinished` + excluded.`unfinished`;
END;
--> statement-breakpoint
DROP TRIGGER `generations_stats_delete`;--> statement-breakpoint
CREATE TRIGGER `generations_stats_delete` AFTER DELETE ON `generations` BEGIN
	UPDATE `user_generation_stats` SET `tasks` = `tasks` - 1, `tasks_version` = `tasks_version` + 1,
		`held` = `held` - CASE WHEN OLD.`status` IN ('pending', 'processing') THEN OLD.`credits_cost` ELSE 0 END,
		`unfinished` = `unfinished` - (OLD.`status` IN ('pending', 'processing'))
	WHERE `user_id` = OLD.`user_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `generations_stats_held` AFTER UPDATE OF `status`, `credits_cost` ON `generations`
WHEN OLD.`user_id` IS NEW.`user_id`
	AND (CASE WHEN OLD.`status` IN ('pending', 'processing') THEN OLD.`credits_cost` END) IS NOT (CASE WHEN NEW.`status` IN ('pending', 'processing') THEN NEW.`credits_cost` END)
BEGIN
	UPDATE `user_generation_stats` SET
		`held` = `held` - CASE WHEN OLD.`status` IN ('pending', 'processing') THEN OLD.`credits_cost` ELSE 0 END + CASE WHEN NEW.`status` IN ('pending', 'processing') THEN NEW.`credits_cost` ELSE 0 END,
		`unfinished` = `unfinished` - (OLD.`status` IN ('pending', 'processing')) + (NEW.`status` IN ('pending', 'processing'))
	WHERE `user_id` = NEW.`user_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `generations_stats_held_owner` AFTER UPDATE OF `user_id` ON `generations` WHEN OLD.`user_id` IS NOT NEW.`user_id` BEGIN
	UPDATE `user_generation_stats` SET
		`held` = `held` - CASE WHEN OLD.`status` IN ('pending', 'processing') THEN OLD.`credits_cost` ELSE 0 END,
		`unfinished` = `unfinished` - (OLD.`status` IN ('pending', 'processing'))
	WHERE `user_id` = OLD.`user_id`;
	INSERT INTO `user_generation_stats` (`user_id`, `held`, `unfinished`)
		VALUES (NEW.`user_id`, CASE WHEN NEW.`status` IN ('pending', 'processing') THEN NEW.`credits_cost` ELSE 0 END, NEW.`status` IN ('pending', 'processing'))
		ON CONFLICT (`user_id`) DO UPDATE SET `held` = `held` + excluded.`held`, `unfinished` = `unfinished` + excluded.`unfinished`;
END;
--> statement-breakpoint
UPDATE `user_generation_stats` SET
	`held` = (SELECT coalesce(sum(`credits_cost`), 0) FROM `generations` g WHERE g.`user_id` = `user_generation_stats`.`user_id` AND g.`status` IN ('pending', 'processing')),
	`unfinished` = (SELECT count(*) FROM `generations` g WHERE g.`user_id` = `user_generation_stats`.`user_id` AND g.`status` IN ('pending', 'processing'));
