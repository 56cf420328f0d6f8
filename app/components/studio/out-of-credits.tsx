import { TriangleAlert } from "lucide-react";
import { useTranslation } from "react-i18next";
import { Link } from "react-router";
import { Button, buttonVariants } from "~/components/ui";

export function OutOfCredits({ need, have, checkedIn }: { need: number; have: number; checkedIn: boolean }) {
  const { t } = useTranslation("studio");
  return (
    <div
      role="alert"
      className="rounded-2xl border border-danger/30 bg-danger-soft p-4 text-sm text-danger-soft-foreground"
      data-testid="out-of-credits"
    >
      <p className="flex items-center gap-2 font-semibold">
        <TriangleAlert aria-hidden="true" className="size-4" />
        {t("outOfCredits.title")}
      </p>
      <p className="mt-1">{t("outOfCredits.text", { cost: t("credits", { count: need }), have })}</p>
      <div className="mt-3 flex flex-wrap gap-2">
        {checkedIn ? null : (
          <Button type="submit" form="studio-checkin" size="sm">
            {t("outOfCredits.checkIn")}
          </Button>
        )}
        <Link
          to={`/pricing?need=${need}&return=studio`}
          className={buttonVariants({ variant: checkedIn ? "primary" : "secondary", size: "sm" })}
        >
          {t("outOfCredits.buy")}
        </Link>
      </div>
    </div>
  );
}
