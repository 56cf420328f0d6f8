import { Form, NavLink, Outlet } from "react-router";
import { getCredits } from "~/domain/credits/ledger.server";
import { getServices } from "~/lib/services.server";
import { getUiUser } from "~/lib/session.server";
import type { Route } from "./+types/layout";

export async function loader({ request }: Route.LoaderArgs) {
  const ui = await getUiUser(request);
  const { db, clock, config } = getServices();
  const demoOpen = !config.isProduction || config.DEMO_PUBLIC;
  if (!ui) return { user: null, credits: null, isAdmin: false, demoOpen };
  return {
    user: { name: ui.user.name, email: ui.user.email },
    credits: getCredits(db, ui.user.id, clock).left_credits,
    isAdmin: ui.isAdmin,
    demoOpen,
  };
}

const navClass = ({ isActive }: { isActive: boolean }) =>
  `rounded-md px-3 py-2 text-sm font-medium ${isActive ? "bg-slate-900 text-white" : "text-slate-700 hover:bg-slate-200"}`;

export default function Layout({ loaderData }: Route.ComponentProps) {
  const { user, credits, demoOpen } = loaderData;
  return (
    <div className="min-h-screen">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-3 px-4 py-3">
          <a href="/" className="text-lg font-semibold tracking-tight">
            Atelier
          </a>
          <nav aria-label="Main" className="flex flex-wrap items-center gap-1">
            {user ? (
              <>
                <NavLink to="/studio" className={navClass}>
                  Studio
                </NavLink>
                <NavLink to="/account" className={navClass}>
                  Account
                </NavLink>
                <NavLink to="/playground" className={navClass}>
                  Playground
                </NavLink>
                <NavLink to="/keys" className={navClass}>
                  API keys
                </NavLink>
                <NavLink to="/feedback" className={navClass}>
                  Feedback
                </NavLink>
                <span className="ml-2 rounded-full bg-amber-100 px-3 py-1 text-sm font-medium text-amber-900" aria-label={`Balance: ${credits} credits`}>
                  {credits} credits
                </span>
                <Form method="post" action="/sign-out" className="ml-2">
                  <button type="submit" className="btn-secondary">
                    Sign out
                  </button>
                </Form>
              </>
            ) : (
              <>
                {demoOpen ? (
                  <NavLink to="/playground" className={navClass}>
                    Playground
                  </NavLink>
                ) : null}
                <NavLink to="/sign-in" className={navClass}>
                  Sign in
                </NavLink>
                <NavLink to="/sign-up" className={navClass}>
                  Sign up
                </NavLink>
              </>
            )}
          </nav>
        </div>
      </header>
      <main className="mx-auto max-w-6xl px-4 py-8">
        <Outlet />
      </main>
    </div>
  );
}
