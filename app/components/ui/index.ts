/** The component kit: small files of ours, variants declared once (cva), classes merged (tailwind-merge). */
export { AuthCard, EmailLinkForm, type EmailLinkResult } from "./auth-card";
export { Badge, badgeVariants } from "./badge";
export { Button, type ButtonVariants, buttonVariants } from "./button";
export { Card, cardClass } from "./card";
export { cn } from "./cn";
export { CopyButton } from "./copy-button";
export { Facts } from "./facts";
export { coverInput, Field, FieldError, Hint, inputClass, labelClass, Select, TextArea } from "./field";
export { duration, formatDate, plural, utcTime } from "./format";
export { Notice } from "./notice";
export { EmptyState, PageHeader, Pagination, Skeleton, TableScroll } from "./page";
export { Row, RowList } from "./row-list";
export { Stat } from "./stat";
export { type Column, DataTable, table } from "./table";
export { Toaster, type ToastInput, useToast } from "./toast";
export { useBusyAction } from "./use-busy-action";
