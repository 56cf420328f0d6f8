import { ArrowLeft } from "lucide-react";
import { data, Link } from "react-router";
import { Code, DocsNav, InlineCode, MethodBadge, ModelOptionTables, Shape } from "~/components/docs";
import { buttonVariants, Card } from "~/components/ui";
import { buildDocs, modelOptionDocs } from "~/http/api-docs.server";
import { getServices } from "~/http/services.server";
import type { Route } from "./+types/docs-endpoint";

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: loaderData ? `${loaderData.endpoint.path} — API reference — Atelier` : "API reference — Atelier" },
  ...(loaderData ? [{ name: "description", content: loaderData.endpoint.summary }] : []),
];

const GENERATE = "/api/generator/generate";

/** One endpoint per page: what it takes, what it answers, examples to copy, its errors. */
export function loader({ params }: Route.LoaderArgs) {
  const { config } = getServices();
  const docs = buildDocs(config.publicUrl, {
    standard: config.RATE_LIMIT_STANDARD,
    premium: config.RATE_LIMIT_PREMIUM,
    admin: config.RATE_LIMIT_ADMIN,
    windowSeconds: Math.round(config.RATE_LIMIT_WINDOW_MS / 1000),
  });
  const i = docs.endpoints.findIndex((e) => e.id === params.endpoint);
  if (i < 0) throw data("Not found", { status: 404 });
  let endpoint = docs.endpoints[i]!;
  // The generate body's `options` depend on the model: one table per model below instead of one long paragraph.
  const models = endpoint.path === GENERATE ? modelOptionDocs() : null;
  if (models && endpoint.request)
    endpoint = {
      ...endpoint,
      request: endpoint.request.map((shape) => ({
        ...shape,
        fields: shape.fields.map((f) =>
          f.name === "options" ? { ...f, notes: "Depends on the model: see “Options by model” below." } : f,
        ),
      })),
    };
  const nav = (e: (typeof docs.endpoints)[number] | undefined) => (e ? { id: e.id, path: e.path } : null);
  return {
    endpoint,
    models,
    prev: nav(docs.endpoints[i - 1]),
    next: nav(docs.endpoints[i + 1]),
    tags: docs.tags,
    index: docs.endpoints.map((e) => ({ id: e.id, path: e.path, tag: e.tag })),
  };
}

export default function DocsEndpoint({ loaderData }: Route.ComponentProps) {
  const { endpoint: e, models, prev, next, tags, index } = loaderData;
  return (
    <div className="lg:grid lg:grid-cols-[14rem_minmax(0,1fr)] lg:gap-8">
      <DocsNav tags={tags} endpoints={index} />
      <article className="min-w-0 space-y-6" aria-labelledby="endpoint-h">
        <Link to="/docs" className={buttonVariants({ variant: "ghost", size: "sm", className: "-ml-3" })}>
          <ArrowLeft aria-hidden="true" /> API reference
        </Link>
        <header>
          <p className="text-sm text-muted-foreground">{e.tag}</p>
          <h1 id="endpoint-h" className="mt-1 flex flex-wrap items-center gap-2 text-2xl font-semibold tracking-tight">
            <MethodBadge method={e.method} />
            {e.alsoMethod ? <MethodBadge method={e.alsoMethod} /> : null}
            <code className="break-all">{e.path}</code>
          </h1>
          <p className="mt-3 font-medium">
            <InlineCode text={e.summary} />
          </p>
          {e.description ? (
            <p className="mt-1 text-sm text-muted-foreground">
              <InlineCode text={e.description} />
            </p>
          ) : null}
          <p className="mt-3 text-sm">
            <strong>Auth:</strong> {e.auth}
          </p>
        </header>

        <section aria-labelledby="examples-h" className="space-y-3">
          <h2 id="examples-h" className="text-xl font-semibold tracking-tight">
            Try it
          </h2>
          <Code label={`curl example for ${e.path}`}>{e.curl}</Code>
          <Code label={`fetch example for ${e.path}`}>{e.fetch}</Code>
        </section>

        <Card id="request" size="lg" title="Request">
          {e.request ? (
            <Shape shapes={e.request} caption="Body fields" path={e.path} />
          ) : (
            <p className="text-sm">No request body.</p>
          )}
        </Card>

        {models ? (
          <Card
            id="options-by-model"
            size="lg"
            title="Options by model"
            description={
              <>
                What <code>options</code> takes for each model on offer, with its values and default.
              </>
            }
          >
            <ModelOptionTables models={models} />
          </Card>
        ) : null}

        <Card
          id="response"
          size="lg"
          title="Response"
          description={
            e.envelope ? (
              <>
                Envelope with <code>code: 0</code>
                {e.successMessage ? (
                  <>
                    , <code>message: "{e.successMessage}"</code>
                  </>
                ) : null}{" "}
                and <code>data</code>:
              </>
            ) : (
              <>
                Not wrapped in the envelope; <code>{e.contentType}</code>.
              </>
            )
          }
        >
          <Shape shapes={e.response} caption={e.envelope ? "data" : "Body"} path={e.path} />
        </Card>

        {e.errors.length ? (
          <Card
            id="errors"
            size="lg"
            title="Errors"
            description={
              <>
                With <code>code: 1</code> and <code>data: null</code>; the <code>message</code> is one of:
              </>
            }
          >
            <ul className="space-y-1 text-sm">
              {e.errors.map((x) => (
                <li key={x.message}>
                  <code>{x.message}</code> <span className="text-muted-foreground">· HTTP {x.status}</span>
                </li>
              ))}
            </ul>
          </Card>
        ) : null}

        <nav aria-label="Other endpoints" className="flex flex-wrap justify-between gap-2 border-t border-border pt-4">
          {prev ? (
            <Link to={`/docs/${prev.id}`} className={buttonVariants({ variant: "secondary", size: "sm" })} rel="prev">
              ← <code>{prev.path}</code>
            </Link>
          ) : (
            <span />
          )}
          {next ? (
            <Link to={`/docs/${next.id}`} className={buttonVariants({ variant: "secondary", size: "sm" })} rel="next">
              <code>{next.path}</code> →
            </Link>
          ) : null}
        </nav>
      </article>
    </div>
  );
}
