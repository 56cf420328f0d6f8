CREATE TABLE "user_credit_stats" (
	"user_id" text PRIMARY KEY NOT NULL,
	"granted" bigint DEFAULT 0 NOT NULL
);

--> statement-breakpoint
DROP INDEX "credit_grants_user_idx";
--> statement-breakpoint
ALTER TABLE "generations" ADD COLUMN "user_seq" bigint;
--> statement-breakpoint
ALTER TABLE "user_credit_stats" ADD CONSTRAINT "user_credit_stats_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "checkouts_open_idx" ON "checkouts" USING btree ("created_at") WHERE status = 'open';
--> statement-breakpoint
CREATE INDEX "credit_grants_live_idx" ON "credit_grants" USING btree ("user_id","expires_at") WHERE remaining > 0;
--> statement-breakpoint
CREATE INDEX "generations_user_seq_idx" ON "generations" USING btree ("user_id","user_seq");
--> statement-breakpoint
CREATE INDEX "generations_user_unfinished_idx" ON "generations" USING btree ("user_id","created_at","id") WHERE status IN ('pending', 'processing');
--> statement-breakpoint
CREATE INDEX "generations_user_finished_idx" ON "generations" USING btree ("user_id","completed_at") WHERE status IN ('completed', 'failed');
--> statement-breakpoint
CREATE INDEX "generations_user_hidden_idx" ON "generations" USING btree ("user_id") WHERE hidden_at IS NOT NULL;
--> statement-breakpoint
CREATE INDEX "orders_active_sub_idx" ON "orders" USING btree ("user_id","period_end") WHERE kind = 'subscription' AND status = 'paid';
--> statement-breakpoint
CREATE INDEX "session_expires_idx" ON "session" USING btree ("expires_at");
--> statement-breakpoint
CREATE INDEX "verification_expires_idx" ON "verification" USING btree ("expires_at");
--> statement-breakpoint
CREATE INDEX "webhook_events_created_idx" ON "webhook_events" USING btree ("created_at");
--> statement-breakpoint
CREATE INDEX "credit_grants_user_idx" ON "credit_grants" USING btree ("user_id","created_at","id");
--> statement-breakpoint
INSERT INTO "user_credit_stats" ("user_id", "granted") SELECT "user_id", sum("amount") FROM "credit_grants" GROUP BY "user_id";
--> statement-breakpoint
CREATE FUNCTION "user_credit_stats_count"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' OR TG_OP = 'UPDATE' THEN
		UPDATE "user_credit_stats" SET "granted" = "granted" - OLD."amount" WHERE "user_id" = OLD."user_id";
	END IF;
	IF TG_OP = 'INSERT' OR TG_OP = 'UPDATE' THEN
		INSERT INTO "user_credit_stats" ("user_id", "granted") VALUES (NEW."user_id", NEW."amount")
			ON CONFLICT ("user_id") DO UPDATE SET "granted" = "user_credit_stats"."granted" + EXCLUDED."granted";
	END IF;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "credit_grants_stats" AFTER INSERT OR DELETE OR UPDATE OF "amount", "user_id" ON "credit_grants"
	FOR EACH ROW EXECUTE FUNCTION "user_credit_stats_count"();
--> statement-breakpoint
UPDATE "generations" g SET "user_seq" = r."n" FROM (
	SELECT "id", row_number() OVER (PARTITION BY "user_id" ORDER BY "created_at", "id") AS "n" FROM "generations"
) r WHERE g."id" = r."id";
--> statement-breakpoint
CREATE FUNCTION "generations_seq_place"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- One writer per user at a time: two concurrent inserts would otherwise take the same place.
	PERFORM 1 FROM "user" WHERE "id" = NEW."user_id" FOR NO KEY UPDATE;
	IF TG_OP = 'UPDATE' THEN
		UPDATE "generations" SET "user_seq" = "user_seq" - 1
			WHERE "user_id" = OLD."user_id" AND "user_seq" > OLD."user_seq" AND "id" <> OLD."id";
		UPDATE "generations" SET "user_seq" = "user_seq" + 1
			WHERE "user_id" = NEW."user_id" AND ("created_at", "id") > (NEW."created_at", NEW."id") AND "id" <> OLD."id";
	ELSE
		UPDATE "generations" SET "user_seq" = "user_seq" + 1
			WHERE "user_id" = NEW."user_id" AND ("created_at", "id") > (NEW."created_at", NEW."id");
	END IF;
	NEW."user_seq" := 1 + coalesce((SELECT g."user_seq" FROM "generations" g
		WHERE g."user_id" = NEW."user_id" AND (g."created_at", g."id") < (NEW."created_at", NEW."id")
			AND (TG_OP = 'INSERT' OR g."id" <> OLD."id")
		ORDER BY g."created_at" DESC, g."id" DESC LIMIT 1), 0);
	RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "generations_seq_insert" BEFORE INSERT ON "generations"
	FOR EACH ROW EXECUTE FUNCTION "generations_seq_place"();
--> statement-breakpoint
CREATE TRIGGER "generations_seq_move" BEFORE UPDATE OF "user_id", "created_at", "id" ON "generations" FOR EACH ROW
	WHEN (OLD."user_id" IS DISTINCT FROM NEW."user_id" OR OLD."created_at" IS DISTINCT FROM NEW."created_at" OR OLD."id" IS DISTINCT FROM NEW."id")
	EXECUTE FUNCTION "generations_seq_place"();
--> statement-breakpoint
CREATE FUNCTION "generations_seq_close"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	-- A task deleted with its owner (the account's cascade) closes no gap: the whole history goes.
	IF EXISTS (SELECT 1 FROM "user" WHERE "id" = OLD."user_id") THEN
		UPDATE "generations" SET "user_seq" = "user_seq" - 1 WHERE "user_id" = OLD."user_id" AND "user_seq" > OLD."user_seq";
	END IF;
	RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "generations_seq_delete" AFTER DELETE ON "generations"
	FOR EACH ROW EXECUTE FUNCTION "generations_seq_close"();
