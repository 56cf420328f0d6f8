/** Column helpers shared by the tables: times are integer milliseconds since the epoch (UTC). */
import { sql } from "drizzle-orm";
import { integer } from "drizzle-orm/sqlite-core";

export const ms = (name: string) => integer(name, { mode: "timestamp_ms" });
export const createdAt = () => ms("created_at").notNull().default(sql`(unixepoch('subsec') * 1000)`);
