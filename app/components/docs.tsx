/** Pieces of the API reference: code blocks with a copy button, and field tables. */
import { Link } from "react-router";
import { type Column, CopyButton, DataTable } from "~/components/ui";
import type { DocShape, ModelOptionDoc } from "~/http/api-docs.server";

/** A scrollable block takes the keyboard so it can be scrolled without a mouse (WCAG 2.1.1, axe scrollable-region-focusable). */
const SCROLLABLE = { tabIndex: 0 };

export function Code({ children, label }: { children: string; label: string }) {
  return (
    <div className="relative">
      {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: screen readers announce the label of a scrollable code block */}
      <pre
        className="overflow-x-auto rounded-2xl bg-zinc-950 p-4 pr-24 text-xs leading-relaxed text-zinc-100 ring-1 ring-white/10"
        aria-label={label}
        {...SCROLLABLE}
      >
        <code>{children}</code>
      </pre>
      <CopyButton
        text={children}
        label="Copy"
        size="sm"
        variant="secondary"
        className="absolute top-2 right-2 h-7 border-white/15 bg-zinc-800 text-zinc-100 hover:bg-zinc-700"
      />
    </div>
  );
}

/**
 * Text whose `backquoted` parts are code (the endpoint table's descriptions and field notes are written that way):
 * rendered as <code>, never as literal backticks.
 */
export function InlineCode({ text }: { text: string }) {
  const parts = text.split(/`([^`]+)`/);
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 1 ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string, in order
          <code key={i} className="rounded bg-muted px-1 py-0.5 font-mono text-[0.85em] text-foreground">
            {part}
          </code>
        ) : (
          part
        ),
      )}
    </>
  );
}

type Field = DocShape["fields"][number];

const FIELD_COLUMNS: Column<Field>[] = [
  { header: "Field", cell: (f) => <span className="font-mono text-xs">{f.name}</span> },
  { header: "Type", cell: (f) => <span className="font-mono text-xs">{f.type}</span> },
  { header: "Required", cell: (f) => (f.required ? "yes" : "no") },
  {
    header: "Notes",
    cell: (f) => (
      <span className="text-muted-foreground">
        <InlineCode text={f.notes} />
      </span>
    ),
  },
];

type ModelOptions = ModelOptionDoc["options"][number];
const OPTION_COLUMNS: Column<ModelOptions>[] = [
  { header: "Option", cell: (o) => <span className="font-mono text-xs">{o.name}</span> },
  { header: "Values", cell: (o) => <span className="font-mono text-xs">{o.values}</span> },
  { header: "Default", cell: (o) => <span className="font-mono text-xs">{o.default ?? "—"}</span> },
  { header: "What it is", cell: (o) => <span className="text-muted-foreground">{o.label}</span> },
];

/** Each model's `options` as a table of its own (one paragraph for every model was unreadable). */
export function ModelOptionTables({ models }: { models: ModelOptionDoc[] }) {
  return (
    <div className="space-y-5">
      {models.map((m) => (
        <section key={m.key} aria-label={`Options of ${m.label}`} data-testid="model-options">
          <h3 className="text-sm font-semibold">
            {m.label}{" "}
            <span className="font-normal text-muted-foreground">
              · <code className="text-xs">{m.ai_type}</code> · <code className="text-xs">{m.provider}</code> ·{" "}
              <code className="text-xs">{m.model}</code> · {m.credits} credits
            </span>
          </h3>
          {m.options.length ? (
            <DataTable<ModelOptions>
              label={`Options of ${m.label}`}
              columns={OPTION_COLUMNS}
              rows={m.options}
              rowKey={(o) => o.name}
              empty={null}
              wrap
              className="mt-2"
              tableClassName="min-w-[34rem]"
            />
          ) : (
            <p className="mt-1 text-sm text-muted-foreground">No options.</p>
          )}
        </section>
      ))}
    </div>
  );
}

export function Shape({ shapes, caption, path }: { shapes: DocShape[]; caption: string; path: string }) {
  return (
    <>
      {shapes.map((s, i) =>
        s.fields.length ? (
          <DataTable<Field>
            key={i}
            label={`${path} ${caption}${s.title ? ` ${s.title}` : ""}`}
            caption={`${caption}${s.title ? ` — ${s.title}` : ""}`}
            columns={FIELD_COLUMNS}
            rows={s.fields}
            rowKey={(f) => f.name}
            empty={null}
            wrap
            className="mt-2"
            tableClassName="min-w-[34rem]"
          />
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

export function MethodBadge({ method }: { method: string }) {
  return (
    <span className="inline-flex rounded-md bg-accent-soft px-1.5 py-0.5 font-mono text-[0.7rem] font-semibold text-accent-soft-foreground">
      {method}
    </span>
  );
}

export function Toc({ tags, endpoints }: { tags: string[]; endpoints: { id: string; path: string; tag: string }[] }) {
  return (
    <ul className="mt-2 space-y-1 lg:mt-0">
      {[
        ["basics", "Basics"],
        ["auth", "Authentication"],
        ["polling", "Create, then poll"],
        ["rate-limits", "Rate limits"],
      ].map(([id, label]) => (
        <li key={id}>
          <a href={`/docs#${id}`} className="link">
            {label}
          </a>
        </li>
      ))}
      {tags.map((t) => (
        <li key={t} className="pt-2">
          <span className="font-semibold text-foreground">{t}</span>
          <ul className="mt-1 space-y-1 pl-2">
            {endpoints
              .filter((e) => e.tag === t)
              .map((e) => (
                <li key={e.path}>
                  <Link
                    to={`/docs/${e.id}`}
                    className="font-mono text-xs break-all text-muted-foreground hover:text-foreground"
                  >
                    {e.path.replace(/^\/api/, "")}
                  </Link>
                </li>
              ))}
          </ul>
        </li>
      ))}
      <li className="pt-2">
        <a href="/docs#errors" className="link">
          Every error message
        </a>
      </li>
    </ul>
  );
}

/** The contents: a folding menu on phones, a sticky column on wide screens. */
export function DocsNav({
  tags,
  endpoints,
}: {
  tags: string[];
  endpoints: { id: string; path: string; tag: string }[];
}) {
  return (
    <nav
      aria-label="API reference contents"
      className="mb-6 text-sm lg:sticky lg:top-20 lg:mb-0 lg:max-h-[calc(100vh-6rem)] lg:self-start lg:overflow-y-auto"
    >
      <details className="rounded-2xl border border-border bg-surface p-3 lg:hidden">
        <summary className="cursor-pointer font-medium">Contents</summary>
        <Toc tags={tags} endpoints={endpoints} />
      </details>
      <div className="hidden lg:block">
        <Toc tags={tags} endpoints={endpoints} />
      </div>
    </nav>
  );
}
