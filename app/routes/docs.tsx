import { PageHeader, TableScroll } from "~/components/ui";
import { buildDocs, type DocShape } from "~/lib/api-docs.server";
import { getServices } from "~/lib/services.server";
import type { Route } from "./+types/docs";

export const meta: Route.MetaFunction = () => [
  { title: "API reference — Atelier" },
  { name: "description", content: "Atelier's HTTP API: endpoints, authentication, polling, rate limits and error messages." },
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

function Code({ children, label }: { children: string; label: string }) {
  return (
    <pre className="overflow-x-auto rounded-md bg-slate-900 p-3 text-xs leading-relaxed text-slate-100" aria-label={label} tabIndex={0}>
      <code>{children}</code>
    </pre>
  );
}

function Shape({ shapes, caption, path }: { shapes: DocShape[]; caption: string; path: string }) {
  return (
    <>
      {shapes.map((s, i) =>
        s.fields.length ? (
          <TableScroll label={`${path} ${caption}${s.title ? ` ${s.title}` : ""}`} key={i} className="mt-2">
            <table className="table-base min-w-[34rem]">
              <caption className="py-1 text-left text-xs font-medium text-slate-600">
                {caption}
                {s.title ? ` — ${s.title}` : ""}
              </caption>
              <thead>
                <tr>
                  <th scope="col" className="th">
                    Field
                  </th>
                  <th scope="col" className="th">
                    Type
                  </th>
                  <th scope="col" className="th">
                    Required
                  </th>
                  <th scope="col" className="th">
                    Notes
                  </th>
                </tr>
              </thead>
              <tbody>
                {s.fields.map((f) => (
                  <tr key={f.name}>
                    <td className="td font-mono text-xs">{f.name}</td>
                    <td className="td font-mono text-xs">{f.type}</td>
                    <td className="td">{f.required ? "yes" : "no"}</td>
                    <td className="td text-slate-700">{f.notes}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </TableScroll>
        ) : (
          <p key={i} className="mt-2 text-sm">
            {caption}
            {s.title ? ` (${s.title})` : ""}: <code className="text-xs">{s.text}</code>
          </p>
        ),
      )}
    </>
  );
}

export default function Docs({ loaderData }: Route.ComponentProps) {
  const { base, endpoints, errorTable, tags, limits, pollingExample, envelopeExample, webhookExamples } = loaderData;
  return (
    <div className="lg:grid lg:grid-cols-[14rem_minmax(0,1fr)] lg:gap-8">
      <nav aria-label="API reference contents" className="mb-6 text-sm lg:sticky lg:top-4 lg:mb-0 lg:max-h-[calc(100vh-2rem)] lg:self-start lg:overflow-y-auto">
        <details className="card p-3 lg:hidden">
          <summary className="cursor-pointer font-medium">Contents</summary>
          <Toc tags={tags} endpoints={endpoints} />
        </details>
        <div className="hidden lg:block">
          <Toc tags={tags} endpoints={endpoints} />
        </div>
      </nav>

      <div className="min-w-0 space-y-10">
        <PageHeader
          title="API reference"
          description={
            <>
              Every endpoint of Atelier. Machine-readable: <a className="link" href="/api/openapi.json">OpenAPI 3.1 document</a>.
            </>
          }
        />

        <section id="basics" aria-labelledby="basics-h" className="card space-y-3 text-sm">
          <h2 id="basics-h" className="text-xl font-semibold">
            Basics
          </h2>
          <p>
            All endpoints take <code>POST</code> with a JSON body (except <code>GET /api/health</code> and <code>GET /api/openapi.json</code>)
            and answer the envelope <code>{"{code, message, data}"}</code>: <code>code</code> 0 on success, 1 on error; <code>data</code> is{" "}
            <code>null</code> when there is none. Envelope errors come with HTTP 200; a bad key is HTTP 401, a key over its rate limit HTTP 429,
            an unexpected fault HTTP 500 — always with the same envelope.
          </p>
          <Code label="Envelope example">{envelopeExample}</Code>
        </section>

        <section id="auth" aria-labelledby="auth-h" className="card space-y-3 text-sm">
          <h2 id="auth-h" className="text-xl font-semibold">
            Authentication
          </h2>
          <p>
            <strong>API key</strong> — create one on the <a className="link" href="/keys">API keys</a> page and send it as the{" "}
            <code>X-API-Key</code> header. The request then acts as the key's owner; an admin's key reaches admin endpoints. When the header is
            present it decides alone: an unknown or mistyped key answers HTTP 401 <code>API key not found</code>, a revoked one HTTP 401{" "}
            <code>API key revoked</code>.
          </p>
          <p>
            <strong>Session</strong> — the browser's <code>atelier.session_token</code> cookie, set by signing in (or by{" "}
            <code>POST /api/auth/sign-in/email</code>). Key management (<code>/api/keys/*</code>) accepts only a session.
          </p>
          <p>
            Not signed in: <code>{"{code: 1, message: \"no auth, please sign-in\", data: null}"}</code>.
          </p>
        </section>

        <section id="polling" aria-labelledby="polling-h" className="card space-y-3 text-sm">
          <h2 id="polling-h" className="text-xl font-semibold">
            Generating: create, then poll
          </h2>
          <p>
            <code>/api/generator/generate</code> answers at once with a <code>gen_id</code> and status <code>pending</code>; the task runs in the
            background (pending → processing → completed or failed). Poll <code>/api/generator/query</code>{" "}
            <strong>about every 3 seconds</strong> and <strong>stop after 60 attempts (5 minutes)</strong>. A failed task is still{" "}
            <code>code: 0</code> — the failure is in <code>data.status</code> and <code>data.error_message</code>, and it costs nothing. Credits are
            deducted only when a task completes.
          </p>
          <Code label="Polling example (fetch)">{pollingExample}</Code>
          <p>
            Instead of polling you can follow the task (<a className="link" href="#events">live status</a>) or receive a{" "}
            <a className="link" href="#events">webhook</a>.
          </p>
        </section>

        <section id="events" aria-labelledby="events-h" className="card space-y-3 text-sm">
          <h2 id="events-h" className="text-xl font-semibold">
            Events: safe retries, cancel, webhooks, live status
          </h2>
          <p>
            <strong>Safe retries.</strong> Send an <code>Idempotency-Key</code> header with generate. The same key from the same user within 24 h
            answers the first response again (same <code>gen_id</code>) without creating or charging anything; the same key with a different body
            answers HTTP 409 <code>invalid params: Idempotency-Key reused with a different request</code>.
          </p>
          <Code label="Idempotent create (curl)">{webhookExamples.idempotency}</Code>
          <p>
            <strong>Cancel.</strong> <code>POST /api/generator/cancel {"{gen_id}"}</code> ends a pending or processing task as{" "}
            <code>failed</code> with <code>error_message</code> <code>canceled</code>; it is never charged, and Replicate and Runway jobs are
            canceled upstream too.
          </p>
          <p>
            <strong>Webhooks</strong> (<a className="link" href="https://www.standardwebhooks.com/">Standard Webhooks</a>). Add an endpoint with{" "}
            <code>/api/webhooks/create</code> or on the <a className="link" href="/keys#webhooks">API keys page</a>. Atelier POSTs{" "}
            <code>generation.completed</code> and <code>generation.failed</code> as <code>{"{type, timestamp, data}"}</code>, where{" "}
            <code>data</code> is exactly the query response, with the headers <code>webhook-id</code> (the same on every retry: dedupe on it),{" "}
            <code>webhook-timestamp</code> and <code>webhook-signature</code>. Answer any 2xx within 10 s; otherwise the event is retried (5 s,
            5 min, 30 min, 2 h, 5 h, 10 h, 10 h). An endpoint without a successful delivery for 3 days is disabled, with the reason in{" "}
            <code>/api/webhooks/list</code>; <code>/api/webhooks/deliveries</code> shows every attempt and <code>/api/webhooks/resend</code>{" "}
            sends one again. Webhook URLs must resolve to public addresses.
          </p>
          <Code label="Create an endpoint (curl)">{webhookExamples.create}</Code>
          <Code label="Verify and handle events (JavaScript, standardwebhooks)">{webhookExamples.verify}</Code>
          <Code label="Verify by hand (node:crypto)">{webhookExamples.verifyByHand}</Code>
          <p>
            <strong>Live status.</strong> <code>GET /api/generator/stream?gen_id=…</code> is a Server-Sent Events stream: an{" "}
            <code>event: status</code> with the query data at once and on every change, closed after the final status.
          </p>
          <Code label="Follow a task (EventSource, curl)">{webhookExamples.stream}</Code>
        </section>

        <section id="rate-limits" aria-labelledby="rate-h" className="card space-y-3 text-sm">
          <h2 id="rate-h" className="text-xl font-semibold">
            Rate limits
          </h2>
          <p>
            Requests with an API key are limited per user — all of a user's keys share one limit — to {limits.standard} per{" "}
            {limits.windowSeconds} seconds for standard users, {limits.premium} for premium users and {limits.admin} for admins: a burst of
            that many at once, then the quota refills evenly over the window. Every key response carries:
          </p>
          <ul className="list-disc space-y-1 pl-6">
            <li>
              <code>RateLimit-Policy: "standard";q={limits.standard};w={limits.windowSeconds}</code> and{" "}
              <code>RateLimit: "standard";r=&lt;remaining&gt;;t=&lt;seconds&gt;</code> (IETF draft; <code>t</code>: until the whole quota is
              back, or with none left until the next request fits)
            </li>
            <li>
              <code>X-RateLimit-Limit</code>, <code>X-RateLimit-Remaining</code>, <code>X-RateLimit-Reset</code> (Unix seconds)
            </li>
          </ul>
          <p>
            Over the limit: HTTP <strong>429</strong> with <code>Retry-After: &lt;seconds&gt;</code> and{" "}
            <code>{"{code: 1, message: \"Too Many Requests\", data: null}"}</code>. Wait that long and retry; requests over the limit are not
            counted. Session requests are not limited.
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
        </section>

        {tags.map((tag) => (
          <section key={tag} aria-labelledby={`tag-${tag}`} className="space-y-6">
            <h2 id={`tag-${tag}`} className="text-xl font-semibold">
              {tag}
            </h2>
            {endpoints
              .filter((e) => e.tag === tag)
              .map((e) => (
                <article key={e.path} id={e.id} className="card scroll-mt-4 space-y-3" aria-labelledby={`${e.id}-h`}>
                  <h3 id={`${e.id}-h`} className="flex flex-wrap items-center gap-2 text-lg font-semibold">
                    <span className="badge bg-indigo-100 text-indigo-900">{e.method}</span>
                    {e.alsoMethod ? <span className="badge bg-indigo-100 text-indigo-900">{e.alsoMethod}</span> : null}
                    <code className="break-all">{e.path}</code>
                  </h3>
                  <p className="font-medium">{e.summary}</p>
                  <p className="text-sm text-slate-700">{e.description}</p>
                  <p className="text-sm">
                    <strong>Auth:</strong> {e.auth} <span className="text-slate-600">({e.source})</span>
                  </p>
                  <div>
                    <h4 className="text-sm font-semibold">Request</h4>
                    {e.request ? <Shape shapes={e.request} caption="Body fields" path={e.path} /> : <p className="mt-1 text-sm">No request body.</p>}
                  </div>
                  <div>
                    <h4 className="text-sm font-semibold">Response</h4>
                    {e.envelope ? (
                      <p className="mt-1 text-sm">
                        Envelope with <code>code: 0</code>
                        {e.successMessage ? (
                          <>
                            , <code>message: "{e.successMessage}"</code>
                          </>
                        ) : null}{" "}
                        and <code>data</code>:
                      </p>
                    ) : (
                      <p className="mt-1 text-sm">
                        Not wrapped in the envelope; <code>{e.contentType}</code>.
                      </p>
                    )}
                    <Shape shapes={e.response} caption={e.envelope ? "data" : "Body"} path={e.path} />
                  </div>
                  <div className="grid grid-cols-1 gap-3 xl:grid-cols-2">
                    <div>
                      <h4 className="mb-1 text-sm font-semibold">curl</h4>
                      <Code label={`curl example for ${e.path}`}>{e.curl}</Code>
                    </div>
                    <div>
                      <h4 className="mb-1 text-sm font-semibold">fetch</h4>
                      <Code label={`fetch example for ${e.path}`}>{e.fetch}</Code>
                    </div>
                  </div>
                  {e.errors.length ? (
                    <div>
                      <h4 className="text-sm font-semibold">Errors</h4>
                      <ul className="mt-1 space-y-0.5 text-sm">
                        {e.errors.map((x) => (
                          <li key={x.message}>
                            <span className="text-slate-600">HTTP {x.status}</span> <code>{x.message}</code>
                          </li>
                        ))}
                      </ul>
                    </div>
                  ) : null}
                </article>
              ))}
          </section>
        ))}

        <section id="errors" aria-labelledby="errors-h" className="card">
          <h2 id="errors-h" className="text-xl font-semibold">
            Every error message
          </h2>
          <p className="mt-1 text-sm text-slate-700">
            Messages in angle brackets are filled in. All errors use the envelope with <code>code: 1</code> and <code>data: null</code>.
          </p>
          <TableScroll label="Error messages table" className="mt-3">
            <table className="table-base" aria-label="Error messages">
              <thead>
                <tr>
                  <th scope="col" className="th">
                    Message
                  </th>
                  <th scope="col" className="th">
                    HTTP
                  </th>
                  <th scope="col" className="th">
                    Code
                  </th>
                </tr>
              </thead>
              <tbody>
                {errorTable.flatMap((e) =>
                  e.messages.map((m) => (
                    <tr key={`${e.code}-${m}`}>
                      <td className="td">
                        <code>{m}</code>
                      </td>
                      <td className="td">{e.status}</td>
                      <td className="td font-mono text-xs text-slate-600">{e.code}</td>
                    </tr>
                  )),
                )}
              </tbody>
            </table>
          </TableScroll>
        </section>
      </div>
    </div>
  );
}

function Toc({ tags, endpoints }: { tags: string[]; endpoints: { id: string; path: string; tag: string }[] }) {
  return (
    <ul className="mt-2 space-y-1 lg:mt-0">
      {[
        ["basics", "Basics"],
        ["auth", "Authentication"],
        ["polling", "Create, then poll"],
        ["rate-limits", "Rate limits"],
      ].map(([id, label]) => (
        <li key={id}>
          <a href={`#${id}`} className="link">
            {label}
          </a>
        </li>
      ))}
      {tags.map((t) => (
        <li key={t} className="pt-2">
          <span className="font-semibold text-slate-800">{t}</span>
          <ul className="mt-1 space-y-1 pl-2">
            {endpoints
              .filter((e) => e.tag === t)
              .map((e) => (
                <li key={e.path}>
                  <a href={`#${e.id}`} className="link font-mono text-xs break-all">
                    {e.path.replace(/^\/api/, "")}
                  </a>
                </li>
              ))}
          </ul>
        </li>
      ))}
      <li className="pt-2">
        <a href="#errors" className="link">
          Every error message
        </a>
      </li>
    </ul>
  );
}
