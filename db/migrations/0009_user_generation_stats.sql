CREATE TABLE `user_generation_stats` (
	`user_id` text PRIMARY KEY NOT NULL,
	`tasks` integer DEFAULT 0 NOT NULL,
	`tasks_version` integer DEFAULT 0 NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TRIGGER `generations_stats_insert` AFTER INSERT ON `generations` BEGIN
	INSERT INTO `user_generation_stats` (`user_id`, `tasks`, `tasks_version`) VALUES (NEW.`user_id`, 1, 1)
		ON CONFLICT (`user_id`) DO UPDATE SET `tasks` = `tasks` + 1, `tasks_version` = `tasks_version` + 1;
END;
--> statement-breakpoint
CREATE TRIGGER `generations_stats_delete` AFTER DELETE ON `generations` BEGIN
	UPDATE `user_generation_stats` SET `tasks` = `tasks` - 1, `tasks_version` = `tasks_version` + 1 WHERE `user_id` = OLD.`user_id`;
END;
--> statement-breakpoint
CREATE TRIGGER `generations_stats_owner` AFTER UPDATE OF `user_id` ON `generations` WHEN OLD.`user_id` IS NOT NEW.`user_id` BEGIN
	UPDATE `user_generation_stats` SET `tasks` = `tasks` - 1, `tasks_version` = `tasks_version` + 1 WHERE `user_id` = OLD.`user_id`;
	INSERT INTO `user_generation_stats` (`user_id`, `tasks`, `tasks_version`) VALUES (NEW.`user_id`, 1, 1)
		ON CONFLICT (`user_id`) DO UPDATE SET `tasks` = `tasks` + 1, `tasks_version` = `tasks_version` + 1;
END;
--> statement-breakpoint
INSERT INTO `user_generation_stats` (`user_id`, `tasks`, `tasks_version`) SELECT `user_id`, count(*), count(*) FROM `generations` GROUP BY `user_id`;
