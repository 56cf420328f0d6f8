ALTER TABLE "checkouts" ADD COLUMN "credits" bigint;
--> statement-breakpoint
ALTER TABLE "checkouts" ADD COLUMN "amount" bigint;
--> statement-breakpoint
ALTER TABLE "checkouts" ADD COLUMN "currency" text;
--> statement-breakpoint
ALTER TABLE "orders" ADD COLUMN "credits" bigint;
