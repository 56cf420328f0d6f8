import type en from "../en/emails";
import type { Messages } from "../types";

export default {
  greeting: "你好，",
  verify: {
    subject: "请确认你在 Atelier 的邮箱地址",
    body: "确认此邮箱地址，即可完成 Atelier 账户的设置：",
    expiry: "链接在 {{hours}} 小时内有效。如果你没有注册过，请忽略此邮件。",
  },
  reset: {
    subject: "重置你的 Atelier 密码",
    body: "有人请求重置你 Atelier 账户的密码。请在这里设置新密码：",
    expiry:
      "链接在 {{hours}} 小时内有效，且只能使用一次。保存新密码后，该账户的所有会话都会退出，之前创建的 API 密钥和 Webhook 也会被撤销：任何占用该账户的人都将失去访问权限。",
    alsoRemoves:
      "同时还会移除它的通行密钥、两步验证（身份验证器应用、备用码、受信任设备）以及关联的登录方式：之后只能用新密码登录，属于你的方式可以再添加回来。",
    notYou: "如果不是你本人操作，请忽略此邮件：你的密码保持不变。",
  },
  registered: {
    subject: "你已经有 Atelier 账户了",
    body: "有人（也许是你）试图用这个邮箱地址创建 Atelier 账户，但该地址已经注册过。",
    signIn: "登录：{{url}}",
    forgot: "忘记密码？{{url}}",
    notYou: "如果不是你本人操作，无需做任何事。",
  },
} satisfies Messages<typeof en>;
