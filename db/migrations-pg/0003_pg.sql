CREATE INDEX "billing_events_outcome_idx" ON "billing_events" USING btree ("outcome");
