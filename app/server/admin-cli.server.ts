/**
 * `atelier admin …`: the admin actions of docs/design.md §6 for self-hosters, running
 * the same domain functions and validation as the admin endpoints.
 */
import { parseArgs } from "node:util";
import type { z } from "zod";
import {
  adminCreateSubscription,
  adminGrantCredits,
  adminInvalid,
  adminListUsers,
  CreateSubscriptionSchema,
  GrantCreditsSchema,
  ListUsersSchema,
} from "~/domain/admin/admin.server";
import { listProducts, ProductInputSchema, toProductInfo, upsertProduct } from "~/domain/billing/products.server";
import { isAccountPassword } from "~/domain/users/account-password.server";
import { findUserByEmail, isAdmin, setRole } from "~/domain/users/users.server";
import { closeServices, initServices } from "~/http/services.server";
import { AppError, isAppError } from "~/lib/errors";
import { formatMoney } from "~/lib/money";
import { MODELS_HELP, MODELS_OPTIONS, runModelsCli } from "./admin-models-cli.server";
import { CliError } from "./cli-error";

export const ADMIN_HELP = `Usage: atelier admin <action> [options]   (bun run admin -- <action> …)

Actions:
  grant-credits        Grant credits to a user
      --email <email> | --user-uuid <uuid>
      --credits <n>                 1 … 1000000
      [--expires-in-days <n>]       default: the credits never expire
  create-subscription  Record a paid subscription order
      --email <email> | --user-uuid <uuid>
      --product-id <id> --product-name <name>
      --interval month|year|one-time
      --amount <n>                  smallest currency unit (cents)
      [--sub-id <id>]               default: generated
      [--period-end <ISO 8601>]     default: one interval from now (none for one-time)
  list-users           Users with balance and tier, newest first
      [--page <n>] [--page-size <n>]   defaults 1 and 20 (max 100)
  promote              Make an account an admin (no e-mail verification needed); asks for the account's password
      --email <email>               (read from standard input when it is not a terminal): only the one who
                                    holds the account can be promoted. Someone else registered your address?
                                    Reset its password first (/forgot-password; without SMTP_URL the link is
                                    in the log): the reset revokes every session, API key and webhook before it,
                                    and removes passkeys, two-factor and linked sign-in providers
  demote               Remove the admin role that promote stored
      --email <email>               an ADMIN_EMAILS address stays admin while verified: remove it there too
  list-products        Credit packs and plans, on sale or not
  set-product          Add a product, or change the one with this id
      --product-id <id> --name <name> --kind pack|subscription
      --credits <n>                 a pack's credits, or a plan's per period
      [--interval month|year]       plans only
      --amount <n>                  price in cents
      [--currency <iso>]            default usd
      [--active true|false]         default true (false takes it off sale)
      [--sort-order <n>]            default 0
${MODELS_HELP}

Every action accepts --json to print the result as JSON.`;

const OPTIONS = {
  email: { type: "string" },
  "user-uuid": { type: "string" },
  credits: { type: "string" },
  "expires-in-days": { type: "string" },
  "product-id": { type: "string" },
  "product-name": { type: "string" },
  interval: { type: "string" },
  amount: { type: "string" },
  "sub-id": { type: "string" },
  "period-end": { type: "string" },
  page: { type: "string" },
  "page-size": { type: "string" },
  name: { type: "string" },
  kind: { type: "string" },
  currency: { type: "string" },
  active: { type: "string" },
  "sort-order": { type: "string" },
  ...MODELS_OPTIONS,
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

const NOT_YOUR_ACCOUNT =
  "admin promote: that is not the password of this account, so it was not promoted. If someone else registered your address, take the account back first: reset its password (/forgot-password; without SMTP_URL the link is in the server log) — the reset signs out every session, revokes the API keys and webhooks made before it, and removes passkeys, two-factor and linked sign-in providers — then run promote again with the new password";

/** The account's password: typed without echo at a terminal, else the first line of standard input. */
async function readPassword(prompt: string): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const text = await new Response(Bun.stdin.stream()).text();
    return text.split(/\r?\n/)[0] ?? "";
  }
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  let typed = "";
  try {
    for await (const chunk of stdin) {
      for (const ch of String(chunk)) {
        if (ch === "\r" || ch === "\n") return typed;
        if (ch === "\u0003") throw new CliError("admin promote: interrupted");
        if (ch === "\u007f") typed = typed.slice(0, -1);
        else typed += ch;
      }
    }
    return typed;
  } finally {
    stdin.setRawMode(false);
    stdin.pause();
    process.stderr.write("\n");
  }
}

/** Integers become numbers; anything else stays text so validation names the problem. */
const num = (v: string | undefined) => (v !== undefined && /^-?\d+$/.test(v.trim()) ? Number(v) : v);

function parse<S extends z.ZodType>(schema: S, raw: Record<string, unknown>): z.output<S> {
  const input = Object.fromEntries(Object.entries(raw).filter(([, v]) => v !== undefined));
  const r = schema.safeParse(input);
  if (!r.success) throw adminInvalid(r.error);
  return r.data;
}

export async function runAdminCli(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n\n${ADMIN_HELP}\n`);
    return 2;
  }
  const { values: v, positionals } = parsed;
  const action = positionals[0];
  if (!action || action === "help" || v.help) {
    process.stdout.write(`${ADMIN_HELP}\n`);
    return action || v.help ? 0 : 2;
  }
  const who = { email: v.email, user_uuid: v["user-uuid"] };
  const services = await initServices();
  const out = (data: unknown, text: string) =>
    process.stdout.write(`${v.json ? JSON.stringify(data, null, 2) : text}\n`);
  try {
    switch (action) {
      case "grant-credits": {
        const input = parse(GrantCreditsSchema, {
          ...who,
          credits: num(v.credits),
          expires_in_days: num(v["expires-in-days"]),
        });
        const r = await adminGrantCredits(services, input);
        out(
          r,
          `granted ${r.granted} credits to ${r.email} (expires ${r.expires_at ?? "never"}): balance ${r.left_credits}, lifetime ${r.total_credits}`,
        );
        return 0;
      }
      case "create-subscription": {
        const input = parse(CreateSubscriptionSchema, {
          ...who,
          product_id: v["product-id"],
          product_name: v["product-name"],
          interval: v.interval,
          amount: num(v.amount),
          sub_id: v["sub-id"],
          period_end: v["period-end"],
        });
        const s = await adminCreateSubscription(services, input);
        out(
          s,
          `subscription ${s.order_no} for ${s.email}: ${s.product_name} (${s.interval}), ${s.status}, period end ${s.period_end ?? "none"}`,
        );
        return 0;
      }
      case "list-users": {
        const input = parse(ListUsersSchema, { page: num(v.page), page_size: num(v["page-size"]) });
        const r = await adminListUsers(services, input);
        const lines = [
          `${"uuid".padEnd(36)}  ${"email".padEnd(32)}  ${"tier".padEnd(8)}  ${"left".padStart(8)}  ${"total".padStart(8)}  created`,
          ...r.users.map(
            (u) =>
              `${u.uuid}  ${u.email.padEnd(32)}  ${u.tier.padEnd(8)}  ${String(u.left_credits).padStart(8)}  ${String(u.total_credits).padStart(8)}  ${u.created_at}`,
          ),
          `page ${r.page} (${r.users.length} of ${r.total} users, page size ${r.page_size})`,
        ];
        out(r, lines.join("\n"));
        return 0;
      }
      case "promote":
      case "demote": {
        if (!v.email?.trim()) throw new AppError("INVALID_PARAMS", { reason: "--email is required" });
        if (action === "promote") {
          const holder = await findUserByEmail(services.db, v.email);
          if (!holder) throw new AppError("USER_NOT_FOUND");
          const password = await readPassword(`Password of ${holder.email}: `);
          if (!(await isAccountPassword(services.db, holder.id, password))) throw new CliError(NOT_YOUR_ACCOUNT);
        }
        const u = await setRole(services.db, v.email, action === "promote" ? "admin" : "user", services.clock.now());
        const admin = isAdmin(services.config, u);
        const result = { uuid: u.id, email: u.email, role: u.role, is_admin: admin };
        if (action === "demote" && admin) {
          process.stderr.write(
            `warning: ${u.email} is in ADMIN_EMAILS with a verified e-mail, so it stays an admin until removed from ADMIN_EMAILS\n`,
          );
        }
        out(result, `${u.email}: role ${u.role}; ${admin ? "is an admin" : "is not an admin"}`);
        return 0;
      }
      case "list-products": {
        const rows = await listProducts(services.db, { includeInactive: true });
        const lines = rows.map(
          (p) =>
            `${p.id.padEnd(20)}  ${p.kind.padEnd(12)}  ${String(p.credits).padStart(8)} credits${p.interval ? `/${p.interval}` : ""}  ${formatMoney(p.amount, p.currency).padStart(10)}  ${p.active ? "on sale" : "off sale"}  ${p.name}`,
        );
        out(
          rows.map((p) => ({ ...toProductInfo(p), active: p.active, sort_order: p.sortOrder })),
          lines.join("\n") || "no products",
        );
        return 0;
      }
      case "set-product": {
        const input = parse(ProductInputSchema, {
          product_id: v["product-id"],
          name: v.name,
          kind: v.kind,
          credits: num(v.credits),
          interval: v.interval,
          amount: num(v.amount),
          currency: v.currency,
          active:
            v.active === undefined ? undefined : v.active === "true" ? true : v.active === "false" ? false : v.active,
          sort_order: num(v["sort-order"]),
        });
        const p = await upsertProduct(services.db, input, services.clock);
        out(
          { ...toProductInfo(p), active: p.active, sort_order: p.sortOrder },
          `saved ${p.id}: ${p.name}, ${p.credits} credits${p.interval ? ` per ${p.interval}` : ""}, ${formatMoney(p.amount, p.currency)}, ${p.active ? "on sale" : "off sale"}`,
        );
        return 0;
      }
      case "models":
        return await runModelsCli(services, positionals[1], v, out);
      default:
        process.stderr.write(`unknown admin action: ${action}\n\n${ADMIN_HELP}\n`);
        return 2;
    }
  } catch (e) {
    if (isAppError(e)) {
      process.stderr.write(`error: ${e.message}\n`);
      return 1;
    }
    throw e;
  } finally {
    await closeServices();
  }
}
