import type en from "../en/pricing";
import type { Messages } from "../types";

export default {
  title: "料金 — Atelier",
  heading: "料金",
  description:
    "クレジットパック（有効期限 1 年）を購入するか、サブスクリプションで期間ごとに新しいクレジットを受け取れます。クレジットは生成が完了したときだけ消費されます。",
  needMore:
    "この生成には {{need}} クレジットが必要ですが、利用可能なのは {{available}} です。下からチャージして続けてください。",
  simulated:
    "このサーバーの支払いはシミュレーションです（Stripe キー未設定）。購入手続きは誰にも請求されずに完了します。",
  canceledSimulated: "サブスクリプションを解約しました（シミュレーション）。",
  balance: "残高",
  available: "利用可能",
  held: "実行中のタスクで保留中",
  plan: "プラン",
  standardPlan: "スタンダード",
  manage: "サブスクリプションを管理",
  cancelSimulated: "サブスクリプションを解約（シミュレーション）",
  packs: "クレジットパック",
  subscriptions: "サブスクリプション",
  bestValue: "いちばんお得",
  interval: { month: "月", year: "年" },
  perInterval: " / {{interval}}",
  creditsEvery_other: "{{interval}}ごとに {{count, number}} クレジット",
  creditsYear_other: "{{count, number}} クレジット（有効期限 1 年）",
  perCredit: "1 クレジットあたり {{price}}",
  images_other: "画像 {{count, number}} 枚",
  videos_other: "動画 {{count, number}} 本",
  or: " または ",
  typical: "（標準的な料金の場合）",
  current: "現在のプラン",
  subscribe: "{{name}} に登録",
  buy: "{{name}} を購入",
  signInToBuy: "ログインして購入",
} satisfies Messages<typeof en>;
