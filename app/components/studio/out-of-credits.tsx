import { TriangleAlert } from "lucide-react";
import { Link } from "react-router";
import { Button, buttonVariants, plural } from "~/components/ui";

export function OutOfCredits({ need, have, checkedIn }: { need: number; have: number; checkedIn: boolean }) {
  return (
    <div
      role="alert"
      className="rounded-2xl border border-danger/30 bg-danger-soft p-4 text-sm text-danger-soft-foreground"
      data-testid="out-of-credits"
    >
      <p className="flex items-center gap-2 font-semibold">
        <TriangleAlert aria-hidden="true" className="size-4" />
        Not enough credits for this model
      </p>
      <p className="mt-1">
        It costs {plural(need, "credit")} and you have {have} available. Pick a cheaper model, or get more credits:
      </p>
      <div className="mt-3 flex flex-wrap gap-2">
        {checkedIn ? null : (
          <Button type="submit" form="studio-checkin" size="sm">
            Check in for 1 free credit
          </Button>
        )}
        <Link
          to={`/pricing?need=${need}&return=studio`}
          className={buttonVariants({ variant: checkedIn ? "primary" : "secondary", size: "sm" })}
        >
          Buy credits
        </Link>
      </div>
    </div>
  );
}
