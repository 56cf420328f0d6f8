/**
 * Success messages of the account endpoints (spec 4.10–4.12). Error messages
 * live in app/lib/errors.ts; these are the `message` of code-0 envelopes and
 * are pinned by tests, so change them only on purpose.
 */
export const MESSAGES = {
  /** Spec 4.10 rule 1: the first ping of the UTC day. */
  PING_ADDED: "ping ok: 1 credit added",
  /** Spec 4.10 rule 2: a further ping that day. */
  PING_ALREADY: "already pinged today",
  AFFILIATE_UPDATED: "affiliate status updated",
  /** Spec 4.12. */
  FEEDBACK_RECEIVED: "feedback received, thank you",
  CREDITS_GRANTED: "credits granted",
  SUBSCRIPTION_CREATED: "subscription created",
} as const;

/** What the user center shows after its forms. */
export const UI_MESSAGES = {
  CHECKIN_ADDED: "Checked in: 1 credit added, valid for 365 days.",
  CHECKIN_ALREADY: "You already checked in today. The next check-in opens at 00:00 UTC.",
  AFFILIATE_ON: "You are now an affiliate. Share your invite link.",
  AFFILIATE_OFF: "Affiliate status turned off.",
  FEEDBACK_SENT: "Thank you! Your feedback was received.",
  FEEDBACK_LIMITED: "You have sent a lot of feedback in the last hour. Please try again a little later.",
} as const;
