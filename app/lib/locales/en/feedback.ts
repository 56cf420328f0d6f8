// The feedback page (app/routes/feedback.tsx).
export default {
  title: "Feedback — Atelier",
  heading: "Feedback",
  description: "What works, what doesn’t, what you wish Atelier did. We read every message.",
  sent: "Thank you! Your feedback was received.",
  limited: "You have sent a lot of feedback in the last hour. Please try again a little later.",
  label: "Your feedback",
  hint: "Up to {{max}} characters.",
  rating: "How do you like Atelier so far?",
  stars_one: "{{count}} star",
  stars_other: "{{count}} stars",
  send: "Send feedback",
  sending: "Sending…",
};
