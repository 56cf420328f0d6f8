CREATE TABLE "catalog_models" (
	"ai_type" text NOT NULL,
	"provider" text NOT NULL,
	"model" text NOT NULL,
	"label" text NOT NULL,
	"credits" bigint NOT NULL,
	"enabled" integer DEFAULT 1 NOT NULL,
	"requires_plan" integer DEFAULT 0 NOT NULL,
	"upstream_model" text,
	"options" text DEFAULT '{}' NOT NULL,
	"lifecycle" text NOT NULL,
	"typical_seconds" bigint NOT NULL,
	"sample" text DEFAULT '' NOT NULL,
	"cost_micros" bigint,
	"cost_per" text,
	"sort_order" bigint DEFAULT 0 NOT NULL,
	"source" text DEFAULT 'seed' NOT NULL,
	"revision" bigint DEFAULT 1 NOT NULL,
	"created_at" bigint DEFAULT (floor(extract(epoch from clock_timestamp()) * 1000))::bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	CONSTRAINT "catalog_models_ai_type_provider_model_pk" PRIMARY KEY("ai_type","provider","model")
);

