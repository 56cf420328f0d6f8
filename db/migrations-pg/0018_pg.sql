ALTER TABLE "generations" ADD COLUMN "placeholder" text;
