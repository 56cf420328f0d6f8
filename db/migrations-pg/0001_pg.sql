ALTER TABLE "generations" ADD COLUMN "hidden_at" bigint;
