import auth from "./auth";
import common from "./common";
import home from "./home";
import pricing from "./pricing";

/** English: the reference every other language follows, key for key. */
const en = { common, home, pricing, auth };
export default en;
export type Resources = typeof en;
