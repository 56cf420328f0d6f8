import { Coins, Menu, Sparkles } from "lucide-react";
import { useTranslation } from "react-i18next";
import { Form, isRouteErrorResponse, Link, NavLink, Outlet, useLocation, useNavigation } from "react-router";
import { LanguageAlternates, LanguageMenu } from "~/components/language";
import { type LiveTask, useLiveUpdates } from "~/components/live";
import { Button, buttonVariants, cn, Notice, Toaster } from "~/components/ui";
import { balanceOf } from "~/domain/credits/ledger.server";
import { liveSummary } from "~/domain/generations/live.server";
import { getServices } from "~/http/services.server";
import { getUiUser } from "~/http/session.server";
import { i18nextMiddleware } from "~/lib/i18n.server";
import { noticeFrom } from "~/lib/notices";
import { APP_VERSION } from "~/lib/version";
import type { Route } from "./+types/layout";

/** Every page speaks the visitor's language (docs/languages.md); the JSON API, outside this layout, never does. */
export const middleware: Route.MiddlewareFunction[] = [i18nextMiddleware];

export async function loader({ request }: Route.LoaderArgs) {
  const ui = await getUiUser(request);
  const notice = noticeFrom(request.url);
  const { db, clock, config } = getServices();
  const demoOpen = !config.isProduction || config.DEMO_PUBLIC;
  const origin = config.publicUrl;
  if (!ui)
    return { user: null, balance: null, live: { active: [], finished: [] }, isAdmin: false, notice, demoOpen, origin };
  return {
    origin,
    user: { name: ui.user.name, email: ui.user.email },
    balance: await db.exec(balanceOf(db, ui.user.id, clock)),
    live: (await liveSummary(db, ui.user.id)) as { active: LiveTask[]; finished: LiveTask[] },
    isAdmin: ui.isAdmin,
    notice,
    demoOpen,
  };
}

type LayoutData = Route.ComponentProps["loaderData"];

interface NavItem {
  to: string;
  label: string;
}

function useNavItems(signedIn: boolean, isAdmin: boolean, demoOpen: boolean): NavItem[] {
  const { t } = useTranslation();
  if (!signedIn)
    return [
      ...(demoOpen ? [{ to: "/playground", label: t("nav.playground") }] : []),
      { to: "/pricing", label: t("nav.pricing") },
      { to: "/docs", label: t("nav.apiDocs") },
    ];
  return [
    { to: "/studio", label: t("nav.studio") },
    { to: "/pricing", label: t("nav.pricing") },
    { to: "/account", label: t("nav.account") },
    { to: "/keys", label: t("nav.apiKeys") },
    { to: "/feedback", label: t("nav.feedback") },
    { to: "/docs", label: t("nav.apiDocs") },
    ...(isAdmin ? [{ to: "/admin", label: t("nav.admin") }] : []),
  ];
}

function NavLinks({ items, vertical }: { items: NavItem[]; vertical?: boolean }) {
  return (
    <ul className={vertical ? "flex flex-col gap-1" : "flex items-center gap-0.5"}>
      {items.map((i) => (
        <li key={i.to}>
          <NavLink to={i.to} className={cn("nav-link", vertical && "block rounded-xl px-3 py-2")} prefetch="intent">
            {i.label}
          </NavLink>
        </li>
      ))}
    </ul>
  );
}

/** The one balance: what can be spent now, with what running tasks hold beside it; it leads to the credits and the daily check-in. */
export function Balance({ available, held }: { available: number; held: number }) {
  const { t } = useTranslation();
  const label = t("balance.credits", { count: available });
  return (
    <Link
      to="/account#credits"
      className="inline-flex h-9 items-center gap-1.5 rounded-full border border-border bg-surface px-3 text-sm font-medium whitespace-nowrap hover:bg-muted"
      aria-label={held ? t("balance.labelHeld", { credits: label, held }) : t("balance.label", { credits: label })}
    >
      <Coins aria-hidden="true" className="size-4 text-accent" />
      <span data-testid="balance">{label}</span>
      {held ? (
        <span className="hidden text-muted-foreground sm:inline" data-testid="held">
          {t("balance.held", { count: held })}
        </span>
      ) : null}
    </Link>
  );
}

function SignOut({ className }: { className?: string }) {
  const { t } = useTranslation();
  return (
    <Form method="post" action="/sign-out" className={className}>
      <Button type="submit" variant="ghost" size="sm">
        {t("nav.signOut")}
      </Button>
    </Form>
  );
}

export function Logo() {
  return (
    <span className="flex items-center gap-2 text-lg font-semibold tracking-tight">
      <span
        aria-hidden="true"
        className="flex size-8 items-center justify-center rounded-xl bg-gradient-to-br from-violet-500 via-fuchsia-500 to-orange-400 text-white shadow-sm"
      >
        <Sparkles className="size-4" />
      </span>
      Atelier
    </span>
  );
}

function Header({ data }: { data: LayoutData | undefined }) {
  const user = data?.user ?? null;
  const items = useNavItems(Boolean(user), data?.isAdmin ?? false, data?.demoOpen ?? false);
  const { pathname } = useLocation();
  const { t } = useTranslation();
  return (
    <header className="sticky top-0 z-30 border-b border-border bg-background/85 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-7xl items-center justify-between gap-3 px-4">
        <Link to={user ? "/studio" : "/"} aria-label={t("brand.home")} className="rounded-xl">
          <Logo />
        </Link>

        {/* Wide screens: everything in one row. */}
        <nav
          aria-label={t("nav.main")}
          className={cn("hidden flex-1 items-center lg:flex", user ? "justify-center" : "justify-end")}
        >
          <NavLinks items={items} />
        </nav>

        <div className="flex items-center gap-2">
          {user && data?.balance ? <Balance {...data.balance} /> : null}
          {user ? (
            <SignOut className="hidden lg:block" />
          ) : (
            <div className="hidden items-center gap-1 sm:flex">
              <NavLink to="/sign-in" className="nav-link">
                {t("nav.signIn")}
              </NavLink>
              <Link to="/sign-up" className={buttonVariants({ size: "sm" })}>
                {t("nav.startCreating")}
              </Link>
            </div>
          )}
          {/* Narrow screens: the links fold into a menu that opens without JavaScript. */}
          <details className="relative lg:hidden" key={pathname}>
            <summary
              className={cn(buttonVariants({ variant: "secondary", size: "sm" }), "list-none")}
              aria-label={t("nav.menu")}
            >
              <Menu aria-hidden="true" />
              <span>{t("nav.menu")}</span>
            </summary>
            <nav
              aria-label={t("nav.mainMenu")}
              className="absolute right-0 z-40 mt-2 w-64 rounded-2xl border border-border bg-surface-raised p-2 shadow-xl"
            >
              <NavLinks items={items} vertical />
              <div className="mt-2 border-t border-border pt-2">
                {user ? (
                  <div className="flex items-center justify-between gap-2 px-1">
                    <span className="truncate text-sm text-muted-foreground">{user.email}</span>
                    <SignOut />
                  </div>
                ) : (
                  <NavLinks
                    items={[
                      { to: "/sign-in", label: t("nav.signIn") },
                      { to: "/sign-up", label: t("nav.signUp") },
                    ]}
                    vertical
                  />
                )}
              </div>
            </nav>
          </details>
        </div>
      </div>
    </header>
  );
}

function Live({ data }: { data: LayoutData | undefined }) {
  useLiveUpdates(data?.live ?? { active: [], finished: [] });
  return null;
}

function Shell({ data, children }: { data: LayoutData | undefined; children: React.ReactNode }) {
  const navigating = useNavigation().state === "loading";
  const { t } = useTranslation();
  return (
    <Toaster>
      {data?.origin ? <LanguageAlternates origin={data.origin} /> : null}
      <div className="flex min-h-screen flex-col">
        <a href="#main" className="skip-link">
          {t("nav.skipToContent")}
        </a>
        <Live data={data} />
        <Header data={data} />
        <div
          aria-hidden="true"
          className={cn("h-0.5 bg-primary transition-opacity", navigating ? "animate-pulse opacity-100" : "opacity-0")}
        />
        <main id="main" tabIndex={-1} className="mx-auto w-full max-w-7xl flex-1 px-4 py-8 focus:outline-none">
          {data?.notice ? (
            <Notice kind={data.notice.kind} className="mb-6">
              {t(`notices.${data.notice.key}`)}
            </Notice>
          ) : null}
          {children}
        </main>
        <footer className="border-t border-border">
          <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-2 px-4 py-6 text-sm text-muted-foreground">
            <span>Atelier {APP_VERSION}</span>
            <LanguageMenu />
            <span className="flex gap-4">
              {/* Out of the main nav (the studio is where results are made); text models stay a link away. */}
              {data?.user || data?.demoOpen ? (
                <Link to="/playground" className="hover:text-foreground">
                  {t("nav.playground")}
                </Link>
              ) : null}
              <Link to="/docs" className="hover:text-foreground">
                {t("footer.apiReference")}
              </Link>
              <a href="/api/openapi.json" className="hover:text-foreground">
                {t("footer.openapi")}
              </a>
              <Link to="/content-policy" className="hover:text-foreground">
                Content policy
              </Link>
            </span>
          </div>
        </footer>
      </div>
    </Toaster>
  );
}

export default function Layout({ loaderData }: Route.ComponentProps) {
  return (
    <Shell data={loaderData}>
      <Outlet />
    </Shell>
  );
}

/** Errors inside a page (and unknown addresses) keep the header and navigation. */
export function ErrorBoundary({ error, loaderData }: Route.ErrorBoundaryProps) {
  const { t } = useTranslation();
  let title = t("errors.somethingWrong");
  let details = t("errors.unexpected");
  let code = t("errors.error");
  if (isRouteErrorResponse(error)) {
    code = String(error.status);
    if (error.status === 404) {
      title = t("errors.notFoundTitle");
      details = t("errors.notFoundOrNotYours");
    } else if (error.status === 403) {
      title = t("errors.forbiddenTitle");
      details = t("errors.forbidden");
    } else {
      title = t("errors.errorStatus", { status: error.status });
      details = error.statusText || details;
    }
  }
  const data = loaderData as LayoutData | undefined;
  return (
    <Shell data={data}>
      <section className="mx-auto flex max-w-xl flex-col items-center py-16 text-center" aria-labelledby="error-h">
        <p
          className="bg-gradient-to-br from-violet-500 via-fuchsia-500 to-orange-400 bg-clip-text text-6xl font-bold tracking-tight text-transparent"
          aria-hidden="true"
        >
          {code}
        </p>
        <h1 id="error-h" className="mt-4 text-2xl font-semibold">
          {title}
        </h1>
        <p className="mt-2 text-muted-foreground">{details}</p>
        <div className="mt-8 flex flex-wrap justify-center gap-3">
          <Link className={buttonVariants()} to={data?.user ? "/studio" : "/"}>
            {data?.user ? t("errors.backToStudio") : t("errors.backToAtelier")}
          </Link>
          <Link className={buttonVariants({ variant: "secondary" })} to="/docs">
            {t("nav.apiDocs")}
          </Link>
        </div>
      </section>
    </Shell>
  );
}
