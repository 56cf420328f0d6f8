-- The placement triggers' statements planned with each call's own values: a plan made once for any owner and place
-- (PostgreSQL's generic plan of a PL/pgSQL statement) scanned the whole table to move a few newer rows.
ALTER FUNCTION "gallery_entries_place"() SET plan_cache_mode = force_custom_plan;
--> statement-breakpoint
ALTER FUNCTION "generations_seq_place"() SET plan_cache_mode = force_custom_plan;
--> statement-breakpoint
-- Closing a gap: the renumbering alone is planned with the call's values (EXECUTE … USING), so a deleted account's
-- cascade, which skips it, still costs one cached check per row.
CREATE OR REPLACE FUNCTION "gallery_entries_close"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- An entry deleted with its owner (the cascade) or from a deleted account closes no gap: the whole gallery goes.
	IF EXISTS (SELECT 1 FROM "user" WHERE "id" = OLD."user_id" AND "deleted_at" IS NULL) THEN
		EXECUTE 'UPDATE "gallery_entries" SET "seq" = "seq" - 1 WHERE "user_id" = $1 AND "grp" = $2 AND "seq" > $3'
			USING OLD."user_id", OLD."grp", OLD."seq";
	END IF;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "generations_seq_close"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- A task deleted with its owner (the account's cascade) closes no gap: the whole history goes.
	IF EXISTS (SELECT 1 FROM "user" WHERE "id" = OLD."user_id") THEN
		EXECUTE 'UPDATE "generations" SET "user_seq" = "user_seq" - 1 WHERE "user_id" = $1 AND "user_seq" > $2'
			USING OLD."user_id", OLD."user_seq";
	END IF;
	RETURN NULL;
END
$$;
