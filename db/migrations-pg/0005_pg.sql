CREATE TABLE "user_generation_stats" (
	"user_id" text PRIMARY KEY NOT NULL,
	"tasks" bigint DEFAULT 0 NOT NULL,
	"tasks_version" bigint DEFAULT 0 NOT NULL
);

--> statement-breakpoint
ALTER TABLE "user_generation_stats" ADD CONSTRAINT "user_generation_stats_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE FUNCTION "user_generation_stats_count_tasks"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' OR TG_OP = 'UPDATE' THEN
		UPDATE "user_generation_stats" SET "tasks" = "tasks" - 1, "tasks_version" = "tasks_version" + 1 WHERE "user_id" = OLD."user_id";
	END IF;
	IF TG_OP = 'INSERT' OR TG_OP = 'UPDATE' THEN
		INSERT INTO "user_generation_stats" ("user_id", "tasks", "tasks_version") VALUES (NEW."user_id", 1, 1)
			ON CONFLICT ("user_id") DO UPDATE SET "tasks" = "user_generation_stats"."tasks" + 1, "tasks_version" = "user_generation_stats"."tasks_version" + 1;
	END IF;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "generations_stats_insert_delete" AFTER INSERT OR DELETE ON "generations" FOR EACH ROW EXECUTE FUNCTION "user_generation_stats_count_tasks"();
--> statement-breakpoint
CREATE TRIGGER "generations_stats_owner" AFTER UPDATE OF "user_id" ON "generations" FOR EACH ROW WHEN (OLD."user_id" IS DISTINCT FROM NEW."user_id") EXECUTE FUNCTION "user_generation_stats_count_tasks"();
--> statement-breakpoint
INSERT INTO "user_generation_stats" ("user_id", "tasks", "tasks_version") SELECT "user_id", count(*), count(*) FROM "generations" GROUP BY "user_id";
