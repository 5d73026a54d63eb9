import ReactMarkdown, { type Components } from "react-markdown";

const COMPONENTS: Components = {
  a: ({ href, children }) => (
    <a href={href} rel="noopener noreferrer nofollow" target="_blank" className="text-indigo-700 underline">
      {children}
    </a>
  ),
  h1: ({ children }) => <h4 className="mt-3 mb-1 text-base font-semibold">{children}</h4>,
  h2: ({ children }) => <h4 className="mt-3 mb-1 text-base font-semibold">{children}</h4>,
  h3: ({ children }) => <h5 className="mt-3 mb-1 text-sm font-semibold">{children}</h5>,
  p: ({ children }) => <p className="my-2 leading-relaxed">{children}</p>,
  ul: ({ children }) => <ul className="my-2 list-disc pl-5">{children}</ul>,
  ol: ({ children }) => <ol className="my-2 list-decimal pl-5">{children}</ol>,
  code: ({ children }) => <code className="rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.85em]">{children}</code>,
  pre: ({ children }) => (
    <pre className="my-2 overflow-auto rounded border border-slate-200 bg-slate-50 p-2 text-xs">{children}</pre>
  ),
  blockquote: ({ children }) => (
    <blockquote className="my-2 border-l-2 border-slate-300 pl-3 text-slate-600">{children}</blockquote>
  ),
};

/**
 * The analyst's Markdown, rendered safely: raw HTML is dropped (never
 * parsed), and images are not loaded (a shared page must not call other
 * hosts); their alt text stays.
 */
export function Markdown({ text, empty = "Not filled in." }: { text: string; empty?: string }) {
  if (!text.trim()) return <p className="text-sm text-slate-500 italic">{empty}</p>;
  return (
    <div className="text-sm text-slate-800">
      <ReactMarkdown skipHtml disallowedElements={["img"]} unwrapDisallowed={false} components={COMPONENTS}>
        {text}
      </ReactMarkdown>
    </div>
  );
}
