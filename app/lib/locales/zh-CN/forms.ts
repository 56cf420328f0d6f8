import type en from "../en/forms";
import type { Messages } from "../types";

export default {
  field: {
    enterName: "请输入你的名字",
    max100: "最多 100 个字符",
    oneLine: "仅限一行，不含控制字符",
    email: "请输入有效的邮箱地址",
    min8: "至少 8 个字符",
    max128: "最多 128 个字符",
    enterPassword: "请输入密码",
    linkIncomplete: "此链接不完整，请重新获取。",
    passwordsDiffer: "两次输入的密码不一致",
  },
  auth: {
    exists: "该邮箱已注册账户，请直接登录。",
    wrongPassword: "邮箱或密码不正确。",
    notVerified: "请先确认你的邮箱：我们已向你发送了新的链接。",
    tooShort: "密码太短（至少 8 个字符）。",
    tooLong: "密码太长（最多 128 个字符）。",
    badLink: "此链接无效或已过期，请重新获取。",
    disposable: "不接受一次性邮箱注册，请使用你长期使用的邮箱。",
    tooMany: "你的网络尝试次数过多，请等一分钟后重试。",
  },
} satisfies Messages<typeof en>;
