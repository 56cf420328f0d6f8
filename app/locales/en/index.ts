import common from "./common";

/** English: the reference every other language follows, key for key. */
const en = { common };
export default en;
export type Resources = typeof en;
