import type en from "../en/emails";
import type { Messages } from "../types";

export default {
  greeting: "こんにちは。",
  verify: {
    subject: "Atelier のメールアドレスを確認してください",
    body: "このアドレスを確認すると、Atelier アカウントの設定が完了します：",
    expiry: "リンクの有効期限は {{hours}} 時間です。登録した覚えがない場合は、このメールを無視してください。",
  },
  reset: {
    subject: "Atelier のパスワード再設定",
    body: "Atelier アカウントのパスワード再設定が依頼されました。こちらから新しいパスワードを設定してください：",
    expiry:
      "リンクの有効期限は {{hours}} 時間で、1 回だけ使えます。新しいパスワードを保存すると、アカウントのすべてのセッションがログアウトされ、これまでに作成した API キーと Webhook は無効になります。アカウントを不正に使っていた人はアクセスを失います。",
    alsoRemoves:
      "あわせて、パスキー、2 段階認証（認証アプリ、バックアップコード、信頼済みデバイス）、連携したログイン方法も削除されます。ログインできるのは新しいパスワードだけになり、ご自身のものはあとから追加し直せます。",
    notYou: "心当たりがない場合は、このメールを無視してください。パスワードは変更されません。",
  },
  registered: {
    subject: "Atelier のアカウントはすでにあります",
    body: "どなたか（あなたかもしれません）が、すでにアカウントのあるこのアドレスで Atelier のアカウントを作成しようとしました。",
    signIn: "ログイン：{{url}}",
    forgot: "パスワードをお忘れですか？ {{url}}",
    notYou: "心当たりがない場合は、何もする必要はありません。",
  },
} satisfies Messages<typeof en>;
