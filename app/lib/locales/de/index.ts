import auth from "./auth";
import common from "./common";
import emails from "./emails";
import feedback from "./feedback";
import forms from "./forms";
import home from "./home";
import pricing from "./pricing";
import studio from "./studio";

export default { common, home, pricing, auth, studio, forms, emails, feedback };
