ALTER TABLE "generations" ADD COLUMN "renditions" text;
