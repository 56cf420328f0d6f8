import { data } from "react-router";

/** Any unknown page address: the layout's error page (header and navigation kept) with status 404. */
export function loader() {
  throw data("Not found", { status: 404 });
}

export default function NotFound() {
  return null;
}
