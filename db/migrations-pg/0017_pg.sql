CREATE TABLE "signup_bonus_accounts" (
	"account_hash" text PRIMARY KEY NOT NULL,
	"claimed_at" bigint NOT NULL
);

