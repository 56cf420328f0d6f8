import auth from "./auth";
import common from "./common";
import home from "./home";
import pricing from "./pricing";

export default { common, home, pricing, auth };
