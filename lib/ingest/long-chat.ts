/**
 * A long OpenAI chat log, generated: a support agent that looks things up in
 * `turns` tool turns (an assistant message with one tool call, then its
 * result), then answers. Message sizes are those of real logs (about 560 bytes
 * a turn), and every text differs, so nothing compresses or deduplicates by
 * accident. Deterministic: the same `turns` always gives the same document.
 * Used by the long-session tests and `bench/long.ts`.
 */
export function longChatLog(turns: number): { model: string; messages: unknown[]; tools: unknown[] } {
  const messages: unknown[] = [
    {
      role: "system",
      content:
        "You are a support agent for an online store. Look orders up before answering, quote what the tools return, and never promise a refund the policy does not allow.",
    },
    { role: "user", content: "Hello, I ordered several things last month and I want to know where each of them is." },
  ];
  for (let t = 0; t < turns; t++) {
    const id = `call_${t.toString(36).padStart(6, "0")}`;
    const order = `W${(1_000_000 + t * 7919).toString().slice(-7)}`;
    messages.push({
      role: "assistant",
      content: t % 5 === 0 ? `Let me check order ${order} for you (step ${t + 1}).` : null,
      tool_calls: [
        {
          id,
          type: "function",
          function: { name: "get_order_details", arguments: JSON.stringify({ order_id: order, include: ["items"] }) },
        },
      ],
    });
    messages.push({
      role: "tool",
      tool_call_id: id,
      content: JSON.stringify({
        order_id: order,
        status: ["pending", "processed", "delivered", "cancelled"][t % 4],
        items: [
          { name: `Item ${t}-a`, price: (t % 97) + 0.99, item_id: `${t}01` },
          { name: `Item ${t}-b`, price: (t % 53) + 10.5, item_id: `${t}02` },
        ],
        address: { city: `City ${t % 31}`, zip: `${10000 + (t % 89999)}` },
        note: `Order ${order} was placed on day ${t % 28} and ships from warehouse ${t % 9}.`,
      }),
    });
  }
  messages.push({ role: "assistant", content: `I checked all ${turns} orders: every one is accounted for.` });
  return {
    model: "gpt-4o",
    messages,
    tools: [
      {
        type: "function",
        function: {
          name: "get_order_details",
          description: "Get the status and items of an order.",
          parameters: {
            type: "object",
            properties: { order_id: { type: "string" }, include: { type: "array", items: { type: "string" } } },
            required: ["order_id"],
          },
        },
      },
    ],
  };
}
