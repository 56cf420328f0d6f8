ALTER TABLE "webhook_endpoints" ADD COLUMN "api_key_id" text;
