CREATE TABLE `gallery_entries` (
	`gen_id` text NOT NULL,
	`grp` text NOT NULL,
	`user_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`seq` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`gen_id`, `grp`),
	FOREIGN KEY (`user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `gallery_entries_place_idx` ON `gallery_entries` (`user_id`,`grp`,`created_at`,`gen_id`);--> statement-breakpoint
CREATE INDEX `gallery_entries_seq_idx` ON `gallery_entries` (`user_id`,`grp`,`seq`);--> statement-breakpoint
CREATE TABLE `user_task_counts` (
	`user_id` text NOT NULL,
	`ai_type` text NOT NULL,
	`status` text NOT NULL,
	`tasks` integer DEFAULT 0 NOT NULL,
	`hidden` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`user_id`, `ai_type`, `status`),
	FOREIGN KEY (`user_id`) REFERENCES `user`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `user_task_counts` (`user_id`, `ai_type`, `status`, `tasks`, `hidden`)
	SELECT `user_id`, `ai_type`, `status`, count(*), sum(`hidden_at` IS NOT NULL) FROM `generations` GROUP BY `user_id`, `ai_type`, `status`;
--> statement-breakpoint
CREATE TRIGGER `generations_counts_insert` AFTER INSERT ON `generations` BEGIN
	INSERT INTO `user_task_counts` (`user_id`, `ai_type`, `status`, `tasks`, `hidden`)
		VALUES (NEW.`user_id`, NEW.`ai_type`, NEW.`status`, 1, NEW.`hidden_at` IS NOT NULL)
		ON CONFLICT (`user_id`, `ai_type`, `status`) DO UPDATE SET `tasks` = `tasks` + 1, `hidden` = `hidden` + excluded.`hidden`;
END;
--> statement-breakpoint
CREATE TRIGGER `generations_counts_delete` AFTER DELETE ON `generations` BEGIN
	UPDATE `user_task_counts` SET `tasks` = `tasks` - 1, `hidden` = `hidden` - (OLD.`hidden_at` IS NOT NULL)
		WHERE `user_id` = OLD.`user_id` AND `ai_type` = OLD.`ai_type` AND `status` = OLD.`status`;
END;
--> statement-breakpoint
CREATE TRIGGER `generations_counts_update` AFTER UPDATE OF `user_id`, `ai_type`, `status`, `hidden_at` ON `generations`
WHEN OLD.`user_id` IS NOT NEW.`user_id` OR OLD.`ai_type` IS NOT NEW.`ai_type` OR OLD.`status` IS NOT NEW.`status`
	OR (OLD.`hidden_at` IS NULL) <> (NEW.`hidden_at` IS NULL) BEGIN
	UPDATE `user_task_counts` SET `tasks` = `tasks` - 1, `hidden` = `hidden` - (OLD.`hidden_at` IS NOT NULL)
		WHERE `user_id` = OLD.`user_id` AND `ai_type` = OLD.`ai_type` AND `status` = OLD.`status`;
	INSERT INTO `user_task_counts` (`user_id`, `ai_type`, `status`, `tasks`, `hidden`)
		VALUES (NEW.`user_id`, NEW.`ai_type`, NEW.`status`, 1, NEW.`hidden_at` IS NOT NULL)
		ON CONFLICT (`user_id`, `ai_type`, `status`) DO UPDATE SET `tasks` = `tasks` + 1, `hidden` = `hidden` + excluded.`hidden`;
END;
--> statement-breakpoint
INSERT INTO `gallery_entries` (`gen_id`, `grp`, `user_id`, `created_at`, `seq`)
	SELECT `id`, `grp`, `user_id`, `created_at`, row_number() OVER (PARTITION BY `user_id`, `grp` ORDER BY `created_at`, `id`) FROM (
		SELECT `id`, '' AS `grp`, `user_id`, `created_at` FROM `generations` WHERE `hidden_at` IS NULL
		UNION ALL SELECT `id`, `ai_type`, `user_id`, `created_at` FROM `generations` WHERE `hidden_at` IS NULL
		UNION ALL SELECT `id`, `status`, `user_id`, `created_at` FROM `generations`
			WHERE `hidden_at` IS NULL AND `status` IN ('completed', 'failed')
		UNION ALL SELECT `id`, `ai_type` || ' ' || `status`, `user_id`, `created_at` FROM `generations`
			WHERE `hidden_at` IS NULL AND `status` IN ('completed', 'failed')
	) AS e;
--> statement-breakpoint
CREATE TRIGGER `gallery_entries_place` AFTER INSERT ON `gallery_entries` BEGIN
	UPDATE `gallery_entries` SET `seq` = `seq` + 1
		WHERE `user_id` = NEW.`user_id` AND `grp` = NEW.`grp` AND `created_at` >= NEW.`created_at` AND (`created_at` > NEW.`created_at` OR `gen_id` > NEW.`gen_id`);
	UPDATE `gallery_entries` SET `seq` = 1 + coalesce((SELECT e.`seq` FROM `gallery_entries` e
		WHERE e.`user_id` = NEW.`user_id` AND e.`grp` = NEW.`grp` AND e.`created_at` <= NEW.`created_at` AND (e.`created_at` < NEW.`created_at` OR e.`gen_id` < NEW.`gen_id`)
		ORDER BY e.`created_at` DESC, e.`gen_id` DESC LIMIT 1), 0)
	WHERE `gen_id` = NEW.`gen_id` AND `grp` = NEW.`grp`;
END;
--> statement-breakpoint
CREATE TRIGGER `gallery_entries_close` AFTER DELETE ON `gallery_entries`
WHEN EXISTS (SELECT 1 FROM `user` WHERE `id` = OLD.`user_id` AND `deleted_at` IS NULL) BEGIN
	UPDATE `gallery_entries` SET `seq` = `seq` - 1 WHERE `user_id` = OLD.`user_id` AND `grp` = OLD.`grp` AND `seq` > OLD.`seq`;
END;
--> statement-breakpoint
CREATE TRIGGER `generations_gallery_insert` AFTER INSERT ON `generations` WHEN NEW.`hidden_at` IS NULL BEGIN
	INSERT INTO `gallery_entries` (`gen_id`, `grp`, `user_id`, `created_at`)
		SELECT NEW.`id`, `g`, NEW.`user_id`, NEW.`created_at` FROM (
			SELECT '' AS `g` UNION ALL SELECT NEW.`ai_type`
			UNION ALL SELECT NEW.`status` WHERE NEW.`status` IN ('completed', 'failed')
			UNION ALL SELECT NEW.`ai_type` || ' ' || NEW.`status` WHERE NEW.`status` IN ('completed', 'failed'));
END;
--> statement-breakpoint
CREATE TRIGGER `generations_gallery_delete` AFTER DELETE ON `generations` WHEN OLD.`hidden_at` IS NULL BEGIN
	DELETE FROM `gallery_entries` WHERE `gen_id` = OLD.`id`;
END;
--> statement-breakpoint
CREATE TRIGGER `generations_gallery_update` AFTER UPDATE OF `id`, `user_id`, `created_at`, `ai_type`, `status`, `hidden_at` ON `generations`
WHEN OLD.`id` IS NOT NEW.`id` OR OLD.`user_id` IS NOT NEW.`user_id` OR OLD.`created_at` IS NOT NEW.`created_at`
	OR OLD.`ai_type` IS NOT NEW.`ai_type` OR (OLD.`hidden_at` IS NULL) <> (NEW.`hidden_at` IS NULL)
	OR (CASE WHEN OLD.`status` IN ('completed', 'failed') THEN OLD.`status` END) IS NOT (CASE WHEN NEW.`status` IN ('completed', 'failed') THEN NEW.`status` END) BEGIN
	DELETE FROM `gallery_entries` WHERE `gen_id` = OLD.`id` AND (NEW.`hidden_at` IS NOT NULL OR OLD.`id` IS NOT NEW.`id`
		OR OLD.`user_id` IS NOT NEW.`user_id` OR OLD.`created_at` IS NOT NEW.`created_at`
		OR `grp` NOT IN ('', NEW.`ai_type`, CASE WHEN NEW.`status` IN ('completed', 'failed') THEN NEW.`status` ELSE '' END,
			CASE WHEN NEW.`status` IN ('completed', 'failed') THEN NEW.`ai_type` || ' ' || NEW.`status` ELSE '' END));
	INSERT INTO `gallery_entries` (`gen_id`, `grp`, `user_id`, `created_at`)
		SELECT NEW.`id`, `g`, NEW.`user_id`, NEW.`created_at` FROM (
			SELECT '' AS `g` UNION ALL SELECT NEW.`ai_type`
			UNION ALL SELECT NEW.`status` WHERE NEW.`status` IN ('completed', 'failed')
			UNION ALL SELECT NEW.`ai_type` || ' ' || NEW.`status` WHERE NEW.`status` IN ('completed', 'failed'))
		WHERE NEW.`hidden_at` IS NULL
		ON CONFLICT (`gen_id`, `grp`) DO NOTHING;
END;
