CREATE TABLE "gallery_entries" (
	"gen_id" text NOT NULL,
	"grp" text NOT NULL,
	"user_id" text NOT NULL,
	"created_at" bigint NOT NULL,
	"seq" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "gallery_entries_gen_id_grp_pk" PRIMARY KEY("gen_id","grp")
);

--> statement-breakpoint
CREATE TABLE "user_task_counts" (
	"user_id" text NOT NULL,
	"ai_type" text NOT NULL,
	"status" text NOT NULL,
	"tasks" bigint DEFAULT 0 NOT NULL,
	"hidden" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "user_task_counts_user_id_ai_type_status_pk" PRIMARY KEY("user_id","ai_type","status")
);

--> statement-breakpoint
ALTER TABLE "gallery_entries" ADD CONSTRAINT "gallery_entries_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "user_task_counts" ADD CONSTRAINT "user_task_counts_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "gallery_entries_place_idx" ON "gallery_entries" USING btree ("user_id","grp","created_at","gen_id");
--> statement-breakpoint
CREATE INDEX "gallery_entries_seq_idx" ON "gallery_entries" USING btree ("user_id","grp","seq");
--> statement-breakpoint
INSERT INTO "user_task_counts" ("user_id", "ai_type", "status", "tasks", "hidden")
	SELECT "user_id", "ai_type", "status", count(*), count("hidden_at") FROM "generations" GROUP BY "user_id", "ai_type", "status";
--> statement-breakpoint
CREATE FUNCTION "user_task_counts_count"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' OR TG_OP = 'UPDATE' THEN
		UPDATE "user_task_counts" SET "tasks" = "tasks" - 1, "hidden" = "hidden" - CASE WHEN OLD."hidden_at" IS NULL THEN 0 ELSE 1 END
			WHERE "user_id" = OLD."user_id" AND "ai_type" = OLD."ai_type" AND "status" = OLD."status";
	END IF;
	IF TG_OP = 'INSERT' OR TG_OP = 'UPDATE' THEN
		INSERT INTO "user_task_counts" ("user_id", "ai_type", "status", "tasks", "hidden")
			VALUES (NEW."user_id", NEW."ai_type", NEW."status", 1, CASE WHEN NEW."hidden_at" IS NULL THEN 0 ELSE 1 END)
			ON CONFLICT ("user_id", "ai_type", "status") DO UPDATE SET "tasks" = "user_task_counts"."tasks" + 1,
				"hidden" = "user_task_counts"."hidden" + EXCLUDED."hidden";
	END IF;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "generations_counts" AFTER INSERT OR DELETE ON "generations"
	FOR EACH ROW EXECUTE FUNCTION "user_task_counts_count"();
--> statement-breakpoint
CREATE TRIGGER "generations_counts_move" AFTER UPDATE OF "user_id", "ai_type", "status", "hidden_at" ON "generations" FOR EACH ROW
	WHEN (OLD."user_id" IS DISTINCT FROM NEW."user_id" OR OLD."ai_type" IS DISTINCT FROM NEW."ai_type"
		OR OLD."status" IS DISTINCT FROM NEW."status" OR (OLD."hidden_at" IS NULL) <> (NEW."hidden_at" IS NULL))
	EXECUTE FUNCTION "user_task_counts_count"();
--> statement-breakpoint
INSERT INTO "gallery_entries" ("gen_id", "grp", "user_id", "created_at", "seq")
	SELECT "id", "grp", "user_id", "created_at", row_number() OVER (PARTITION BY "user_id", "grp" ORDER BY "created_at", "id") FROM (
		SELECT "id", '' AS "grp", "user_id", "created_at" FROM "generations" WHERE "hidden_at" IS NULL
		UNION ALL SELECT "id", "ai_type", "user_id", "created_at" FROM "generations" WHERE "hidden_at" IS NULL
		UNION ALL SELECT "id", "status", "user_id", "created_at" FROM "generations"
			WHERE "hidden_at" IS NULL AND "status" IN ('completed', 'failed')
		UNION ALL SELECT "id", "ai_type" || ' ' || "status", "user_id", "created_at" FROM "generations"
			WHERE "hidden_at" IS NULL AND "status" IN ('completed', 'failed')
	) AS e;
--> statement-breakpoint
CREATE FUNCTION "gallery_entries_place"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	UPDATE "gallery_entries" SET "seq" = "seq" + 1
		WHERE "user_id" = NEW."user_id" AND "grp" = NEW."grp" AND ("created_at", "gen_id") > (NEW."created_at", NEW."gen_id");
	NEW."seq" := 1 + coalesce((SELECT e."seq" FROM "gallery_entries" e
		WHERE e."user_id" = NEW."user_id" AND e."grp" = NEW."grp" AND (e."created_at", e."gen_id") < (NEW."created_at", NEW."gen_id")
		ORDER BY e."created_at" DESC, e."gen_id" DESC LIMIT 1), 0);
	RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "gallery_entries_place" BEFORE INSERT ON "gallery_entries"
	FOR EACH ROW EXECUTE FUNCTION "gallery_entries_place"();
--> statement-breakpoint
CREATE FUNCTION "gallery_entries_close"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- An entry deleted with its owner (the cascade) or from a deleted account closes no gap: the whole gallery goes.
	IF EXISTS (SELECT 1 FROM "user" WHERE "id" = OLD."user_id" AND "deleted_at" IS NULL) THEN
		UPDATE "gallery_entries" SET "seq" = "seq" - 1 WHERE "user_id" = OLD."user_id" AND "grp" = OLD."grp" AND "seq" > OLD."seq";
	END IF;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "gallery_entries_close" AFTER DELETE ON "gallery_entries"
	FOR EACH ROW EXECUTE FUNCTION "gallery_entries_close"();
--> statement-breakpoint
CREATE FUNCTION "generations_gallery"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
	kept text[];
BEGIN
	IF TG_OP = 'DELETE' THEN
		DELETE FROM "gallery_entries" WHERE "gen_id" = OLD."id";
		RETURN NULL;
	END IF;
	IF TG_OP = 'UPDATE' THEN
		-- One writer of a user's gallery at a time (two would take the same place); taken before the AFTER triggers
		-- write the user's figures, as a task's creation does.
		PERFORM 1 FROM "user" WHERE "id" IN (OLD."user_id", NEW."user_id") ORDER BY "id" FOR NO KEY UPDATE;
		kept := CASE WHEN NEW."hidden_at" IS NOT NULL OR OLD."id" IS DISTINCT FROM NEW."id" OR OLD."user_id" IS DISTINCT FROM NEW."user_id"
				OR OLD."created_at" IS DISTINCT FROM NEW."created_at" THEN ARRAY[]::text[]
			WHEN NEW."status" IN ('completed', 'failed') THEN ARRAY['', NEW."ai_type", NEW."status", NEW."ai_type" || ' ' || NEW."status"]
			ELSE ARRAY['', NEW."ai_type"] END;
		DELETE FROM "gallery_entries" WHERE "gen_id" = OLD."id" AND NOT ("grp" = ANY (kept));
	END IF;
	IF NEW."hidden_at" IS NULL THEN
		INSERT INTO "gallery_entries" ("gen_id", "grp", "user_id", "created_at")
			SELECT NEW."id", g, NEW."user_id", NEW."created_at" FROM unnest(CASE WHEN NEW."status" IN ('completed', 'failed')
				THEN ARRAY['', NEW."ai_type", NEW."status", NEW."ai_type" || ' ' || NEW."status"] ELSE ARRAY['', NEW."ai_type"] END) AS g
			-- Only the lists it is not in yet: the BEFORE INSERT trigger would place a row ON CONFLICT then skips.
			WHERE NOT EXISTS (SELECT 1 FROM "gallery_entries" e WHERE e."gen_id" = NEW."id" AND e."grp" = g);
	END IF;
	IF TG_OP = 'UPDATE' THEN
		RETURN NEW;
	END IF;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "generations_gallery_insert" AFTER INSERT ON "generations" FOR EACH ROW WHEN (NEW."hidden_at" IS NULL)
	EXECUTE FUNCTION "generations_gallery"();
--> statement-breakpoint
CREATE TRIGGER "generations_gallery_delete" AFTER DELETE ON "generations" FOR EACH ROW WHEN (OLD."hidden_at" IS NULL)
	EXECUTE FUNCTION "generations_gallery"();
--> statement-breakpoint
CREATE TRIGGER "generations_gallery_move" BEFORE UPDATE OF "id", "user_id", "created_at", "ai_type", "status", "hidden_at" ON "generations" FOR EACH ROW
	WHEN (OLD."id" IS DISTINCT FROM NEW."id" OR OLD."user_id" IS DISTINCT FROM NEW."user_id" OR OLD."created_at" IS DISTINCT FROM NEW."created_at"
		OR OLD."ai_type" IS DISTINCT FROM NEW."ai_type" OR (OLD."hidden_at" IS NULL) <> (NEW."hidden_at" IS NULL)
		OR (CASE WHEN OLD."status" IN ('completed', 'failed') THEN OLD."status" END) IS DISTINCT FROM (CASE WHEN NEW."status" IN ('completed', 'failed') THEN NEW."status" END))
	EXECUTE FUNCTION "generations_gallery"();
