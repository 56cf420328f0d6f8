import { Link } from "react-router";
import { Code, DocsNav, InlineCode, MethodBadge } from "~/components/docs";
import { Card, DataTable, PageHeader } from "~/components/ui";
import { buildDocs } from "~/http/api-docs.server";
import { getServices } from "~/http/services.server";
import type { Route } from "./+types/docs";

export const meta: Route.MetaFunction = () => [
  { title: "API reference — Atelier" },
  {
    name: "description",
    content: "Atelier's HTTP API: endpoints, authentication, polling, rate limits and error messages.",
  },
];

export function loader() {
  const { config } = getServices();
  return buildDocs(config.publicUrl, {
    standard: config.RATE_LIMIT_STANDARD,
    premium: config.RATE_LIMIT_PREMIUM,
    admin: config.RATE_LIMIT_ADMIN,
    windowSeconds: Math.round(config.RATE_LIMIT_WINDOW_MS / 1000),
  });
}

export default function Docs({ loaderData }: Route.ComponentProps) {
  const { base, endpoints, errorTable, tags, limits, pollingExample, envelopeExample, webhookExamples } = loaderData;
  return (
    <div className="lg:grid lg:grid-cols-[14rem_minmax(0,1fr)] lg:gap-8">
      <DocsNav tags={tags} endpoints={endpoints} />

      <div className="min-w-0 space-y-10">
        <PageHeader
          title="API reference"
          description={
            <>
              Every endpoint of Atelier. Machine-readable:{" "}
              <a className="link" href="/api/openapi.json">
                OpenAPI 3.1 document
              </a>
              .
            </>
          }
        />

        <Card id="basics" anchor size="lg" title="Basics" className="space-y-3 text-sm">
          <p>
            All endpoints take <code>POST</code> with a JSON body (except <code>GET /api/health</code> and{" "}
            <code>GET /api/openapi.json</code>) and answer the envelope <code>{"{code, message, data}"}</code>:{" "}
            <code>code</code> 0 on success, 1 on error; <code>data</code> is <code>null</code> when there is none.
            Envelope errors come with HTTP 200; a bad key is HTTP 401, a key over its rate limit HTTP 429, an unexpected
            fault HTTP 500 — always with the same envelope.
          </p>
          <Code label="Envelope example">{envelopeExample}</Code>
        </Card>

        <Card id="auth" anchor size="lg" title="Authentication" className="space-y-3 text-sm">
          <p>
            <strong>API key</strong> — create one on the{" "}
            <a className="link" href="/keys">
              API keys
            </a>{" "}
            page and send it as the <code>X-API-Key</code> header. The request then acts as the key's owner; an admin's
            key reaches admin endpoints. When the header is present it decides alone: an unknown or mistyped key answers
            HTTP 401 <code>API key not found</code>, a revoked one HTTP 401 <code>API key revoked</code>.
          </p>
          <p>
            <strong>Session</strong> — the browser's <code>atelier.session_token</code> cookie, set by signing in (or by{" "}
            <code>POST /api/auth/sign-in/email</code>; with curl, its example keeps the cookie in{" "}
            <code>cookies.txt</code> and the session examples send it back with <code>-b cookies.txt</code>). Key
            management (<code>/api/keys/*</code>) accepts only a session.
          </p>
          <p>
            Not signed in: <code>{'{code: 1, message: "no auth, please sign-in", data: null}'}</code>.
          </p>
          <Code label="First request with a key">{`export ATELIER_API_KEY=atl_…   # from the API keys page
curl -s -X POST ${base}/api/get-user-credits \\
  -H "X-API-Key: $ATELIER_API_KEY"`}</Code>
        </Card>

        <Card id="polling" anchor size="lg" title="Generating: create, then poll" className="space-y-3 text-sm">
          <p>
            <code>/api/generator/generate</code> answers at once with a <code>gen_id</code> and status{" "}
            <code>pending</code>; the task runs in the background (pending → processing → completed or failed). Poll{" "}
            <code>/api/generator/query</code> <strong>about every 3 seconds</strong> and{" "}
            <strong>stop after 60 attempts (5 minutes)</strong>. A failed task is still <code>code: 0</code> — the
            failure is in <code>data.status</code> and <code>data.error_message</code>, and it costs nothing. Credits
            are deducted only when a task completes.
          </p>
          <Code label="Polling example (fetch)">{pollingExample}</Code>
          <p>
            Instead of polling you can follow the task (
            <a className="link" href="#events">
              live status
            </a>
            ) or receive a{" "}
            <a className="link" href="#events">
              webhook
            </a>
            .
          </p>
        </Card>

        <Card
          id="events"
          anchor
          size="lg"
          title="Events: safe retries, cancel, webhooks, live status"
          className="space-y-3 text-sm"
        >
          <p>
            <strong>Safe retries.</strong> Send an <code>Idempotency-Key</code> header with generate. The same key from
            the same user within 24 h answers the first response again (same <code>gen_id</code>) without creating or
            charging anything; the same key with a different body answers HTTP 409{" "}
            <code>invalid params: Idempotency-Key reused with a different request</code>.
          </p>
          <Code label="Idempotent create (curl)">{webhookExamples.idempotency}</Code>
          <p>
            <strong>Cancel.</strong> <code>POST /api/generator/cancel {"{gen_id}"}</code> ends a pending or processing
            task as <code>failed</code> with <code>error_message</code> <code>canceled</code>; it is never charged, and
            Replicate and Runway jobs are canceled upstream too. A live task already running at its provider has been
            paid for there: at most 10 such cancels an hour per user, then HTTP 429 and the task runs on.
          </p>
          <p>
            <strong>Webhooks</strong> (
            <a className="link" href="https://www.standardwebhooks.com/">
              Standard Webhooks
            </a>
            ). Add an endpoint with <code>/api/webhooks/create</code> or on the{" "}
            <a className="link" href="/keys#webhooks">
              API keys page
            </a>
            . Atelier POSTs <code>generation.completed</code> and <code>generation.failed</code> as{" "}
            <code>{"{type, timestamp, data}"}</code>, where <code>data</code> is exactly the query response, with the
            headers <code>webhook-id</code> (the same on every retry: dedupe on it), <code>webhook-timestamp</code> and{" "}
            <code>webhook-signature</code>. Answer any 2xx within 10 s; otherwise the event is retried (5 s, 5 min, 30
            min, 2 h, 5 h, 10 h, 10 h). An endpoint without a successful delivery for 3 days is disabled, with the
            reason in <code>/api/webhooks/list</code>; <code>/api/webhooks/deliveries</code> shows every attempt and{" "}
            <code>/api/webhooks/resend</code> sends one again. Webhook URLs must resolve to public addresses.
          </p>
          <Code label="Create an endpoint (curl)">{webhookExamples.create}</Code>
          <Code label="Verify and handle events (JavaScript, standardwebhooks)">{webhookExamples.verify}</Code>
          <Code label="Verify by hand (node:crypto)">{webhookExamples.verifyByHand}</Code>
          <p>
            <strong>Live status.</strong> <code>GET /api/generator/stream?gen_id=…</code> is a Server-Sent Events
            stream: an <code>event: status</code> with the query data at once and on every change, closed after the
            final status.
          </p>
          <Code label="Follow a task (EventSource, curl)">{webhookExamples.stream}</Code>
        </Card>

        <Card id="rate-limits" anchor size="lg" title="Rate limits" className="space-y-3 text-sm">
          <p>
            Requests with an API key are limited per user — all of a user's keys share one limit — to {limits.standard}{" "}
            per {limits.windowSeconds} seconds for standard users, {limits.premium} for premium users and {limits.admin}{" "}
            for admins: a burst of that many at once, then the quota refills evenly over the window. Every key response
            carries:
          </p>
          <ul className="list-disc space-y-1 pl-6">
            <li>
              <code>
                RateLimit-Policy: "standard";q={limits.standard};w={limits.windowSeconds}
              </code>{" "}
              and <code>RateLimit: "standard";r=&lt;remaining&gt;;t=&lt;seconds&gt;</code> (IETF draft; <code>t</code>:
              until the whole quota is back, or with none left until the next request fits)
            </li>
            <li>
              <code>X-RateLimit-Limit</code>, <code>X-RateLimit-Remaining</code>, <code>X-RateLimit-Reset</code> (Unix
              seconds)
            </li>
          </ul>
          <p>
            Over the limit: HTTP <strong>429</strong> with <code>Retry-After: &lt;seconds&gt;</code> and{" "}
            <code>{'{code: 1, message: "Too Many Requests", data: null}'}</code>. Wait that long and retry; requests
            over the limit are not counted. Session requests are not limited.
          </p>
          <Code label="429 handling example">{`async function call(path, body) {
  for (;;) {
    const res = await fetch("${base}" + path, {
      method: "POST",
      headers: { "X-API-Key": process.env.ATELIER_API_KEY, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    if (res.status !== 429) return res.json();
    const wait = Number(res.headers.get("Retry-After") ?? "1");
    await new Promise((r) => setTimeout(r, wait * 1000));
  }
}`}</Code>
        </Card>

        <section id="endpoints" aria-labelledby="endpoints-h" className="space-y-6">
          <h2 id="endpoints-h" className="text-xl font-semibold tracking-tight">
            Endpoints
          </h2>
          {tags.map((tag) => (
            <Card key={tag} id={`tag-${tag}`} level={3} title={tag}>
              <ul className="divide-y divide-border" aria-labelledby={`tag-${tag}-h`}>
                {endpoints
                  .filter((e) => e.tag === tag)
                  .map((e) => (
                    <li key={e.path}>
                      <Link
                        to={`/docs/${e.id}`}
                        className="group flex flex-wrap items-center gap-x-3 gap-y-1 py-2.5"
                        prefetch="intent"
                      >
                        <MethodBadge method={e.method} />
                        <code className="text-sm font-medium break-all group-hover:underline">{e.path}</code>
                        <span className="w-full text-sm text-muted-foreground sm:w-auto sm:flex-1 sm:text-right">
                          <InlineCode text={e.summary} />
                        </span>
                      </Link>
                    </li>
                  ))}
              </ul>
            </Card>
          ))}
        </section>

        <Card
          id="errors"
          anchor
          size="lg"
          title="Every error message"
          description={
            <>
              Messages in angle brackets are filled in. All errors use the envelope with <code>code: 1</code> and{" "}
              <code>data: null</code>.
            </>
          }
        >
          <DataTable<[string, number]>
            label="Error messages"
            columns={[
              { header: "Message", cell: ([m]) => <code>{m}</code> },
              { header: "HTTP", cell: ([, status]) => status },
            ]}
            rows={[...new Map(errorTable.flatMap((e) => e.messages.map((m) => [m, e.status] as const))).entries()]}
            rowKey={([m]) => m}
            empty={null}
            wrap
          />
        </Card>
      </div>
    </div>
  );
}
