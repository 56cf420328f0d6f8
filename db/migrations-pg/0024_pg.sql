CREATE TABLE "request_joins" (
	"user_id" text NOT NULL,
	"scope" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"gen_ids" text NOT NULL,
	"created_at" bigint NOT NULL,
	"answered_at" bigint,
	CONSTRAINT "request_joins_user_id_scope_key_pk" PRIMARY KEY("user_id","scope","key")
);

--> statement-breakpoint
ALTER TABLE "request_joins" ADD CONSTRAINT "request_joins_user_id_user_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."user"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "request_joins_created_idx" ON "request_joins" USING btree ("created_at");
