import type en from "../en/feedback";
import type { Messages } from "../types";

export default {
  title: "フィードバック — Atelier",
  heading: "フィードバック",
  description: "うまくいっていること、いないこと、Atelier にしてほしいこと。すべてのメッセージに目を通しています。",
  sent: "ありがとうございます。フィードバックを受け付けました。",
  limited: "この 1 時間にたくさんのフィードバックをお送りいただきました。少し時間をおいてからお試しください。",
  label: "フィードバック",
  hint: "{{max}} 文字まで。",
  rating: "Atelier の使い心地はいかがですか？",
  stars_other: "星 {{count}}",
  send: "フィードバックを送信",
  sending: "送信中…",
} satisfies Messages<typeof en>;
