DROP INDEX "generations_user_status_idx";
--> statement-breakpoint
ALTER TABLE "user_generation_stats" ADD COLUMN "held" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE "user_generation_stats" ADD COLUMN "unfinished" bigint DEFAULT 0 NOT NULL;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "user_generation_stats_count_tasks"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' OR TG_OP = 'UPDATE' THEN
		UPDATE "user_generation_stats" SET "tasks" = "tasks" - 1, "tasks_version" = "tasks_version" + 1,
			"held" = "held" - CASE WHEN OLD."status" IN ('pending', 'processing') THEN OLD."credits_cost" ELSE 0 END,
			"unfinished" = "unfinished" - CASE WHEN OLD."status" IN ('pending', 'processing') THEN 1 ELSE 0 END
		WHERE "user_id" = OLD."user_id";
	END IF;
	IF TG_OP = 'INSERT' OR TG_OP = 'UPDATE' THEN
		INSERT INTO "user_generation_stats" ("user_id", "tasks", "tasks_version", "held", "unfinished")
			VALUES (NEW."user_id", 1, 1, CASE WHEN NEW."status" IN ('pending', 'processing') THEN NEW."credits_cost" ELSE 0 END,
				CASE WHEN NEW."status" IN ('pending', 'processing') THEN 1 ELSE 0 END)
			ON CONFLICT ("user_id") DO UPDATE SET "tasks" = "user_generation_stats"."tasks" + 1, "tasks_version" = "user_generation_stats"."tasks_version" + 1,
				"held" = "user_generation_stats"."held" + EXCLUDED."held", "unfinished" = "user_generation_stats"."unfinished" + EXCLUDED."unfinished";
	END IF;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE FUNCTION "user_generation_stats_hold"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "user_generation_stats" SET
		"held" = "held" - CASE WHEN OLD."status" IN ('pending', 'processing') THEN OLD."credits_cost" ELSE 0 END
			+ CASE WHEN NEW."status" IN ('pending', 'processing') THEN NEW."credits_cost" ELSE 0 END,
		"unfinished" = "unfinished" - CASE WHEN OLD."status" IN ('pending', 'processing') THEN 1 ELSE 0 END
			+ CASE WHEN NEW."status" IN ('pending', 'processing') THEN 1 ELSE 0 END
	WHERE "user_id" = NEW."user_id";
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "generations_stats_held" AFTER UPDATE OF "status", "credits_cost" ON "generations" FOR EACH ROW
	WHEN (OLD."user_id" IS NOT DISTINCT FROM NEW."user_id"
		AND (CASE WHEN OLD."status" IN ('pending', 'processing') THEN OLD."credits_cost" END) IS DISTINCT FROM (CASE WHEN NEW."status" IN ('pending', 'processing') THEN NEW."credits_cost" END))
	EXECUTE FUNCTION "user_generation_stats_hold"();
--> statement-breakpoint
UPDATE "user_generation_stats" s SET
	"held" = (SELECT coalesce(sum(g."credits_cost"), 0) FROM "generations" g WHERE g."user_id" = s."user_id" AND g."status" IN ('pending', 'processing')),
	"unfinished" = (SELECT count(*) FROM "generations" g WHERE g."user_id" = s."user_id" AND g."status" IN ('pending', 'processing'));
