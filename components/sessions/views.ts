/** The session page's views, as the URL names them (`?view=`); the conversation is the default. */
export const SESSION_VIEWS = ["chat", "timeline", "waterfall"] as const;
export type SessionViewName = (typeof SESSION_VIEWS)[number];

export function parseSessionView(value: unknown): SessionViewName {
  return (SESSION_VIEWS as readonly unknown[]).includes(value) ? (value as SessionViewName) : "chat";
}
