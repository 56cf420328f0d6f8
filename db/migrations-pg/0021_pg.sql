ALTER TABLE "catalog_models" ADD COLUMN "pricing" text;
