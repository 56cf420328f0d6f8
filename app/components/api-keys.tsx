/**
 * The /keys page's key rows and the scope and spending-cap fields its forms share (docs/usage.md): each key shows
 * what it may do, its cap and what its tasks used of it this period, and can change both without a new key.
 * Plain forms: it works without JavaScript.
 */
import { Form } from "react-router";
import { Badge, Button, buttonVariants, FieldError, formatDate, inputClass, labelClass, Row } from "~/components/ui";
import { KEY_SCOPES, SCOPE_DESCRIPTIONS } from "~/domain/api-keys/scopes";

export interface KeyView {
  key_id: string;
  name: string;
  start: string;
  created_at: string;
  last_used_at: string | null;
  status: "active" | "revoked";
  revoked_at: string | null;
  scopes: string[];
  credit_limit: { credits: number; period: "day" | "month"; used: number } | null;
}

/** The scope boxes and the cap fields; `prefix` keeps ids unique when several forms are on the page. */
export function KeyLimitsFields({
  prefix,
  scopes,
  cap,
  errors,
}: {
  prefix: string;
  scopes: readonly string[];
  cap: { credits: number | string; period: string } | null;
  errors: Record<string, string | undefined>;
}) {
  return (
    <div className="flex flex-wrap items-start gap-4">
      <fieldset
        className="min-w-0 flex-1 basis-72 text-sm"
        aria-describedby={errors.scopes ? `${prefix}-scopes-error` : undefined}
      >
        <legend className={labelClass}>Scopes: what the key may do</legend>
        <div className="mt-1.5 flex flex-wrap gap-2">
          {KEY_SCOPES.map((s) => (
            <label
              key={s}
              title={SCOPE_DESCRIPTIONS[s]}
              className="inline-flex items-center gap-2 rounded-full border border-border px-3 py-1.5 has-[:checked]:border-primary has-[:checked]:bg-accent-soft"
            >
              <input
                type="checkbox"
                name="scopes"
                value={s}
                defaultChecked={scopes.includes(s)}
                className="size-4 accent-[var(--primary)]"
              />{" "}
              <code className="text-xs">{s}</code>
            </label>
          ))}
        </div>
        {errors.scopes ? <FieldError id={`${prefix}-scopes-error`}>{errors.scopes}</FieldError> : null}
      </fieldset>
      <div className="flex flex-wrap items-start gap-2">
        <div>
          <label htmlFor={`${prefix}-cap`} className={labelClass}>
            Spending cap (credits)
          </label>
          <input
            id={`${prefix}-cap`}
            name="cap_credits"
            inputMode="numeric"
            placeholder="no cap"
            defaultValue={cap?.credits ?? ""}
            className={`${inputClass} mt-1.5 w-32`}
            aria-invalid={errors.cap_credits ? true : undefined}
            aria-describedby={errors.cap_credits ? `${prefix}-cap-error` : undefined}
          />
          {errors.cap_credits ? <FieldError id={`${prefix}-cap-error`}>{errors.cap_credits}</FieldError> : null}
        </div>
        <div>
          <label htmlFor={`${prefix}-period`} className={labelClass}>
            per
          </label>
          <select
            id={`${prefix}-period`}
            name="cap_period"
            defaultValue={cap?.period ?? "day"}
            className={`${inputClass} mt-1.5 w-32`}
            aria-invalid={errors.cap_period ? true : undefined}
            aria-describedby={errors.cap_period ? `${prefix}-period-error` : undefined}
          >
            <option value="day">UTC day</option>
            <option value="month">UTC month</option>
          </select>
          {errors.cap_period ? <FieldError id={`${prefix}-period-error`}>{errors.cap_period}</FieldError> : null}
        </div>
      </div>
    </div>
  );
}

const capText = (c: NonNullable<KeyView["credit_limit"]>) => `${c.used} of ${c.credits} credits this ${c.period}`;

export function KeyRow({
  k,
  busy,
  edit,
}: {
  k: KeyView;
  busy: boolean;
  /** The result of this key's last edit (errors beside the fields, or saved). */
  edit?: { errors?: Record<string, string | undefined>; saved?: boolean };
}) {
  const all = k.scopes.length === KEY_SCOPES.length;
  return (
    <Row
      data-key-id={k.key_id}
      below={
        k.status === "active" ? (
          <details className="mt-2" open={Boolean(edit?.errors)}>
            <summary className="cursor-pointer text-sm text-muted-foreground hover:text-foreground">
              Change scopes or cap
            </summary>
            <Form method="post" action="/keys#list" className="mt-3 space-y-3" noValidate>
              <input type="hidden" name="intent" value="update" />
              <input type="hidden" name="key_id" value={k.key_id} />
              <KeyLimitsFields
                prefix={`key-${k.key_id}`}
                scopes={k.scopes}
                cap={k.credit_limit}
                errors={edit?.errors ?? {}}
              />
              <Button type="submit" variant="secondary" size="sm" disabled={busy}>
                Save {k.name}
              </Button>
            </Form>
          </details>
        ) : undefined
      }
      title={
        <>
          <span className="font-medium">{k.name}</span>
          <code className="text-xs text-muted-foreground">{k.start}…</code>
          <Badge status={k.status} data-field="status" />
        </>
      }
      actions={
        k.status === "active" ? (
          <a
            href={`/keys?revoke=${encodeURIComponent(k.key_id)}`}
            className={buttonVariants({ variant: "secondary", size: "sm" })}
            aria-label={`Revoke ${k.name}`}
          >
            Revoke
          </a>
        ) : null
      }
    >
      <p className="mt-0.5 text-xs text-muted-foreground">
        Created {formatDate(k.created_at)} · Last used{" "}
        <span data-field="last-used">{k.last_used_at ? formatDate(k.last_used_at) : "never"}</span>
        {k.revoked_at ? (
          <>
            {" "}
            · Revoked <span data-field="revoked-at">{formatDate(k.revoked_at)}</span>
          </>
        ) : null}
      </p>
      <p className="mt-0.5 text-xs text-muted-foreground">
        Scopes: <span data-field="scopes">{all ? "all" : k.scopes.join(", ")}</span> · Cap:{" "}
        <span data-field="cap">{k.credit_limit ? capText(k.credit_limit) : "none"}</span>
      </p>
      {edit?.saved ? (
        <p className="mt-1 text-xs text-success-soft-foreground">Saved: the key keeps its value.</p>
      ) : null}
    </Row>
  );
}
