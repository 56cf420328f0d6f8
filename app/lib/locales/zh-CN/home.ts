import type en from "../en/home";
import type { Messages } from "../types";

export default {
  title: "Atelier — 用 AI 创作图片和视频",
  description: "描述一幅画面或一段短片，选择模型，片刻即得。注册即送免费积分。",
  badge: "注册即送 10 积分",
  heroBefore: "把文字变成",
  heroHighlight: "图片和视频",
  lead: "描述你的想象，选择一个模型，几秒钟就能看到结果。所有作品都保存在同一个作品库里，可随时下载，也能一键换个模型再试同一个创意。",
  startFree: "免费开始创作",
  signIn: "登录",
  examples: "在 Atelier 中生成的示例",
  samples: {
    dusk: "黄昏时分的紫色群山，温暖的夕阳低悬在山脊之上",
    coast: "正午明亮的海岸线，层层叠叠的蓝色海岬",
    aurora: "漆黑山谷上空的北极光与星空，16:9",
    dunes: "淡淡沙漠阳光下的橙色沙丘",
    bloom: "梦幻薄雾中的粉色山丘，海报风格",
    valley: "清晨的绿色山谷，柔和的光线",
  },
  featuresTitle: "一站式创作",
  features: {
    models: {
      title: "多种模型，一个工作室",
      text: "OpenAI、Replicate 上的 FLUX、Kling 和 Runway 并排呈现——比较价格，按提示词挑选。",
    },
    media: { title: "图片与视频", text: "任意宽高比的静态图，以及可在作品库中直接播放的短片。" },
    pay: { title: "只为结果付费", text: "注册送免费积分，每天签到再得一个。生成失败不扣积分。" },
    api: { title: "需要时还有 API", text: "工作室能做的一切，你的程序用 API 密钥同样能做。" },
  },
  ctaTitle: "一分钟后，就能看到你的第一件作品",
  ctaText: "无需绑卡。注册，输入提示词，点击“生成”。",
  ctaButton: "创建账户",
} satisfies Messages<typeof en>;
