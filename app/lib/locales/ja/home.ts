import type en from "../en/home";
import type { Messages } from "../types";

export default {
  title: "Atelier — AI で画像と動画をつくる",
  description: "描きたい画像や映像を言葉にして、モデルを選ぶだけ。無料クレジットですぐに始められます。",
  badge: "新規登録で 10 クレジット無料",
  heroBefore: "言葉を",
  heroHighlight: "画像と動画に",
  lead: "思い描いたものを言葉にしてモデルを選べば、数秒で結果が届きます。作品はすべてひとつのギャラリーに保存。ダウンロードも、同じアイデアを別のモデルで試すのもワンクリックです。",
  startFree: "無料で作成をはじめる",
  signIn: "ログイン",
  examples: "Atelier で作成した例",
  samples: {
    dusk: "夕暮れの紫の山々、稜線の上に低く沈む暖かな太陽",
    coast: "真昼の明るい海岸線、幾重にも重なる青い岬",
    aurora: "暗い谷の上に広がるオーロラと星空、16:9",
    dunes: "淡い砂漠の日差しを浴びるオレンジ色の砂丘",
    bloom: "夢のような霞に包まれたピンクの丘、ポスター風",
    valley: "朝の緑の谷、やわらかな光",
  },
  featuresTitle: "すべてをひとつの場所で",
  features: {
    models: {
      title: "多彩なモデルをひとつのスタジオで",
      text: "OpenAI、Replicate の FLUX、Kling、Runway を並べて比較。料金を見比べて、プロンプトごとに選べます。",
    },
    media: { title: "画像も動画も", text: "好きなアスペクト比の静止画と、ギャラリーでそのまま再生できる短い動画。" },
    pay: {
      title: "支払いは結果にだけ",
      text: "無料クレジットで始められ、毎日のチェックインでさらに 1 クレジット。生成に失敗しても料金はかかりません。",
    },
    api: { title: "必要なときは API で", text: "スタジオでできることは、API キーを使えばプログラムからもできます。" },
  },
  ctaTitle: "最初の作品まで、あと 1 分",
  ctaText: "カード登録は不要。登録して、プロンプトを入力し、「生成」を押すだけ。",
  ctaButton: "アカウントを作成",
} satisfies Messages<typeof en>;
