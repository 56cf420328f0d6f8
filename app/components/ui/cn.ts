import { type ClassValue, clsx } from "clsx";
import { twMerge } from "tailwind-merge";

/** Joins class names; later Tailwind classes win over earlier ones (`cn("px-4", props.className)`). */
export const cn = (...inputs: ClassValue[]) => twMerge(clsx(inputs));
