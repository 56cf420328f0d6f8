/** Pieces of the API reference: code blocks with a copy button, and field tables. */
import { Link } from "react-router";
import { type Column, CopyButton, DataTable } from "~/components/ui";
import type { DocShape } from "~/lib/api-docs.server";

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

type Field = DocShape["fields"][number];

const FIELD_COLUMNS: Column<Field>[] = [
  { header: "Field", cell: (f) => <span className="font-mono text-xs">{f.name}</span> },
  { header: "Type", cell: (f) => <span className="font-mono text-xs">{f.type}</span> },
  { header: "Required", cell: (f) => (f.required ? "yes" : "no") },
  { header: "Notes", cell: (f) => <span className="text-muted-foreground">{f.notes}</span> },
];

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
