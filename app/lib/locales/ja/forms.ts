import type en from "../en/forms";
import type { Messages } from "../types";

export default {
  field: {
    enterName: "名前を入力してください",
    max100: "100 文字以内で入力してください",
    oneLine: "制御文字を含まない 1 行で入力してください",
    email: "有効なメールアドレスを入力してください",
    min8: "8 文字以上で入力してください",
    max128: "128 文字以内で入力してください",
    enterPassword: "パスワードを入力してください",
    linkIncomplete: "このリンクは不完全です。新しいリンクを請求してください。",
    passwordsDiffer: "2 つのパスワードが一致しません",
  },
  auth: {
    exists: "このメールアドレスのアカウントはすでにあります。ログインしてください。",
    wrongPassword: "メールアドレスまたはパスワードが正しくありません。",
    notVerified: "先にメールアドレスを確認してください。新しいリンクをお送りしました。",
    tooShort: "パスワードが短すぎます（8 文字以上）。",
    tooLong: "パスワードが長すぎます（128 文字以内）。",
    badLink: "このリンクは無効か期限切れです。新しいリンクを請求してください。",
    disposable: "使い捨てメールアドレスでは登録できません。普段お使いのアドレスをご利用ください。",
    tooMany: "お使いのネットワークからの試行が多すぎます。1 分ほど待ってからお試しください。",
  },
} satisfies Messages<typeof en>;
