CREATE TABLE "collection_items" (
	"collection_id" text NOT NULL,
	"gen_id" text NOT NULL,
	"added_at" bigint NOT NULL,
	CONSTRAINT "collection_items_collection_id_gen_id_pk" PRIMARY KEY("collection_id","gen_id")
);

--> statement-breakpoint
CREATE TABLE "collections" (
	"id" text PRIMARY KEY NOT NULL,
	"user_id" text NOT NULL,
	"name" text NOT NULL,
	"name_key" text NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);

--> statement-breakpoint
ALTER TABLE "collection_items" ADD CONSTRAINT "collection_items_collection_id_collections_id_fk" FOREIGN KEY ("collection_id") REFERENCES "public"."collections"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "collection_items" ADD CONSTRAINT "collection_items_gen_id_generations_id_fk" FOREIGN KEY ("gen_id") REFERENCES "public"."generations"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "collections" ADD CONSTRAINT "collections_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "collection_items_added_idx" ON "collection_items" USING btree ("collection_id","added_at");
--> statement-breakpoint
CREATE INDEX "collection_items_gen_idx" ON "collection_items" USING btree ("gen_id");
--> statement-breakpoint
CREATE UNIQUE INDEX "collections_user_name_idx" ON "collections" USING btree ("user_id","name_key");
--> statement-breakpoint
CREATE INDEX "collections_user_created_idx" ON "collections" USING btree ("user_id","created_at");
