/**
 * "Send test event" (docs/events.md "Testing an endpoint"): a signed `webhook.test` event to one endpoint, through
 * the same outbox and dispatcher as real events, so it is signed, logged in the delivery log and retried like them.
 * It goes to that endpoint only, whatever its event filter and status (a disabled endpoint is not re-enabled by it:
 * a resend does that). Each test takes a slot of the user's resend allowance: it makes the server POST to a URL the
 * user chose, which must stay bounded (RESENDS_PER_HOUR).
 */
import type { Db } from "#db/client";
import { run } from "#db/client";
import { webhookDeliveries, webhookEvents } from "#db/schema";
import { takeOrRefuse } from "~/domain/rate-limits/limiter.server";
import type { Clock } from "~/lib/clock";
import { WEBHOOK_TEST_EVENT } from "./events";
import { newId, newMessageId } from "./outbox.server";
import { ownWebhook, RESEND_POLICY } from "./webhooks.server";

export interface SendTestEventDeps {
  db: Db;
  clock: Clock;
}

export async function sendTestEvent({ db, clock }: SendTestEventDeps, args: { userId: string; webhookId: string }) {
  const endpoint = await ownWebhook(db, args.userId, args.webhookId);
  await takeOrRefuse(db, `webhook-resend:${args.userId}`, RESEND_POLICY, clock.now());
  const now = clock.now();
  const eventId = newMessageId();
  const deliveryId = newId("dlv");
  const payload = JSON.stringify({
    type: WEBHOOK_TEST_EVENT,
    timestamp: new Date(now).toISOString(),
    data: {
      webhook_id: endpoint.id,
      message: "A test event from Atelier: your endpoint is reachable and can verify the signature.",
    },
  });
  await db.tx(function* (t) {
    // No task: gen_id is empty in the table (the delivery log shows null).
    yield* run(
      t.insert(webhookEvents).values({
        id: eventId,
        userId: args.userId,
        type: WEBHOOK_TEST_EVENT,
        genId: "",
        payload,
        createdAt: now,
      }),
    );
    yield* run(
      t.insert(webhookDeliveries).values({
        id: deliveryId,
        eventId,
        endpointId: endpoint.id,
        status: "pending",
        nextAttemptAt: now,
        createdAt: now,
      }),
    );
  });
  return { webhook_id: endpoint.id, event_id: eventId, delivery_id: deliveryId, status: "pending" as const };
}
