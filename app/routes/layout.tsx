import { Coins, Menu, Sparkles } from "lucide-react";
import { Form, isRouteErrorResponse, Link, NavLink, Outlet, useLocation, useNavigation } from "react-router";
import { type LiveTask, useLiveUpdates } from "~/components/live";
import { Button, buttonVariants, cn, Notice, Toaster } from "~/components/ui";
import { balanceOf } from "~/domain/credits/ledger.server";
import { liveSummary } from "~/domain/generations/live.server";
import { getServices } from "~/http/services.server";
import { getUiUser } from "~/http/session.server";
import { noticeFrom } from "~/lib/notices";
import { APP_VERSION } from "~/lib/version";
import type { Route } from "./+types/layout";

export async function loader({ request }: Route.LoaderArgs) {
  const ui = await getUiUser(request);
  const notice = noticeFrom(request.url);
  const { db, clock, config } = getServices();
  const demoOpen = !config.isProduction || config.DEMO_PUBLIC;
  if (!ui) return { user: null, balance: null, live: { active: [], finished: [] }, isAdmin: false, notice, demoOpen };
  return {
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

function navItems(signedIn: boolean, isAdmin: boolean, demoOpen: boolean): NavItem[] {
  if (!signedIn)
    return [
      ...(demoOpen ? [{ to: "/playground", label: "Playground" }] : []),
      { to: "/pricing", label: "Pricing" },
      { to: "/docs", label: "API docs" },
    ];
  return [
    { to: "/studio", label: "Studio" },
    { to: "/pricing", label: "Pricing" },
    { to: "/account", label: "Account" },
    { to: "/keys", label: "API keys" },
    { to: "/feedback", label: "Feedback" },
    { to: "/docs", label: "API docs" },
    ...(isAdmin ? [{ to: "/admin", label: "Admin" }] : []),
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
  const label = `${available} ${available === 1 ? "credit" : "credits"}`;
  return (
    <Link
      to="/account#credits"
      className="inline-flex h-9 items-center gap-1.5 rounded-full border border-border bg-surface px-3 text-sm font-medium whitespace-nowrap hover:bg-muted"
      aria-label={`Balance: ${label} available${held ? `, ${held} held by running tasks` : ""} (credits and daily check-in)`}
    >
      <Coins aria-hidden="true" className="size-4 text-accent" />
      <span data-testid="balance">{label}</span>
      {held ? (
        <span className="hidden text-muted-foreground sm:inline" data-testid="held">
          · {held} held
        </span>
      ) : null}
    </Link>
  );
}

function SignOut({ className }: { className?: string }) {
  return (
    <Form method="post" action="/sign-out" className={className}>
      <Button type="submit" variant="ghost" size="sm">
        Sign out
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
  const items = navItems(Boolean(user), data?.isAdmin ?? false, data?.demoOpen ?? false);
  const { pathname } = useLocation();
  return (
    <header className="sticky top-0 z-30 border-b border-border bg-background/85 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-7xl items-center justify-between gap-3 px-4">
        <Link to={user ? "/studio" : "/"} aria-label="Atelier home" className="rounded-xl">
          <Logo />
        </Link>

        {/* Wide screens: everything in one row. */}
        <nav
          aria-label="Main"
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
                Sign in
              </NavLink>
              <Link to="/sign-up" className={buttonVariants({ size: "sm" })}>
                Start creating
              </Link>
            </div>
          )}
          {/* Narrow screens: the links fold into a menu that opens without JavaScript. */}
          <details className="relative lg:hidden" key={pathname}>
            <summary
              className={cn(buttonVariants({ variant: "secondary", size: "sm" }), "list-none")}
              aria-label="Menu"
            >
              <Menu aria-hidden="true" />
              <span>Menu</span>
            </summary>
            <nav
              aria-label="Main menu"
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
                      { to: "/sign-in", label: "Sign in" },
                      { to: "/sign-up", label: "Sign up" },
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
  return (
    <Toaster>
      <div className="flex min-h-screen flex-col">
        <a href="#main" className="skip-link">
          Skip to content
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
              {data.notice.text}
            </Notice>
          ) : null}
          {children}
        </main>
        <footer className="border-t border-border">
          <div className="mx-auto flex max-w-7xl flex-wrap items-center justify-between gap-2 px-4 py-6 text-sm text-muted-foreground">
            <span>Atelier {APP_VERSION}</span>
            <span className="flex gap-4">
              {/* Out of the main nav (the studio is where results are made); text models stay a link away. */}
              {data?.user || data?.demoOpen ? (
                <Link to="/playground" className="hover:text-foreground">
                  Playground
                </Link>
              ) : null}
              <Link to="/docs" className="hover:text-foreground">
                API reference
              </Link>
              <a href="/api/openapi.json" className="hover:text-foreground">
                OpenAPI
              </a>
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
  let title = "Something went wrong";
  let details = "An unexpected error occurred. Please try again.";
  let code = "Error";
  if (isRouteErrorResponse(error)) {
    code = String(error.status);
    if (error.status === 404) {
      title = "Page not found";
      details = "The page you asked for does not exist, or it is not yours.";
    } else if (error.status === 403) {
      title = "Not allowed";
      details = "You do not have access to this page.";
    } else {
      title = `Error ${error.status}`;
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
            {data?.user ? "Back to the studio" : "Back to Atelier"}
          </Link>
          <Link className={buttonVariants({ variant: "secondary" })} to="/docs">
            API docs
          </Link>
        </div>
      </section>
    </Shell>
  );
}
