import type en from "../en/feedback";
import type { Messages } from "../types";

export default {
  title: "反馈 — Atelier",
  heading: "反馈",
  description: "哪些好用、哪些不好用、你希望 Atelier 还能做什么。每条消息我们都会阅读。",
  sent: "谢谢！我们已收到你的反馈。",
  limited: "你在过去一小时内发送了很多反馈，请稍后再试。",
  label: "你的反馈",
  hint: "最多 {{max}} 个字符。",
  rating: "到目前为止，你觉得 Atelier 怎么样？",
  stars_other: "{{count}} 星",
  send: "发送反馈",
  sending: "正在发送…",
} satisfies Messages<typeof en>;
