import { Form, isRouteErrorResponse, Link, NavLink, Outlet, useLocation, useNavigation } from "react-router";
import { Notice } from "~/components/ui";
import { getCredits } from "~/domain/credits/ledger.server";
import { noticeFrom } from "~/lib/notices";
import { getServices } from "~/lib/services.server";
import { getUiUser } from "~/lib/session.server";
import { APP_VERSION } from "~/lib/version";
import type { Route } from "./+types/layout";

export async function loader({ request }: Route.LoaderArgs) {
  const ui = await getUiUser(request);
  const notice = noticeFrom(request.url);
  const { db, clock, config } = getServices();
  const demoOpen = !config.isProduction || config.DEMO_PUBLIC;
  if (!ui) return { user: null, credits: null, isAdmin: false, notice, demoOpen };
  return {
    user: { name: ui.user.name, email: ui.user.email },
    credits: (await db.exec(getCredits(db, ui.user.id, clock))).left_credits,
    isAdmin: ui.isAdmin,
    notice,
    demoOpen,
  };
}

interface NavItem {
  to: string;
  label: string;
}

function navItems(signedIn: boolean, isAdmin: boolean, demoOpen: boolean): NavItem[] {
  if (!signedIn) return [...(demoOpen ? [{ to: "/playground", label: "Playground" }] : []), { to: "/pricing", label: "Pricing" }, { to: "/docs", label: "API docs" }];
  return [
    { to: "/studio", label: "Studio" },
    { to: "/playground", label: "Playground" },
    { to: "/account", label: "Account" },
    { to: "/pricing", label: "Pricing" },
    { to: "/keys", label: "API keys" },
    { to: "/feedback", label: "Feedback" },
    { to: "/docs", label: "API docs" },
    ...(isAdmin ? [{ to: "/admin", label: "Admin" }] : []),
  ];
}

function NavLinks({ items, vertical }: { items: NavItem[]; vertical?: boolean }) {
  return (
    <ul className={vertical ? "flex flex-col gap-1" : "flex flex-wrap items-center gap-1"}>
      {items.map((i) => (
        <li key={i.to}>
          <NavLink to={i.to} className={`nav-link ${vertical ? "block" : ""}`} prefetch="intent">
            {i.label}
          </NavLink>
        </li>
      ))}
    </ul>
  );
}

function Balance({ credits }: { credits: number }) {
  return (
    <Link
      to="/account"
      className="rounded-full bg-amber-100 px-3 py-1 text-sm font-medium whitespace-nowrap text-amber-900 hover:bg-amber-200"
      aria-label={`Balance: ${credits} ${credits === 1 ? "credit" : "credits"} (account)`}
      data-testid="balance"
    >
      {credits} {credits === 1 ? "credit" : "credits"}
    </Link>
  );
}

function SignOut() {
  return (
    <Form method="post" action="/sign-out">
      <button type="submit" className="btn-secondary">
        Sign out
      </button>
    </Form>
  );
}

function Header({ user, credits, isAdmin, demoOpen }: Pick<Route.ComponentProps["loaderData"], "user" | "credits" | "isAdmin" | "demoOpen">) {
  const items = navItems(Boolean(user), isAdmin, demoOpen);
  const { pathname } = useLocation();
  return (
    <header className="border-b border-slate-200 bg-white">
      <div className="mx-auto flex max-w-6xl items-center justify-between gap-3 px-4 py-3">
        <Link to={user ? "/studio" : "/"} className="flex items-center gap-2 text-lg font-semibold tracking-tight">
          <img src="/favicon.svg" alt="" className="h-6 w-6" />
          Atelier
        </Link>

        <div className="flex items-center gap-2">
          {/* Wide screens: everything in one row. */}
          <nav aria-label="Main" className="hidden items-center gap-2 lg:flex">
            <NavLinks items={items} />
            {user ? null : (
              <>
                <NavLink to="/sign-in" className="nav-link">
                  Sign in
                </NavLink>
                <Link to="/sign-up" className="btn-primary">
                  Sign up
                </Link>
              </>
            )}
          </nav>
          {user ? <Balance credits={credits ?? 0} /> : null}
          {user ? (
            <div className="hidden lg:block">
              <SignOut />
            </div>
          ) : null}
          {/* Narrow screens: the links fold into a menu that opens without JavaScript. */}
          <details className="group relative lg:hidden" key={pathname}>
            <summary className="btn-secondary cursor-pointer list-none" aria-label="Menu">
              <svg aria-hidden="true" viewBox="0 0 20 20" className="h-5 w-5" fill="currentColor">
                <path d="M3 5h14v2H3zM3 9h14v2H3zM3 13h14v2H3z" />
              </svg>
              <span>Menu</span>
            </summary>
            <nav
              aria-label="Main menu"
              className="absolute right-0 z-20 mt-2 w-64 rounded-lg border border-slate-200 bg-white p-2 shadow-lg"
            >
              <NavLinks items={items} vertical />
              <div className="mt-2 border-t border-slate-200 pt-2">
                {user ? (
                  <div className="flex items-center justify-between gap-2 px-1">
                    <span className="truncate text-sm text-slate-600">{user.email}</span>
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

function Shell({ data, children }: { data: Route.ComponentProps["loaderData"] | undefined; children: React.ReactNode }) {
  const navigating = useNavigation().state === "loading";
  return (
    <div className="flex min-h-screen flex-col">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <Header user={data?.user ?? null} credits={data?.credits ?? null} isAdmin={data?.isAdmin ?? false} demoOpen={data?.demoOpen ?? false} />
      <div aria-hidden="true" className={`h-0.5 bg-indigo-600 transition-opacity ${navigating ? "animate-pulse opacity-100" : "opacity-0"}`} />
      <main id="main" tabIndex={-1} className="mx-auto w-full max-w-6xl flex-1 px-4 py-8 focus:outline-none">
        {data?.notice ? (
          <div className="mb-6">
            <Notice kind={data.notice.kind}>{data.notice.text}</Notice>
          </div>
        ) : null}
        {children}
      </main>
      <footer className="border-t border-slate-200 bg-white">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-2 px-4 py-4 text-sm text-slate-600">
          <span>Atelier {APP_VERSION}</span>
          <span className="flex gap-4">
            <Link to="/docs" className="link">
              API reference
            </Link>
            <a href="/api/openapi.json" className="link">
              OpenAPI
            </a>
          </span>
        </div>
      </footer>
    </div>
  );
}

export default function Layout({ loaderData }: Route.ComponentProps) {
  return (
    <Shell data={loaderData}>
      <Outlet />
    </Shell>
  );
}

/** Errors inside a page keep the header and navigation. */
export function ErrorBoundary({ error, loaderData }: Route.ErrorBoundaryProps) {
  let title = "Something went wrong";
  let details = "An unexpected error occurred. Please try again.";
  if (isRouteErrorResponse(error)) {
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
  return (
    <Shell data={loaderData as Route.ComponentProps["loaderData"] | undefined}>
      <section className="mx-auto max-w-xl py-8" aria-labelledby="error-h">
        <h1 id="error-h" className="text-2xl font-semibold">
          {title}
        </h1>
        <p className="mt-2 text-slate-600">{details}</p>
        <Link className="btn-secondary mt-6" to="/">
          Back to Atelier
        </Link>
      </section>
    </Shell>
  );
}
