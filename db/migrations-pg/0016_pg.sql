ALTER TABLE "generations" ADD COLUMN "compare_id" text;
