"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { useEffect, useState, type ReactNode } from "react";

export function Providers({ children }: { children: ReactNode }) {
  const [client] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: 10_000, refetchOnWindowFocus: false } } }),
  );
  // Marks the document once React has taken it over: from here on, input reaches the page's handlers (the e2e suite
  // waits for it after each navigation, rather than typing into a page that does not listen yet).
  useEffect(() => {
    document.documentElement.dataset.interactive = "true";
  }, []);
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
