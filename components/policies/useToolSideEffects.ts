"use client";

import { useState } from "react";
import { setToolSideEffectAction } from "@/lib/actions/policies";
import type { AgentTool } from "@/lib/db/policies";
import type { SideEffect } from "@/lib/replay";

/**
 * The agent's tools as the editor shows them, and declaring a tool's side
 * effect: shown at once, saved to the agent's tool in the background; a
 * failure is reported through `onError` (no agent: nothing to declare on).
 */
export function useToolSideEffects(agentId: string | null, initialTools: AgentTool[], onError: (text: string) => void) {
  const [tools, setTools] = useState(initialTools);
  const setSideEffect = (tool: string, sideEffect: SideEffect) => {
    if (!agentId) return;
    setTools((current) =>
      current.some((t) => t.name === tool)
        ? current.map((t) => (t.name === tool ? { ...t, sideEffect } : t))
        : [...current, { name: tool, sideEffect, calls: 0, declared: true }],
    );
    void setToolSideEffectAction({ agentId, tool, sideEffect }).then((r) => {
      if (!r.ok) onError(`Side effect of ${tool} not saved: ${r.error.message}`);
    });
  };
  return [tools, setSideEffect] as const;
}
